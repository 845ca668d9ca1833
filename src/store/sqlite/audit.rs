//! The audit trail: appended to, read newest first or oldest first; the table's triggers refuse
//! any change.

use super::*;

impl SqliteStore {
    pub async fn audit(&self, entry: AuditEntry, now: jiff::Timestamp) -> Result<(), StoreError> {
        let now = text(now);
        self.write(move |conn| append(conn, &entry, &now)).await
    }

    pub async fn audit_page(&self, before_id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        self.audit_read("WHERE id < ?1 ORDER BY id DESC LIMIT ?2", before_id, limit).await
    }

    pub async fn audit_after(&self, after_id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        self.audit_read("WHERE id > ?1 ORDER BY id LIMIT ?2", after_id, limit).await
    }

    /// A page of the trail by `order` (its condition and order), from an id (`?1`), `?2` entries at
    /// most.
    async fn audit_read(
        &self,
        order: &'static str,
        id: i64,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT id, at, actor, action, lead_id, detail, address FROM audit {order}"
            ))?;
            let rows = stmt.query_map(params![id, limit], audit_record)?;
            rows.collect()
        })
        .await
    }
}

/// Appends `entry` at `now` in the write it is called from: a change and its entry are kept
/// together or not at all (ADR 0088).
pub(super) fn append(conn: &Connection, entry: &AuditEntry, now: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO audit (at, actor, action, lead_id, detail, address) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        now,
        entry.actor,
        entry.action.name(),
        entry.lead_id,
        entry.detail,
        entry.address
    ])?;
    Ok(())
}

/// Whether a change of one row (a lead, an account, a closed day) was made (`changed` rows); if
/// so, with its entry in the trail.
pub(super) fn audited(
    conn: &Connection,
    changed: usize,
    trail: &AuditEntry,
    now: &str,
) -> rusqlite::Result<bool> {
    if changed == 1 {
        append(conn, trail, now)?;
    }
    Ok(changed == 1)
}

fn audit_record(row: &rusqlite::Row) -> rusqlite::Result<AuditRecord> {
    Ok(AuditRecord {
        id: row.get(0)?,
        at: row.get(1)?,
        actor: row.get(2)?,
        action: row.get(3)?,
        lead_id: row.get(4)?,
        detail: row.get(5)?,
        address: row.get(6)?,
    })
}

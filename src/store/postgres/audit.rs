//! The audit trail: appended to, read newest first or oldest first; the table's trigger refuses
//! any change.

use super::*;

/// The trail's columns, as `audit_read` reads them, from the rows `$condition` picks.
macro_rules! audit_sql {
    ($condition:literal) => {
        concat!(
            "SELECT id, ",
            text_time!("at"),
            ", actor, action, lead_id, detail, address FROM audit ",
            $condition
        )
    };
}

impl PostgresStore {
    pub async fn audit(&self, entry: AuditEntry, now: jiff::Timestamp) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO audit (at, actor, action, lead_id, detail, address) \
                 VALUES (to_timestamp($1), $2, $3, $4, $5, $6)",
                &[
                    &seconds(now),
                    &entry.actor,
                    &entry.action.name(),
                    &entry.lead_id,
                    &entry.detail,
                    &entry.address,
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn audit_page(&self, before_id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        self.audit_read(audit_sql!("WHERE id < $1 ORDER BY id DESC LIMIT $2"), before_id, limit).await
    }

    pub async fn audit_after(&self, after_id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        self.audit_read(audit_sql!("WHERE id > $1 ORDER BY id LIMIT $2"), after_id, limit).await
    }

    /// A page of the trail by `sql` (`audit_sql!`), from an id (`$1`), `$2` entries at most.
    async fn audit_read(&self, sql: &str, id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client.query(sql, &[&id, &i64::from(limit)]).await.map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| AuditRecord {
                id: row.get(0),
                at: row.get(1),
                actor: row.get(2),
                action: row.get(3),
                lead_id: row.get(4),
                detail: row.get(5),
                address: row.get(6),
            })
            .collect())
    }
}

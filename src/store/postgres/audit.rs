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
        append(&**client, &[&entry], seconds(now)).await
    }

    /// Whether `change`, a statement on one row (a lead, a closed day), changed it; if so, with
    /// `trail` appended in the same transaction.
    pub(super) async fn audited_change(
        &self,
        change: &str,
        values: &[&(dyn tokio_postgres::types::ToSql + Sync)],
        trail: &AuditEntry,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        if tx.execute(change, values).await.map_err(unavailable)? != 1 {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(false);
        }
        append(&*tx, &[trail], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
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

/// Appends `entries` at `now` on `client`, in their order; given a transaction, the change it
/// holds and its entries are kept together or not at all (ADR 0088).
pub(super) async fn append(
    client: &impl tokio_postgres::GenericClient,
    entries: &[&AuditEntry],
    now: f64,
) -> Result<(), StoreError> {
    let column =
        |field: fn(&AuditEntry) -> Option<&str>| entries.iter().map(|e| field(e)).collect::<Vec<_>>();
    let lead_ids: Vec<Option<i64>> = entries.iter().map(|entry| entry.lead_id).collect();
    client
        .execute(
            "INSERT INTO audit (at, actor, action, lead_id, detail, address) \
             SELECT to_timestamp($1), actor, action, lead_id, detail, address \
             FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) WITH ORDINALITY \
               AS e(actor, action, lead_id, detail, address, n) ORDER BY n",
            &[
                &now,
                &column(|entry| Some(entry.actor.as_str())),
                &column(|entry| Some(entry.action.name())),
                &lead_ids,
                &column(|entry| entry.detail.as_deref()),
                &column(|entry| entry.address.as_deref()),
            ],
        )
        .await
        .map_err(unavailable)?;
    Ok(())
}

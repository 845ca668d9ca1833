//! The audit trail: appended to, read newest first; the table's trigger refuses any change.

use super::*;

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
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT id, ",
                    text_time!("at"),
                    ", actor, action, lead_id, detail, address FROM audit WHERE id < $1 ORDER BY id DESC LIMIT $2"
                ),
                &[&before_id, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
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

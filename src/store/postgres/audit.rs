//! The audit trail: appended to, read newest first or oldest first; the table's trigger refuses
//! any change.

use tokio_postgres::types::ToSql;

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

/// An entry's columns, as every append names them.
const APPEND: &str = "INSERT INTO audit (at, actor, action, lead_id, detail, address)";

impl PostgresStore {
    pub async fn audit(&self, entry: AuditEntry, now: jiff::Timestamp) -> Result<(), StoreError> {
        let client = self.client().await?;
        append(&**client, &[&entry], seconds(now)).await
    }

    /// Whether `change`, a statement on one row by its key (a lead, a closed day), changed it; if
    /// so, with `trail` appended by the same statement: one round trip and one commit.
    pub(super) async fn audited_change(
        &self,
        change: &str,
        values: &[&(dyn ToSql + Sync)],
        trail: &AuditEntry,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let n = values.len();
        let sql = format!(
            "WITH changed AS ({change} RETURNING 1) {APPEND} SELECT to_timestamp(${}::float8), \
             ${}::text, ${}::text, ${}::bigint, ${}::text, ${}::text FROM changed",
            n + 1,
            n + 2,
            n + 3,
            n + 4,
            n + 5,
            n + 6
        );
        let (now, action) = (seconds(now), trail.action.name());
        let entry: [&(dyn ToSql + Sync); 6] =
            [&now, &trail.actor, &action, &trail.lead_id, &trail.detail, &trail.address];
        let values: Vec<&(dyn ToSql + Sync)> = values.iter().copied().chain(entry).collect();
        let client = self.client().await?;
        Ok(client.execute(&sql, &values).await.map_err(unavailable)? == 1)
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
            &format!(
                "{APPEND} SELECT to_timestamp($1), actor, action, lead_id, detail, address \
                 FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) WITH ORDINALITY \
                 AS e(actor, action, lead_id, detail, address, n) ORDER BY n"
            ),
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

//! PostgreSQL: a connection pool; PostgreSQL's own commit is durable (fsync'd WAL) and groups
//! concurrent commits by itself. Several zayavka instances may share one database: migrations
//! take an advisory lock, ids come from an identity column.

use std::time::Duration;

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::{NoTls, Row};

use super::{Idempotency, InsertContext, StoreError, Stored};
use crate::lead::{Lead, NewLead};

const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_leads.sql"),
    include_str!("../../migrations/postgres/0002_idempotency_keys.sql"),
];

/// Any constant: instances that start together run the migrations one at a time.
const MIGRATION_LOCK: i64 = 0x007a_6179_6176_6b61;

/// `created_at` as RFC 3339 in UTC with microseconds, as the SQLite store writes it.
const LEAD_COLUMNS: &str = "id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
                            name, phone, confirmation, comment";

pub struct PostgresStore {
    pool: Pool,
}

impl PostgresStore {
    pub async fn open(url: &str) -> anyhow::Result<PostgresStore> {
        let config: tokio_postgres::Config =
            url.parse().map_err(|e| anyhow::anyhow!("ZAYAVKA_DATABASE_URL: not a PostgreSQL URL: {e}"))?;
        let manager =
            Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(5)))
            .create_timeout(Some(Duration::from_secs(5)))
            .recycle_timeout(Some(Duration::from_secs(5)))
            .build()
            .context("cannot set up the PostgreSQL connection pool")?;
        let mut client =
            pool.get().await.map_err(|e| anyhow::anyhow!("cannot connect to PostgreSQL: {e}"))?;
        migrate(&mut client).await.context("cannot migrate the PostgreSQL database")?;
        Ok(PostgresStore { pool })
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: &InsertContext,
        idempotency: Option<&Idempotency>,
    ) -> Result<Vec<Stored>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let insert = tx
            .prepare_cached(&format!(
                "INSERT INTO \"CRN\" (name, phone, phone_e164, confirmation, comment, policy_version) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING {LEAD_COLUMNS}"
            ))
            .await
            .map_err(unavailable)?;
        let window_seconds = context.duplicate_window.map(|w| w.as_secs_f64());
        let mut stored = Vec::with_capacity(leads.len());
        for lead in &leads {
            if let Some(seconds) = window_seconds {
                // Two instances taking the same phone at once: the lock (held until commit) makes
                // the second see the first's row.
                tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lead.phone_e164])
                    .await
                    .map_err(unavailable)?;
                let recent = tx
                    .query_opt(
                        &format!(
                            "SELECT {LEAD_COLUMNS} FROM \"CRN\" WHERE phone_e164 = $1 \
                             AND created_at >= now() - make_interval(secs => $2) ORDER BY id LIMIT 1"
                        ),
                        &[&lead.phone_e164, &seconds],
                    )
                    .await
                    .map_err(unavailable)?;
                if let Some(row) = recent {
                    let earlier = lead_from(&row);
                    stored.push(Stored {
                        lead: lead.stored_as(earlier.id, earlier.created_at),
                        duplicate: true,
                    });
                    continue;
                }
            }
            let row = tx
                .query_one(
                    &insert,
                    &[
                        &lead.name,
                        &lead.phone,
                        &lead.phone_e164,
                        &lead.confirmation,
                        &lead.comment,
                        &&*context.policy_version,
                    ],
                )
                .await
                .map_err(unavailable)?;
            stored.push(Stored { lead: lead_from(&row), duplicate: false });
        }
        if let Some(idempotency) = idempotency {
            let ids: Vec<i64> = stored.iter().map(|row| row.lead.id).collect();
            tx.execute(
                "INSERT INTO idempotency_keys (key, fingerprint, lead_ids) VALUES ($1, $2, $3) \
                 ON CONFLICT (key) DO NOTHING",
                &[&idempotency.key, &idempotency.fingerprint, &ids],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(stored)
    }

    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT fingerprint, lead_ids FROM idempotency_keys \
                 WHERE key = $1 AND created_at >= to_timestamp($2)",
                &[&key, &(since.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let purged = client
            .execute(
                "DELETE FROM idempotency_keys WHERE created_at < to_timestamp($1)",
                &[&(before.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(purged as usize)
    }

    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {LEAD_COLUMNS} FROM \"CRN\" JOIN unnest($1::bigint[]) WITH ORDINALITY AS wanted(id, n) \
                     USING (id) ORDER BY n"
                ),
                &[&ids],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(lead_from).collect())
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.client().await?.simple_query("SELECT 1").await.map_err(unavailable)?;
        Ok(())
    }

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<Lead>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {LEAD_COLUMNS} FROM \"CRN\" WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after_id, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(lead_from).collect())
    }

    pub async fn meta_get_or_insert(&self, key: &str, value: String) -> Result<String, StoreError> {
        let client = self.client().await?;
        // Two instances starting together: the first insert wins and both read it back.
        client
            .execute(
                "INSERT INTO zayavka_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                &[&key, &value],
            )
            .await
            .map_err(unavailable)?;
        let row = client
            .query_one("SELECT value FROM zayavka_meta WHERE key = $1", &[&key])
            .await
            .map_err(unavailable)?;
        Ok(row.get(0))
    }

    pub fn close(&self) {
        self.pool.close();
    }
}

async fn migrate(client: &mut deadpool_postgres::Object) -> Result<(), tokio_postgres::Error> {
    client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).await?;
    let result = async {
        client.batch_execute("CREATE TABLE IF NOT EXISTS zayavka_schema (version INTEGER NOT NULL)").await?;
        let applied: i32 =
            client.query_one("SELECT coalesce(max(version), 0) FROM zayavka_schema", &[]).await?.get(0);
        for (version, sql) in (1..).zip(MIGRATIONS).skip(usize::try_from(applied).unwrap_or(0)) {
            let tx = client.transaction().await?;
            tx.batch_execute(sql).await?;
            tx.execute("INSERT INTO zayavka_schema (version) VALUES ($1)", &[&version]).await?;
            tx.commit().await?;
        }
        Ok(())
    }
    .await;
    client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]).await?;
    result
}

fn lead_from(row: &Row) -> Lead {
    Lead {
        id: row.get(0),
        created_at: row.get(1),
        name: row.get(2),
        phone: row.get(3),
        confirmation: row.get(4),
        comment: row.get(5),
    }
}

fn unavailable(e: tokio_postgres::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

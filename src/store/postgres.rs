//! PostgreSQL: a connection pool; PostgreSQL's own commit is durable (fsync'd WAL) and groups
//! concurrent commits by itself. Several zayavka instances may share one database: migrations
//! take an advisory lock, ids come from an identity column.

use std::time::Duration;

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::{NoTls, Row};

use super::{
    Attempt, ChannelQueue, Counts, CountsAt, Idempotency, InsertContext, LOCK_WAIT, LeadQuery, LeadRecord,
    Operator, OutboxJob, Session, StoreError, Stored,
};
use crate::inbox::{Outcome, open_statuses_sql};
use crate::lead::{Lead, NewLead};

const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_leads.sql"),
    include_str!("../../migrations/postgres/0002_idempotency_keys.sql"),
    include_str!("../../migrations/postgres/0003_operators.sql"),
    include_str!("../../migrations/postgres/0004_repeat_submissions.sql"),
    include_str!("../../migrations/postgres/0005_held.sql"),
    include_str!("../../migrations/postgres/0006_setup_tokens.sql"),
];

const HAS_OPERATOR: &str = "SELECT EXISTS (SELECT 1 FROM operators)";

/// Any constant: instances that start together run the migrations one at a time.
const MIGRATION_LOCK: i64 = 0x007a_6179_6176_6b61;

/// `created_at` as RFC 3339 in UTC with microseconds, as the SQLite store writes it.
const LEAD_COLUMNS: &str = "id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
                            name, phone, confirmation, comment";

/// A `timestamptz` column as the SQLite store writes times: RFC 3339, UTC, microseconds.
macro_rules! text_time {
    ($column:literal) => {
        concat!("to_char(", $column, " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
    };
}

/// The columns `record_from` reads.
const RECORD_COLUMNS: &str = concat!(
    "id, ",
    text_time!("created_at"),
    ", name, phone, phone_e164, confirmation, comment, policy_version, status, ",
    text_time!("reached_at"),
    ", (SELECT count(*) FROM call_attempts WHERE lead_id = \"CRN\".id), repeat_of, ",
    "(SELECT count(*) FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id), held"
);

pub struct PostgresStore {
    pool: Pool,
}

impl PostgresStore {
    pub async fn open(url: &str) -> anyhow::Result<PostgresStore> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| anyhow::anyhow!("ZAYAVKA_DATABASE_URL: not a PostgreSQL URL: {e}"))?;
        // A table or row lock held elsewhere waits at most LOCK_WAIT. First, so that an `options`
        // in the URL can still set its own.
        let options =
            format!("-c lock_timeout={}ms {}", LOCK_WAIT.as_millis(), config.get_options().unwrap_or(""));
        config.options(options.trim_end());
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
        if let Some(idempotency) = idempotency {
            // Instances share no memory: the key is claimed with a lock held until this commit.
            // One that cannot take it, or takes it only after another request recorded the key,
            // stores nothing and says so. Two statements: the record is read with a snapshot
            // taken after the lock, which sees a commit that released it.
            let locked: bool = tx
                .query_one(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended('Idempotency-Key ' || $1, 0))",
                    &[&idempotency.key],
                )
                .await
                .map_err(unavailable)?
                .get(0);
            let recorded = locked
                && tx
                    .query_opt(
                        "SELECT 1 FROM idempotency_keys WHERE key = $1 \
                         AND created_at >= now() - make_interval(secs => $2)",
                        &[&idempotency.key, &(super::IDEMPOTENCY_WINDOW.as_secs_f64())],
                    )
                    .await
                    .map_err(unavailable)?
                    .is_some();
            if !locked || recorded {
                return Err(StoreError::IdempotencyKeyTaken);
            }
        }
        let insert = tx
            .prepare_cached(&format!(
                "INSERT INTO \"CRN\" \
                 (name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {LEAD_COLUMNS}"
            ))
            .await
            .map_err(unavailable)?;
        let window_seconds = context.duplicate_window.map(|w| w.as_secs_f64());
        let mut stored = Vec::with_capacity(leads.len());
        for lead in &leads {
            let held = super::held_text(&lead.held);
            let mut repeat_of: Option<i64> = None;
            // A held lead stands alone: it must not make a person's real lead its repeat.
            if let Some(seconds) = window_seconds.filter(|_| held.is_none()) {
                // Two instances taking the same phone at once: the lock (held until commit) makes
                // the second see the first's row.
                tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lead.phone_e164])
                    .await
                    .map_err(unavailable)?;
                repeat_of = tx
                    .query_opt(
                        "SELECT id FROM \"CRN\" WHERE phone_e164 = $1 AND repeat_of IS NULL AND held IS NULL \
                         AND created_at >= now() - make_interval(secs => $2) ORDER BY id LIMIT 1",
                        &[&lead.phone_e164, &seconds],
                    )
                    .await
                    .map_err(unavailable)?
                    .map(|row| row.get(0));
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
                        &repeat_of,
                        &held,
                    ],
                )
                .await
                .map_err(unavailable)?;
            let lead = lead_from(&row);
            // A repeat's first lead was notified already; a held lead is notified once released.
            if repeat_of.is_none() && held.is_none() && !context.channels.is_empty() {
                let channels: Vec<&str> = context.channels.to_vec();
                tx.execute(
                    "INSERT INTO outbox (lead_id, event, channel) SELECT $1, 'new', unnest($2::text[])",
                    &[&lead.id, &channels],
                )
                .await
                .map_err(unavailable)?;
            }
            stored.push(Stored { lead, repeat_of });
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

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after_id, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND (held IS NOT NULL) = $7 AND ($1::bigint IS NULL OR id < $1) \
                       AND ($2::text IS NULL OR translate(lower(name), 'ʼ’`', repeat(chr(39), 3)) LIKE $2 ESCAPE '\\') \
                       AND ($3::text IS NULL OR phone_e164 LIKE $3) \
                       AND (NOT $4 OR status IN ({open})) \
                       AND ($5::float8 IS NULL OR created_at < to_timestamp($5)) \
                     ORDER BY id DESC LIMIT $6",
                    open = open_statuses_sql()
                ),
                &[
                    &query.before_id,
                    &query.name_pattern,
                    &query.phone_pattern,
                    &query.open_only,
                    &query.created_before.map(seconds),
                    &i64::from(query.limit),
                    &query.held,
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(&format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id = $1"), &[&id])
            .await
            .map_err(unavailable)?;
        Ok(row.as_ref().map(record_from))
    }

    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE repeat_of = $1 ORDER BY id"),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT id, ",
                    text_time!("at"),
                    ", operator, outcome, note FROM call_attempts WHERE lead_id = $1 ORDER BY id"
                ),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| Attempt {
                id: row.get(0),
                at: row.get(1),
                operator: row.get(2),
                outcome: row.get(3),
                note: row.get(4),
            })
            .collect())
    }

    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The lock keeps two operators' calls from counting the same unanswered calls.
        let exists = tx
            .query_opt("SELECT 1 FROM \"CRN\" WHERE id = $1 FOR UPDATE", &[&lead_id])
            .await
            .map_err(unavailable)?;
        if exists.is_none() {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO call_attempts (lead_id, operator, outcome, note) VALUES ($1, $2, $3, $4)",
            &[&lead_id, &operator, &outcome.as_str(), &note],
        )
        .await
        .map_err(unavailable)?;
        let unanswered: i64 = tx
            .query_one(
                "SELECT count(*) FROM call_attempts WHERE lead_id = $1 AND outcome = 'no_answer'",
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        tx.execute(
            "UPDATE \"CRN\" SET status = $2, \
             reached_at = CASE WHEN $3 AND reached_at IS NULL THEN now() ELSE reached_at END WHERE id = $1",
            &[&lead_id, &outcome.status_after(unanswered), &outcome.reached()],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        let client = self.client().await?;
        let (overdue_before, window_start) = (seconds(at.overdue_before), seconds(at.window_start));
        let open = client
            .query_one(
                &format!(
                    "SELECT count(*), count(*) FILTER (WHERE created_at < to_timestamp($1)) FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND held IS NULL AND status IN ({})",
                    open_statuses_sql()
                ),
                &[&overdue_before],
            )
            .await
            .map_err(unavailable)?;
        let share = client
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE reached_at <= created_at + interval '48 hours') \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= to_timestamp($1) \
                 AND (created_at < to_timestamp($2) OR reached_at IS NOT NULL)",
                &[&window_start, &overdue_before],
            )
            .await
            .map_err(unavailable)?;
        let days = client
            .query(
                "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24') AS hour, count(*) \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= to_timestamp($1) \
                 GROUP BY hour ORDER BY hour",
                &[&window_start],
            )
            .await
            .map_err(unavailable)?;
        let held = client
            .query_one("SELECT count(*) FROM \"CRN\" WHERE held IS NOT NULL", &[])
            .await
            .map_err(unavailable)?;
        Ok(Counts {
            held: held.get(0),
            open: open.get(0),
            overdue: open.get(1),
            due: share.get(0),
            reached_in_time: share.get(1),
            per_hour: days.iter().map(|row| (row.get(0), row.get(1))).collect(),
        })
    }

    pub async fn erase_phone(&self, phone_e164: String) -> Result<usize, StoreError> {
        self.delete_leads("phone_e164 = $1", &phone_e164).await
    }

    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("created_at < to_timestamp($1)", &seconds(before)).await
    }

    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("held IS NOT NULL AND created_at < to_timestamp($1)", &seconds(before)).await
    }

    pub async fn release(
        &self,
        id: i64,
        channels: std::sync::Arc<[&'static str]>,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let released = tx
            .execute("UPDATE \"CRN\" SET held = NULL WHERE id = $1 AND held IS NOT NULL", &[&id])
            .await
            .map_err(unavailable)?;
        if released == 0 {
            return Ok(false);
        }
        let channels: Vec<&str> = channels.to_vec();
        tx.execute(
            "INSERT INTO outbox (lead_id, event, channel) SELECT $1, 'new', unnest($2::text[]) \
             ON CONFLICT (lead_id, event, channel) DO NOTHING",
            &[&id, &channels],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    /// Deletes the leads `condition` picks and the repeats that name them, their calls and
    /// notifications (by cascade) and the idempotency records that name them, in one statement: atomic without a transaction left
    /// open between round trips (the hourly purge runs in the background, and a transaction held
    /// open while the task waits would block anyone altering those tables meanwhile).
    async fn delete_leads(
        &self,
        condition: &str,
        value: &(dyn tokio_postgres::types::ToSql + Sync),
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                &format!(
                    "WITH gone AS (DELETE FROM \"CRN\" WHERE ({condition}) \
                       OR repeat_of IN (SELECT id FROM \"CRN\" WHERE {condition}) RETURNING id), \
                     forgotten AS (DELETE FROM idempotency_keys \
                       WHERE lead_ids && (SELECT coalesce(array_agg(id), '{{}}') FROM gone)) \
                     SELECT count(*) FROM gone"
                ),
                &[value],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.get::<_, i64>(0) as usize)
    }

    pub async fn add_operator(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let added = client
            .execute(
                "INSERT INTO operators (email, password_hash) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING",
                &[&email, &password_hash],
            )
            .await
            .map_err(unavailable)?;
        Ok(added == 1)
    }

    pub async fn set_password(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let changed = tx
            .execute("UPDATE operators SET password_hash = $2 WHERE email = $1", &[&email, &password_hash])
            .await
            .map_err(unavailable)?;
        tx.execute(
            "DELETE FROM operator_sessions WHERE operator_id IN (SELECT id FROM operators WHERE email = $1)",
            &[&email],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(changed == 1)
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt("SELECT id, email, password_hash FROM operators WHERE email = $1", &[&email])
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| Operator { id: row.get(0), email: row.get(1), password_hash: row.get(2) }))
    }

    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let has_operator: bool = tx.query_one(HAS_OPERATOR, &[]).await.map_err(unavailable)?.get(0);
        if has_operator {
            tx.execute("DELETE FROM setup_tokens", &[]).await.map_err(unavailable)?;
        } else {
            tx.execute("DELETE FROM setup_tokens WHERE expires_at <= now()", &[])
                .await
                .map_err(unavailable)?;
            tx.execute(
                "INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, to_timestamp($2))",
                &[&token_hash, &seconds(expires_at)],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(!has_operator)
    }

    pub async fn setup_token_valid(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                &format!(
                    "SELECT EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = $1 AND expires_at > to_timestamp($2)) \
                     AND NOT ({HAS_OPERATOR})"
                ),
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.get(0))
    }

    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
    ) -> Result<Option<Operator>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // Two instances taking two links at once: one of them creates the first operator.
        tx.execute("LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE", &[]).await.map_err(unavailable)?;
        let used = tx
            .execute(
                "DELETE FROM setup_tokens WHERE token_hash = $1 AND expires_at > to_timestamp($2)",
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        let has_operator: bool = tx.query_one(HAS_OPERATOR, &[]).await.map_err(unavailable)?.get(0);
        if used == 0 || has_operator {
            return Ok(None);
        }
        let id: i64 = tx
            .query_one(
                "INSERT INTO operators (email, password_hash) VALUES ($1, $2) RETURNING id",
                &[&email, &password_hash],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        tx.execute("DELETE FROM setup_tokens", &[]).await.map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(Operator { id, email, password_hash }))
    }

    pub async fn create_session(
        &self,
        token_hash: String,
        operator_id: i64,
        csrf_token: String,
        expires_at: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, expires_at) \
                 VALUES ($1, $2, $3, to_timestamp($4))",
                &[&token_hash, &operator_id, &csrf_token, &seconds(expires_at)],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn session(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<Option<Session>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT s.operator_id, o.email, s.csrf_token FROM operator_sessions s \
                 JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = $1 AND s.expires_at > to_timestamp($2)",
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| Session { operator_id: row.get(0), email: row.get(1), csrf_token: row.get(2) }))
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute("DELETE FROM operator_sessions WHERE token_hash = $1", &[&token_hash])
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let purged = client
            .execute("DELETE FROM operator_sessions WHERE expires_at < to_timestamp($1)", &[&seconds(before)])
            .await
            .map_err(unavailable)?;
        Ok(purged as usize)
    }

    pub async fn claim_outbox(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: std::sync::Arc<[&'static str]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        let client = self.client().await?;
        let channels: Vec<&str> = channels.to_vec();
        // The database's clock, not this instance's, says what is due and whose lease has run
        // out: instances whose clocks disagree must still agree on that, or a row being sent by
        // one is claimed again by another. The lease's length is the caller's.
        let lease_seconds = seconds(lease_until) - seconds(now);
        // SKIP LOCKED: instances claiming at the same moment take different rows, never wait.
        let rows = client
            .query(
                "UPDATE outbox SET locked_until = now() + make_interval(secs => $1), attempts = attempts + 1 \
                 WHERE id IN ( \
                   SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= now() \
                   AND (locked_until IS NULL OR locked_until <= now()) \
                   AND channel = ANY($3) ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) \
                 RETURNING id, lead_id, event, channel, attempts",
                &[&lease_seconds, &i64::from(limit), &channels],
            )
            .await
            .map_err(unavailable)?;
        let mut jobs: Vec<OutboxJob> = rows
            .iter()
            .map(|row| OutboxJob {
                id: row.get(0),
                lead_id: row.get(1),
                event: row.get(2),
                channel: row.get(3),
                attempts: row.get(4),
            })
            .collect();
        jobs.sort_by_key(|job| job.id);
        Ok(jobs)
    }

    pub async fn outbox_sent(&self, id: i64, now: jiff::Timestamp) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE outbox SET sent_at = to_timestamp($2), locked_until = NULL, last_error = NULL WHERE id = $1",
                &[&id, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn outbox_retry(
        &self,
        id: i64,
        next_attempt_at: jiff::Timestamp,
        error: String,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        // As a wait from the database's clock (see `claim_outbox`).
        let wait_seconds = (seconds(next_attempt_at) - seconds(jiff::Timestamp::now())).max(0.0);
        client
            .execute(
                "UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2), locked_until = NULL, \
                 last_error = $3 WHERE id = $1",
                &[&id, &wait_seconds, &error],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn queue_reminders(
        &self,
        event: &'static str,
        channels: std::sync::Arc<[&'static str]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let channels: Vec<&str> = channels.to_vec();
        let queued = client
            .execute(
                &format!(
                    "INSERT INTO outbox (lead_id, event, channel) \
                     SELECT id, $1, channel FROM \"CRN\", unnest($2::text[]) AS channel \
                     WHERE repeat_of IS NULL AND held IS NULL AND status IN ({}) \
                     AND created_at >= to_timestamp($3) AND created_at < to_timestamp($4) \
                     ON CONFLICT (lead_id, event, channel) DO NOTHING",
                    open_statuses_sql()
                ),
                &[&event, &channels, &seconds(from), &seconds(to)],
            )
            .await
            .map_err(unavailable)?;
        Ok(queued as usize)
    }

    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        let client = self.client().await?;
        // Per channel: unsent rows, those that failed, the oldest's time, the newest failure's reason.
        let rows = client
            .query(
                concat!(
                    "SELECT channel, count(*), count(last_error), ",
                    text_time!("min(created_at)"),
                    ", (SELECT newest.last_error FROM outbox AS newest WHERE newest.channel = queued.channel \
                     AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
                     FROM outbox AS queued WHERE sent_at IS NULL GROUP BY channel ORDER BY channel"
                ),
                &[],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| ChannelQueue {
                channel: row.get(0),
                waiting: row.get(1),
                failing: row.get(2),
                oldest_at: row.get(3),
                last_error: row.get(4),
            })
            .collect())
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
    // Another instance may be migrating, and a migration may wait for locks: no lock timeout here
    // (RESET below gives the pooled connection its own back).
    client.batch_execute("SET lock_timeout = 0").await?;
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
    client.batch_execute("RESET lock_timeout").await?;
    result
}

fn record_from(row: &Row) -> LeadRecord {
    LeadRecord {
        id: row.get(0),
        created_at: row.get(1),
        name: row.get(2),
        phone: row.get(3),
        phone_e164: row.get(4),
        confirmation: row.get(5),
        comment: row.get(6),
        policy_version: row.get(7),
        status: row.get(8),
        reached_at: row.get(9),
        attempt_count: row.get(10),
        repeat_of: row.get(11),
        repeat_count: row.get(12),
        held: super::held_codes(row.get(13)),
    }
}

/// Seconds since the epoch, for `to_timestamp()` (microseconds survive in an f64).
fn seconds(at: jiff::Timestamp) -> f64 {
    at.as_microsecond() as f64 / 1_000_000.0
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
    // The error's text goes to the log. PostgreSQL's DETAIL may quote a row ("Failing row contains
    // (…)"), a lead's name and phone with it: keep only the message and the code.
    let text = match e.as_db_error() {
        Some(db) => format!("{}: {} ({})", db.severity(), db.message(), db.code().code()),
        None => e.to_string(),
    };
    StoreError::Unavailable(text)
}

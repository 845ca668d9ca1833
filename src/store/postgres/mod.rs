//! PostgreSQL: a connection pool; PostgreSQL's own commit is durable (fsync'd WAL) and groups
//! concurrent commits by itself. Several zayavka instances may share one database: migrations
//! take an advisory lock, ids come from an identity column.

mod abuse;
mod audit;
mod claims;
mod closed_days;
mod counters;
mod inbox;
mod leads;
mod name_words;
mod operators;
mod outages;
mod outbox;
mod promise;
mod second_factor;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{NoTls, Row};

use super::{
    Account, Attempt, AuditEntry, AuditRecord, ChannelQueue, ClosedDay, Counts, CountsAt, Delivery, EntryOf,
    IDEMPOTENCY_WINDOW, Idempotency, InsertContext, LOCK_WAIT, LeadQuery, LeadRecord, Operator,
    OperatorCount, OutboxJob, Session, SourceCount, StoreError, Stored, channel_names, closed_day_row,
    held_codes, held_text, role_of, status_of,
};
use crate::inbox::{Claim, WroteAgain, open_statuses_sql, reached_outcomes_sql};
use crate::lead::{Attribution, Lead, NewLead};
use crate::notice::{Channel, Event};
use crate::team::{AccountChange, Role};

const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/postgres/0001_leads.sql"),
    include_str!("../../../migrations/postgres/0002_idempotency_keys.sql"),
    include_str!("../../../migrations/postgres/0003_operators.sql"),
    include_str!("../../../migrations/postgres/0004_repeat_submissions.sql"),
    include_str!("../../../migrations/postgres/0005_held.sql"),
    include_str!("../../../migrations/postgres/0006_setup_tokens.sql"),
    include_str!("../../../migrations/postgres/0007_attribution.sql"),
    include_str!("../../../migrations/postgres/0008_roles_and_audit.sql"),
    include_str!("../../../migrations/postgres/0009_claims.sql"),
    include_str!("../../../migrations/postgres/0010_second_factor.sql"),
    include_str!("../../../migrations/postgres/0011_session_seen_at.sql"),
    include_str!("../../../migrations/postgres/0012_session_second_factor.sql"),
    include_str!("../../../migrations/postgres/0013_second_factor_guessing.sql"),
    include_str!("../../../migrations/postgres/0014_shared_abuse_counts.sql"),
    include_str!("../../../migrations/postgres/0015_next_call.sql"),
    include_str!("../../../migrations/postgres/0016_counters_and_name_search.sql"),
    include_str!("../../../migrations/postgres/0017_dropped_notifications.sql"),
    include_str!("../../../migrations/postgres/0018_escalation.sql"),
    include_str!("../../../migrations/postgres/0019_closed_days.sql"),
    include_str!("../../../migrations/postgres/0020_call_backs_told_and_channel_outages.sql"),
    include_str!("../../../migrations/postgres/0021_reads_that_stay_flat.sql"),
    include_str!("../../../migrations/postgres/0022_first_call_on_the_lead.sql"),
    include_str!("../../../migrations/postgres/0023_promise_hours_revised.sql"),
    include_str!("../../../migrations/postgres/0024_one_index_a_phone.sql"),
    include_str!("../../../migrations/postgres/0025_retries_used_up.sql"),
    include_str!("../../../migrations/postgres/0026_words_of_names.sql"),
    include_str!("../../../migrations/postgres/0027_pairs_of_words.sql"),
    include_str!("../../../migrations/postgres/0028_leads_by_name_piece.sql"),
    include_str!("../../../migrations/postgres/0029_calls_by_request_key.sql"),
    include_str!("../../../migrations/postgres/0030_leads_waiting_by_hour.sql"),
];

/// Inserts that may wait for a batch writer before callers wait to enqueue.
const INSERT_QUEUE: usize = 8192;

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
// By path, so that the entity modules have it too.
use text_time;

/// The columns `record_from` reads.
const RECORD_COLUMNS: &str = concat!(
    "id, ",
    text_time!("created_at"),
    ", name, phone, phone_e164, confirmation, comment, policy_version, status, ",
    text_time!("reached_at"),
    ", (SELECT count(*) FROM call_attempts WHERE lead_id = \"CRN\".id), repeat_of, ",
    "(SELECT count(*) FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id), held, ",
    "utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, ",
    "(SELECT email FROM operators WHERE id = \"CRN\".claimed_by), ",
    text_time!("claimed_until"),
    ", ",
    text_time!("next_call_at"),
    ", call_back, ",
    text_time!("escalated_at"),
    ", (SELECT ",
    text_time!("later.created_at"),
    " FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id ORDER BY later.id DESC LIMIT 1), ",
    "(SELECT comment FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id ORDER BY later.id DESC LIMIT 1), ",
    "retries_used_up"
);

pub struct PostgresStore {
    pool: Pool,
    folds: Arc<name_words::Folds>,
    /// Where inserts wait for the batch writers (`leads.rs`); none once the store is closed.
    inserts: Mutex<Option<mpsc::Sender<leads::InsertJob>>>,
    writers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl PostgresStore {
    pub async fn open(url: &str) -> anyhow::Result<PostgresStore> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| anyhow::anyhow!("ZAYAVKA_DATABASE_URL: not a PostgreSQL URL: {e}"))?;
        // A table or row lock held elsewhere waits at most LOCK_WAIT. JIT compilation is off: our
        // statements are short, and on a table without statistics (autovacuum off or behind, a
        // restore) the planner's guess passed `jit_above_cost` and compiled each insert again,
        // at a third to a half of the rate (ADR 0064). First, so that an `options` in the URL
        // can still set its own.
        let options = format!(
            "-c lock_timeout={}ms -c jit=off {}",
            LOCK_WAIT.as_millis(),
            config.get_options().unwrap_or("")
        );
        config.options(options.trim_end());
        // A connection whose peer vanished (a failover, a cut network) is noticed within about a
        // minute rather than the system's two hours.
        config.keepalives_idle(Duration::from_secs(30));
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
        ukrainian_letters_fold(&client).await?;
        migrate(&mut client).await.context("cannot migrate the PostgreSQL database")?;
        // What an earlier process's writes left queued (one that ended before its fold).
        let folds = Arc::new(name_words::Folds::new(pool.clone()));
        folds.fold(name_words::Fold::Waiting).await;
        let (inserts, queue) = mpsc::channel(INSERT_QUEUE);
        let queue: leads::InsertQueue = Arc::new(tokio::sync::Mutex::new(queue));
        let writers = (0..leads::BATCH_WRITERS)
            .map(|_| tokio::spawn(leads::write_batches(pool.clone(), folds.clone(), queue.clone())))
            .collect();
        Ok(PostgresStore { pool, folds, inserts: Mutex::new(Some(inserts)), writers: Mutex::new(writers) })
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.client().await?.simple_query("SELECT 1").await.map_err(unavailable)?;
        Ok(())
    }

    pub async fn meta_set(&self, key: &str, value: String) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO zayavka_meta (key, value) VALUES ($1, $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt("SELECT value FROM zayavka_meta WHERE key = $1", &[&key])
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| row.get(0)))
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

    pub async fn close(&self) {
        // The writers end once the queue is empty: every insert accepted is answered first.
        drop(self.inserts.lock().expect("inserts lock").take());
        let writers = std::mem::take(&mut *self.writers.lock().expect("writers lock"));
        for writer in writers {
            let _ = writer.await;
        }
        self.pool.close();
    }

    pub async fn backup_to(&self, _path: &std::path::Path) -> anyhow::Result<()> {
        anyhow::bail!("zayavka backup copies SQLite databases; for PostgreSQL use pg_dump -Fc")
    }
}

async fn migrate(client: &mut deadpool_postgres::Object) -> anyhow::Result<()> {
    // Another instance may be migrating, and a migration may wait for locks: no lock timeout here
    // (RESET below gives the pooled connection its own back).
    client.batch_execute("SET lock_timeout = 0").await?;
    client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).await?;
    let result = async {
        client.batch_execute("CREATE TABLE IF NOT EXISTS zayavka_schema (version INTEGER NOT NULL)").await?;
        let applied: i32 =
            client.query_one("SELECT coalesce(max(version), 0) FROM zayavka_schema", &[]).await?.get(0);
        anyhow::ensure!(
            applied as usize <= MIGRATIONS.len(),
            super::newer_schema(applied.into(), MIGRATIONS.len())
        );
        for (version, sql) in (1..).zip(MIGRATIONS).skip(usize::try_from(applied).unwrap_or(0)) {
            let tx = client.transaction().await?;
            tx.batch_execute(sql).await?;
            tx.execute("INSERT INTO zayavka_schema (version) VALUES ($1)", &[&version]).await?;
            tx.commit().await?;
        }
        Ok(counters::keep_counters(client).await?)
    }
    .await;
    client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]).await?;
    client.batch_execute("RESET lock_timeout").await?;
    result
}

/// `columns` of the leads with these ids that still exist, in the order given.
async fn leads_with_ids(
    client: &tokio_postgres::Client,
    columns: &str,
    ids: &[i64],
) -> Result<Vec<Row>, StoreError> {
    client
        .query(
            &format!(
                "SELECT {columns} FROM \"CRN\" JOIN unnest($1::bigint[]) WITH ORDINALITY AS wanted(id, n) \
                 USING (id) ORDER BY n"
            ),
            &[&ids],
        )
        .await
        .map_err(unavailable)
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
        status: status_of(row.get(8)),
        reached_at: row.get(9),
        attempt_count: row.get(10),
        repeat_of: row.get(11),
        repeat_count: row.get(12),
        held: held_codes(row.get(13)),
        attribution: Attribution::from_values([
            row.get(14),
            row.get(15),
            row.get(16),
            row.get(17),
            row.get(18),
            row.get(19),
        ]),
        claim: row.get::<_, Option<String>>(20).map(|by| Claim { by, until: row.get(21) }),
        next_call_at: row.get(22),
        call_back: row.get(23),
        retries_used_up: row.get(27),
        escalated_at: row.get(24),
        wrote_again: row.get::<_, Option<String>>(25).map(|at| WroteAgain { at, comment: row.get(26) }),
    }
}

/// Seconds since the epoch, for `to_timestamp()` (microseconds survive in an f64).
fn seconds(at: jiff::Timestamp) -> f64 {
    at.as_microsecond() as f64 / 1_000_000.0
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

impl PostgresStore {
    /// Marks notices of `table` (account or channel notices, which share their columns) sent, or
    /// due again at the time a retry says.
    async fn notices_done(
        &self,
        table: &'static str,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        let now = seconds(now);
        for delivery in deliveries {
            match delivery {
                Delivery::Sent(id) => client
                    .execute(
                        &format!(
                            "UPDATE {table} SET sent_at = to_timestamp($2), locked_until = NULL, \
                             last_error = NULL WHERE id = $1"
                        ),
                        &[&id, &now],
                    )
                    .await
                    .map_err(unavailable)?,
                Delivery::Retry { id, at, error } => client
                    .execute(
                        &format!(
                            "UPDATE {table} SET next_attempt_at = to_timestamp($2), \
                             locked_until = NULL, last_error = $3 WHERE id = $1"
                        ),
                        &[&id, &seconds(at), &error],
                    )
                    .await
                    .map_err(unavailable)?,
            };
        }
        Ok(())
    }
}

/// Names are searched in lower case, folded by the database's `lower()` (the name-piece lists,
/// migrations 0016, 0027, 0028) and by Rust for the text typed. A database whose character type is
/// `C` or `POSIX` lowers only ASCII: every Ukrainian name would be listed in capitals and never
/// found. A new database of that kind is refused at the start, before anything is written; one
/// already in use (its leads must stay reachable: to export, erase, move) starts with an error in
/// the log.
async fn ukrainian_letters_fold(client: &tokio_postgres::Client) -> anyhow::Result<()> {
    // Ґ, Є, І, Ї and their lower case.
    let (capitals, lower) = ("\u{490}\u{404}\u{406}\u{407}", "\u{491}\u{454}\u{456}\u{457}");
    let row = client
        .query_one(
            "SELECT lower($1) = $2, datctype, to_regclass('zayavka_schema') IS NULL \
             FROM pg_database WHERE datname = current_database()",
            &[&capitals, &lower],
        )
        .await
        .context("cannot read the PostgreSQL database's locale")?;
    let (folds, ctype, fresh): (bool, String, bool) = (row.get(0), row.get(1), row.get(2));
    let problem = format!(
        "the PostgreSQL database's character type ({ctype}) does not lower Ukrainian letters, so \
         names could not be searched: use a database created with LC_CTYPE 'C.UTF-8' (or another \
         UTF-8 locale), see docs/deployment.md"
    );
    match (folds, fresh) {
        (true, _) => {}
        (false, true) => anyhow::bail!(problem),
        (false, false) => tracing::error!("{problem}"),
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A fresh schema of the PostgreSQL database the tests use (`ZAYAVKA_TEST_POSTGRES_URL`), and
    /// the URL that opens it.
    pub(super) async fn fresh_schema() -> (tokio_postgres::Client, String, String) {
        let base = std::env::var("ZAYAVKA_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let (client, connection) = tokio_postgres::connect(&base, NoTls).await.unwrap();
        tokio::spawn(connection);
        let _ = client.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public").await;
        let schema = format!("unit_{}_{}", std::process::id(), rand::random::<u32>());
        client.batch_execute(&format!("CREATE SCHEMA {schema}")).await.unwrap();
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
        (client, schema, url)
    }

    async fn setting(store: &PostgresStore, name: &str) -> String {
        let client = store.client().await.unwrap();
        client.query_one(&format!("SHOW {name}"), &[]).await.unwrap().get(0)
    }

    /// Each session waits at most LOCK_WAIT for a lock and never JIT-compiles a statement, unless
    /// the URL's own `options` say otherwise.
    #[tokio::test]
    async fn sessions_wait_for_locks_briefly_and_compile_nothing_unless_the_url_says_so() {
        let (client, schema, url) = fresh_schema().await;
        let store = PostgresStore::open(&url).await.unwrap();
        assert_eq!(setting(&store, "lock_timeout").await, "5s");
        assert_eq!(setting(&store, "jit").await, "off");
        store.close().await;

        let store = PostgresStore::open(&format!("{url}%20-cjit%3Don%20-clock_timeout%3D2s")).await.unwrap();
        assert_eq!(setting(&store, "jit").await, "on");
        assert_eq!(setting(&store, "lock_timeout").await, "2s");
        store.close().await;
        client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    }
}

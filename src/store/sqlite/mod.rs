//! SQLite: one writer thread with group commit, one reader connection.
//!
//! Every acknowledged insert is fsync'd (WAL, `synchronous=FULL`). An fsync per request would cap
//! throughput at the disk's fsync rate, so the writer takes every insert waiting in its queue,
//! writes them in one transaction and commits once; each request still gets its own savepoint, so
//! one bad request cannot fail its neighbours.

mod audit;
mod checkpoints;
mod claims;
mod closed_days;
mod counters;
mod inbox;
mod leads;
mod name_words;
mod names;
mod operators;
mod outages;
mod outbox;
mod promise;
mod second_factor;
#[cfg(test)]
mod test_leads;
mod trigrams;

use std::path::Path;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::{mpsc, oneshot};

use super::{
    Account, Attempt, AuditEntry, AuditRecord, ChannelQueue, ClosedDay, Counts, CountsAt, Delivery, EntryOf,
    Idempotency, InsertContext, LOCK_WAIT, LeadQuery, LeadRecord, Operator, OperatorCount, OutboxJob,
    Session, SourceCount, StoreError, Stored, channel_names, closed_day_row, held_codes, held_text, role_of,
    status_of,
};
use crate::inbox::{Claim, WroteAgain, open_statuses_sql, reached_outcomes_sql};
use crate::lead::{Attribution, Lead, NewLead};
use crate::notice::{Channel, Event};
use crate::team::{AccountChange, Role};

const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/sqlite/0001_leads.sql"),
    include_str!("../../../migrations/sqlite/0002_idempotency_keys.sql"),
    include_str!("../../../migrations/sqlite/0003_operators.sql"),
    include_str!("../../../migrations/sqlite/0004_repeat_submissions.sql"),
    include_str!("../../../migrations/sqlite/0005_held.sql"),
    include_str!("../../../migrations/sqlite/0006_setup_tokens.sql"),
    include_str!("../../../migrations/sqlite/0007_attribution.sql"),
    include_str!("../../../migrations/sqlite/0008_roles_and_audit.sql"),
    include_str!("../../../migrations/sqlite/0009_claims.sql"),
    include_str!("../../../migrations/sqlite/0010_second_factor.sql"),
    include_str!("../../../migrations/sqlite/0011_session_seen_at.sql"),
    include_str!("../../../migrations/sqlite/0012_session_second_factor.sql"),
    include_str!("../../../migrations/sqlite/0013_second_factor_guessing.sql"),
    include_str!("../../../migrations/sqlite/0014_shared_abuse_counts.sql"),
    include_str!("../../../migrations/sqlite/0015_next_call.sql"),
    include_str!("../../../migrations/sqlite/0016_counters_and_name_search.sql"),
    include_str!("../../../migrations/sqlite/0017_dropped_notifications.sql"),
    include_str!("../../../migrations/sqlite/0018_escalation.sql"),
    include_str!("../../../migrations/sqlite/0019_closed_days.sql"),
    include_str!("../../../migrations/sqlite/0020_call_backs_told_and_channel_outages.sql"),
    include_str!("../../../migrations/sqlite/0021_reads_that_stay_flat.sql"),
    include_str!("../../../migrations/sqlite/0022_first_call_on_the_lead.sql"),
    include_str!("../../../migrations/sqlite/0023_names_indexed_once_a_commit.sql"),
    include_str!("../../../migrations/sqlite/0024_promise_hours_revised.sql"),
    include_str!("../../../migrations/sqlite/0025_phones_by_month.sql"),
    include_str!("../../../migrations/sqlite/0026_name_index_without_positions.sql"),
    include_str!("../../../migrations/sqlite/0027_name_index_in_parts.sql"),
    include_str!("../../../migrations/sqlite/0028_retries_used_up.sql"),
    include_str!("../../../migrations/sqlite/0029_trigrams_of_closed_name_parts.sql"),
    include_str!("../../../migrations/sqlite/0030_words_of_names.sql"),
    include_str!("../../../migrations/sqlite/0031_pairs_of_words.sql"),
    include_str!("../../../migrations/sqlite/0032_calls_by_request_key.sql"),
    include_str!("../../../migrations/sqlite/0033_leads_waiting_by_hour.sql"),
];

const RECORD_COLUMNS: &str = "id, created_at, name, phone, phone_e164, confirmation, comment, policy_version, \
     status, reached_at, (SELECT count(*) FROM call_attempts WHERE lead_id = \"CRN\".id), repeat_of, \
     (SELECT count(*) FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id), held, \
     utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, \
     (SELECT email FROM operators WHERE id = \"CRN\".claimed_by), claimed_until, next_call_at, call_back, escalated_at, \
     (SELECT created_at FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id ORDER BY later.id DESC LIMIT 1), \
     (SELECT comment FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id ORDER BY later.id DESC LIMIT 1), \
     retries_used_up";

const LEAD_COLUMNS: &str = "id, created_at, name, phone, confirmation, comment";

/// `lead_month(month)`: the months (UTC, `YYYY-MM`) that have leads, oldest first, each found by
/// one seek in the number's index. A number's indexes are keyed by the month first (migration
/// 0025, ADR 0060), so a read of a number over all time looks in each of these months.
const LEAD_MONTHS: &str = "WITH RECURSIVE lead_month(month) AS ( \
     SELECT (SELECT substr(created_at, 1, 7) FROM \"CRN\" INDEXED BY \"CRN_month_phone\" \
             ORDER BY substr(created_at, 1, 7) LIMIT 1) \
     UNION ALL \
     SELECT (SELECT substr(created_at, 1, 7) FROM \"CRN\" INDEXED BY \"CRN_month_phone\" \
             WHERE substr(created_at, 1, 7) > lead_month.month ORDER BY substr(created_at, 1, 7) LIMIT 1) \
     FROM lead_month WHERE lead_month.month IS NOT NULL)";

/// The ids (`found_id`, apart from the leads' own `id`) of the leads for which `condition` holds,
/// read from `index` (one of a number's, keyed by the month first) in each of `LEAD_MONTHS`'s months.
fn ids_in_each_month(index: &str, condition: &str) -> String {
    format!(
        "SELECT id AS found_id FROM lead_month CROSS JOIN \"CRN\" INDEXED BY \"{index}\" \
         ON substr(created_at, 1, 7) = lead_month.month AND {condition}"
    )
}

/// Most inserts waiting in the queue that one commit takes.
const MAX_BATCH: usize = 512;
/// Inserts that may wait for the writer before callers wait to enqueue.
const QUEUE_CAPACITY: usize = 8192;

/// One write, run by the writer thread inside the batch's transaction (in a savepoint of its own);
/// `run` hands back how to answer its caller once the commit's outcome is known.
struct Job {
    queued_at: Instant,
    run: Run,
}
type Run = Box<dyn FnOnce(Result<&mut rusqlite::Transaction, &rusqlite::Error>) -> Deliver + Send>;
type Deliver = Box<dyn FnOnce(Result<(), &rusqlite::Error>) + Send>;

pub struct SqliteStore {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    checkpoints: Mutex<Option<JoinHandle<()>>>,
    reader: std::sync::Arc<Mutex<Connection>>,
    /// Rows were deleted since the WAL was last truncated: their copies may still be in it.
    truncation_owed: std::sync::atomic::AtomicBool,
}

impl SqliteStore {
    pub fn open(path: &Path) -> anyhow::Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the data folder {}", dir.display()))?;
        }
        let mut writer = Connection::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        configure(&writer).with_context(|| format!("cannot use {} as a database", path.display()))?;
        migrate(&mut writer).with_context(|| format!("cannot migrate {}", path.display()))?;
        // Before the queued names are indexed, which counts their words.
        name_words::count_left(&mut writer)
            .with_context(|| format!("cannot count the words of the names in {}", path.display()))?;
        names::index_left_queued(&mut writer)
            .with_context(|| format!("cannot index the names in {}", path.display()))?;
        counters::keep_counters(&mut writer)
            .with_context(|| format!("cannot count the leads in {}", path.display()))?;
        // Each write of a batch runs in a savepoint, and each of its statements in one more: the
        // pages they would undo go to a sub-journal, only ever read to undo within the transaction.
        // In memory it costs a copy; on disk it was a temporary file written every write (issue 32).
        // Set after the migrations, whose index builds may sort millions of rows, and only here: the
        // reader's sorts keep spilling to disk, so an export's memory stays flat.
        writer.pragma_update(None, "temp_store", "MEMORY")?;
        let checkpoints = checkpoints::start(path, &mut writer)?;
        let reader = Connection::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        configure(&reader)?;

        let (tx, rx) = mpsc::channel(QUEUE_CAPACITY);
        let handle = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || write_loop(writer, rx))
            .context("cannot start the database writer thread")?;
        Ok(SqliteStore {
            jobs: Mutex::new(Some(tx)),
            writer: Mutex::new(Some(handle)),
            checkpoints: Mutex::new(Some(checkpoints)),
            reader: std::sync::Arc::new(Mutex::new(reader)),
            truncation_owed: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub async fn meta_get_or_insert(&self, key: &str, value: String) -> Result<String, StoreError> {
        let key = key.to_owned();
        self.write(move |conn| meta_get_or_insert(conn, &key, &value)).await
    }

    pub async fn meta_set(&self, key: &str, value: String) -> Result<(), StoreError> {
        let key = key.to_owned();
        self.write(move |conn| {
            conn.execute(
                "INSERT INTO zayavka_meta (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [&key, &value],
            )
            .map(|_| ())
        })
        .await
    }

    pub async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        let key = key.to_owned();
        self.read(move |conn| {
            conn.query_row("SELECT value FROM zayavka_meta WHERE key = ?1", [&key], |row| row.get(0))
                .optional()
        })
        .await
    }

    /// Queues `work` for the writer thread and waits for the commit that holds it.
    async fn write<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let sender = self.jobs.lock().expect("jobs lock").clone().ok_or(StoreError::Closed)?;
        let (reply, answer) = oneshot::channel::<Result<T, StoreError>>();
        let run: Run = Box::new(move |tx| match tx {
            Err(begin_failed) => {
                let _ = reply.send(Err(unavailable(begin_failed)));
                Box::new(|_| {})
            }
            Ok(tx) => {
                let result = in_savepoint(tx, work);
                Box::new(move |commit| {
                    let _ = reply.send(commit.map_err(unavailable).and(result));
                })
            }
        });
        sender.send(Job { queued_at: Instant::now(), run }).await.map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.read(|conn| conn.query_row("SELECT count(*) FROM zayavka_meta", [], |_| Ok(()))).await
    }

    pub async fn backup_to(&self, path: &Path) -> anyhow::Result<()> {
        let path = path.to_owned();
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            if path.exists() {
                anyhow::bail!("{} exists already; choose a new file", path.display());
            }
            let mut copy =
                Connection::open(&path).with_context(|| format!("cannot create {}", path.display()))?;
            let source = reader.lock().expect("reader lock");
            // All pages in one step: in WAL mode that reads one snapshot without blocking the
            // server's writes, where copying in steps would start over after each of them.
            let backup = rusqlite::backup::Backup::new(&source, &mut copy)?;
            while backup.step(-1)? != rusqlite::backup::StepResult::Done {
                std::thread::sleep(std::time::Duration::from_millis(10)); // busy or locked: again
            }
            Ok(())
        })
        .await?
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || {
            f(&reader.lock().expect("reader lock")).map_err(|e| unavailable(&e))
        })
        .await
        .map_err(|e| StoreError::Unavailable(e.to_string()))?
    }

    pub async fn close(&self) {
        // Dropping the last sender ends the writer's loop once the queue is empty.
        drop(self.jobs.lock().expect("jobs lock").take());
        // The checkpointer ends once the writer's connection is closed.
        let threads =
            [&self.writer, &self.checkpoints].map(|thread| thread.lock().expect("thread lock").take());
        for handle in threads.into_iter().flatten() {
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
    }
}

/// Statements a connection keeps prepared. A name search asks each part of the name index with a
/// statement of its own (21 parts at 2 M leads): with rusqlite's 16, a search that found nothing
/// prepared each of them again, 5.8 instead of 4.3 ms before it read ids only (ADR 0067). With
/// 64, past about 50 parts it prepared them again, and pushed out every other read's statement:
/// 1.8-3.0 ms at 81 parts. 256 keeps about 200 parts, 20 M leads kept (ADR 0068).
const PREPARED_STATEMENTS: usize = 256;

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(PREPARED_STATEMENTS);
    conn.busy_timeout(LOCK_WAIT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: the WAL is fsync'd at every commit, so an acknowledged lead survives power loss.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Erased leads are overwritten with zeros, not just unlinked (privacy: erasure means gone).
    conn.pragma_update(None, "secure_delete", "ON")?;
    // No plan depends on bound values (the planner's stability guarantee, ADR 0037, 0068): this
    // store runs no ANALYZE and writes into the SQL the conditions its partial indexes need.
    // Without it SQLite prepares a statement again each time it is given new values that could
    // decide a plan: an insert for every lead (whether a partial index applies), every page of a
    // list (its LIMIT is bound) and a name search's statement for each part of the name index
    // (a LIKE pattern): 0.62 ms instead of 0.20 ms for 21 parts.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.create_scalar_function(
        "zayavka_fold",
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(crate::inbox::fold(&ctx.get::<String>(0)?)),
    )?;
    // The number reversed, by which a search finds the numbers by their end (ADR 0039, 0060):
    // migrations 0021 and 0025 call it for the leads kept then; the insert writes `reversed` itself.
    conn.create_scalar_function(
        "zayavka_reverse",
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(reversed(&ctx.get::<String>(0)?)),
    )?;
    Ok(())
}

/// A number's digits from its end (`phone_reversed`), so that its end is the start of a key.
fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

/// A time as the store keeps it: RFC 3339 in UTC with microseconds, so text order is time order.
fn text(at: jiff::Timestamp) -> String {
    format!("{at:.6}")
}

/// A time read back from the store. `text`'s own shape, `2026-11-27T15:35:12.123456Z`, has its
/// digits read here and handed to jiff as numbers: the promise figures read a month of times at
/// once, and jiff's general parser took a fifth of that read (ADR 0049). Any other shape (a time
/// written by hand) goes to that parser.
fn time_of_text(text: &[u8]) -> Result<jiff::Timestamp, jiff::Error> {
    if let Some(at) = time_of_own_text(text) {
        return Ok(at);
    }
    std::str::from_utf8(text)
        .map_err(|_| jiff::Error::from_args(format_args!("a time not in UTF-8")))?
        .parse()
}

fn time_of_own_text(text: &[u8]) -> Option<jiff::Timestamp> {
    const SHAPE: &[u8; 27] = b"0000-00-00T00:00:00.000000Z";
    let fits =
        |(&byte, &shape): (&u8, &u8)| if shape == b'0' { byte.is_ascii_digit() } else { byte == shape };
    if text.len() != SHAPE.len() || !text.iter().zip(SHAPE).all(fits) {
        return None;
    }
    let number = |at: std::ops::Range<usize>| text[at].iter().fold(0, |n, &d| n * 10 + i32::from(d - b'0'));
    let small = |at| i8::try_from(number(at)).ok();
    // jiff checks the ranges: a 30th of February, a 24th hour or a leap second is left to its parser.
    let at = jiff::civil::DateTime::new(
        i16::try_from(number(0..4)).ok()?,
        small(5..7)?,
        small(8..10)?,
        small(11..13)?,
        small(14..16)?,
        small(17..19)?,
        number(20..26) * 1_000,
    )
    .ok()?;
    jiff::tz::TimeZone::UTC.to_timestamp(at).ok()
}

/// Applies the migrations not yet applied; `user_version` counts those that were.
fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let applied: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    anyhow::ensure!(applied <= MIGRATIONS.len() as i64, super::newer_schema(applied, MIGRATIONS.len()));
    for (version, sql) in (1..).zip(MIGRATIONS).skip(usize::try_from(applied).unwrap_or(0)) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()?;
    }
    Ok(())
}

fn write_loop(mut conn: Connection, mut jobs: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut idle_work = names::IdleWork::new(names::parts_below(&conn, None).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "listing the name index's parts");
        Vec::new()
    }));
    loop {
        let first = match jobs.try_recv() {
            Ok(job) => job,
            Err(mpsc::error::TryRecvError::Disconnected) => break,
            Err(mpsc::error::TryRecvError::Empty) if !idle_work.is_empty() => {
                idle_work.step(&conn);
                continue;
            }
            Err(mpsc::error::TryRecvError::Empty) => match jobs.blocking_recv() {
                Some(job) => job,
                None => break,
            },
        };
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Some(indexed) = commit_batch(&mut conn, batch.drain(..)) {
            idle_work.committed(indexed);
        }
    }
    // A clean close checkpoints the WAL into the main file.
    if let Err((_, e)) = conn.close() {
        tracing::warn!(error = %e, "closing the database");
    }
}

/// Runs every job in one transaction, each in its own savepoint, and answers them all only after
/// the commit (or with the commit's error). The name index's parts the commit left merges in.
fn commit_batch(conn: &mut Connection, batch: std::vec::Drain<'_, Job>) -> Option<Vec<i64>> {
    // LOCK_WAIT counts from when a write was queued: the batch waits only what is left of its
    // oldest write's, so a write queued behind a batch that waited does not wait that long again.
    let oldest = batch.as_slice().first().map_or(Duration::ZERO, |job| job.queued_at.elapsed());
    if let Err(e) = conn.busy_timeout(LOCK_WAIT.saturating_sub(oldest)) {
        tracing::warn!(error = %e, "setting the database's busy timeout");
    }
    let mut tx = match conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            tracing::error!(error = %e, "cannot start a database write");
            batch.for_each(|job| (job.run)(Err(&e))(Err(&e)));
            return None;
        }
    };
    let deliveries: Vec<Deliver> = batch.map(|job| (job.run)(Ok(&mut tx))).collect();
    let committed = names::index_queued(&tx).and_then(|indexed| tx.commit().map(|()| indexed));
    if let Err(e) = &committed {
        tracing::error!(error = %e, "database commit failed");
    }
    for deliver in deliveries {
        deliver(committed.as_ref().map(|_| ()));
    }
    committed.ok()
}

/// Runs `f` so that its failure undoes only its own writes.
fn in_savepoint<T>(
    tx: &mut rusqlite::Transaction,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> Result<T, StoreError> {
    // After some I/O errors (a full disk, a failed read) SQLite rolls back the whole transaction,
    // not only the failing write. A write run after that would be outside the batch: committed on
    // its own by its savepoint while its caller is told the batch failed. So it is not run.
    if tx.is_autocommit() {
        return Err(StoreError::Unavailable("an earlier write of this batch failed and undid it".into()));
    }
    // The savepoint's statements are prepared once (rusqlite's `savepoint()` parses them anew
    // for every write).
    let run = |sql: &str| tx.prepare_cached(sql).and_then(|mut statement| statement.execute([]));
    run("SAVEPOINT write").map_err(|e| unavailable(&e))?;
    // A write that panics (a bug) fails alone, as a refused one does: otherwise the panic would end
    // the writer thread, and every later write would fail until a restart.
    let value = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(tx))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(unavailable(&e)),
        Err(_) => Err(StoreError::Unavailable("a database write panicked".into())),
    };
    let end = match value {
        Ok(_) => run("RELEASE write"),
        Err(_) => run("ROLLBACK TO write").and_then(|_| run("RELEASE write")),
    };
    match (value, end) {
        (Ok(value), Ok(_)) => Ok(value),
        (Err(e), _) => Err(e),
        (Ok(_), Err(e)) => Err(unavailable(&e)),
    }
}

fn meta_get_or_insert(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<String> {
    let existing: Option<String> = conn
        .query_row("SELECT value FROM zayavka_meta WHERE key = ?1", [key], |row| row.get(0))
        .optional()?;
    match existing {
        Some(existing) => Ok(existing),
        None => {
            conn.execute("INSERT INTO zayavka_meta (key, value) VALUES (?1, ?2)", [key, value])?;
            Ok(value.to_owned())
        }
    }
}

/// `columns` of the leads with these ids that still exist, in the order given, each made by `from`.
fn leads_with_ids<T>(
    conn: &Connection,
    columns: &str,
    ids: Vec<i64>,
    from: fn(&rusqlite::Row) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {columns} FROM \"CRN\" WHERE id = ?1"))?;
    let mut leads = Vec::with_capacity(ids.len());
    for id in ids {
        leads.extend(stmt.query_row([id], from).optional()?);
    }
    Ok(leads)
}

fn record_from(row: &rusqlite::Row) -> rusqlite::Result<LeadRecord> {
    let claimed_until: Option<String> = row.get(21)?;
    let (wrote_again_at, wrote_again_comment): (Option<String>, Option<String>) =
        (row.get(25)?, row.get(26)?);
    Ok(LeadRecord {
        id: row.get(0)?,
        created_at: row.get(1)?,
        name: row.get(2)?,
        phone: row.get(3)?,
        phone_e164: row.get(4)?,
        confirmation: row.get(5)?,
        comment: row.get(6)?,
        policy_version: row.get(7)?,
        status: status_of(&row.get::<_, String>(8)?),
        reached_at: row.get(9)?,
        attempt_count: row.get(10)?,
        repeat_of: row.get(11)?,
        repeat_count: row.get(12)?,
        held: held_codes(row.get(13)?),
        attribution: Attribution::from_values([
            row.get(14)?,
            row.get(15)?,
            row.get(16)?,
            row.get(17)?,
            row.get(18)?,
            row.get(19)?,
        ]),
        claim: row.get::<_, Option<String>>(20)?.map(|by| Claim { by, until: claimed_until }),
        next_call_at: row.get(22)?,
        call_back: row.get(23)?,
        retries_used_up: row.get(27)?,
        escalated_at: row.get(24)?,
        wrote_again: wrote_again_at.map(|at| WroteAgain { at, comment: wrote_again_comment }),
    })
}

/// A column holding one of a few names (`Event`, `Channel`).
fn named<T>(row: &rusqlite::Row, index: usize, parse: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let name: String = row.get(index)?;
    parse(&name).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            format!("unknown name {name:?}").into(),
        )
    })
}

fn unavailable(e: &rusqlite::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

impl SqliteStore {
    /// Marks notices of `table` (account or channel notices, which share their columns) sent, or
    /// due again at the time a retry says.
    async fn notices_done(
        &self,
        table: &'static str,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.write(move |conn| {
            let mut sent = conn.prepare_cached(&format!(
                "UPDATE {table} SET sent_at = ?2, locked_until = NULL, last_error = NULL WHERE id = ?1"
            ))?;
            let mut retry = conn.prepare_cached(&format!(
                "UPDATE {table} SET next_attempt_at = ?2, locked_until = NULL, last_error = ?3 WHERE id = ?1"
            ))?;
            for delivery in &deliveries {
                match delivery {
                    Delivery::Sent(id) => sent.execute(params![id, text(now)])?,
                    Delivery::Retry { id, at, error } => retry.execute(params![id, text(*at), error])?,
                };
            }
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A statement that binds a LIKE pattern and a LIMIT, as a name search's does, runs again
    /// without being prepared again.
    #[test]
    fn a_bound_like_pattern_or_limit_does_not_prepare_its_statement_again() {
        let conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT name FROM (SELECT ?1 AS name) WHERE zayavka_fold(name) LIKE ?2 ESCAPE '\\' LIMIT ?3",
            )
            .unwrap();
        for (name, pattern, limit, matches) in
            [("Олена", "%лен%", 50, true), ("Марія", "%лен%", 50, false), ("Марія", "%рі%", 1, true)]
        {
            let found = stmt.exists(rusqlite::params![name, pattern, limit]).unwrap();
            assert_eq!(found, matches, "{name} {pattern}");
        }
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
    }

    #[test]
    fn times_read_back_as_jiff_reads_them() {
        // Times spread over four years round a leap day, to the microsecond: the own shape is
        // read as jiff reads it.
        let start: jiff::Timestamp = "2027-12-30T00:00:00Z".parse().unwrap();
        let mut micros = 0i64;
        for step in 0..200_000i64 {
            micros = (micros + 631_159_217_013) % 126_230_400_000_000;
            let at = jiff::Timestamp::from_microsecond(start.as_microsecond() - micros + step).unwrap();
            let written = text(at);
            assert_eq!(time_of_own_text(written.as_bytes()), Some(at), "{written}");
        }
        // Other shapes, and impossible days, are jiff's to read or to refuse.
        for other in ["2026-11-27T15:35:12Z", "2026-11-27T17:35:12.5+02:00", "2026-11-27 15:35:12.000000Z"] {
            assert_eq!(time_of_own_text(other.as_bytes()), None, "{other}");
            assert_eq!(time_of_text(other.as_bytes()).unwrap(), other.parse::<jiff::Timestamp>().unwrap());
        }
        for wrong in [
            "2026-02-30T10:00:00.000000Z",
            "2026-13-01T10:00:00.000000Z",
            "2026-11-27T24:00:00.000000Z",
            "2026-11-2xT10:00:00.000000Z",
        ] {
            assert_eq!(time_of_own_text(wrong.as_bytes()), None, "{wrong}");
            assert!(time_of_text(wrong.as_bytes()).is_err(), "{wrong}");
        }
    }

    /// Runs `middle` in one batch between two other writes (each storing its key in
    /// `zayavka_meta`): the writer thread is held inside a first write until the three are
    /// queued. Returns the three answers.
    async fn between_two_writes<T: Send + 'static>(
        store: &std::sync::Arc<SqliteStore>,
        middle: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> (Result<String, StoreError>, Result<T, StoreError>, Result<String, StoreError>) {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (started, writer_waits) = oneshot::channel();
        let holding = tokio::spawn({
            let store = store.clone();
            async move {
                store
                    .write(move |_| {
                        started.send(()).unwrap();
                        held.recv().unwrap();
                        Ok(())
                    })
                    .await
            }
        });
        writer_waits.await.unwrap();
        let queued = async |count: usize| {
            while store.queued() < count {
                tokio::task::yield_now().await;
            }
        };
        let store_key = |key: &'static str| {
            let store = store.clone();
            tokio::spawn(async move { store.meta_get_or_insert(key, "1".into()).await })
        };
        let before = store_key("before");
        queued(1).await;
        let middle = tokio::spawn({
            let store = store.clone();
            async move { store.write(middle).await }
        });
        queued(2).await;
        let after = store_key("after");
        queued(3).await;
        release.send(()).unwrap();
        holding.await.unwrap().unwrap();
        (before.await.unwrap(), middle.await.unwrap(), after.await.unwrap())
    }

    /// SQLite undoes a whole batch when one of its writes meets an I/O error (see `in_savepoint`).
    /// The failing write here does that with a ROLLBACK: the state SQLite leaves behind, made at
    /// a known point of the batch. Every write queued behind it must be answered as it is stored.
    #[tokio::test]
    async fn a_batch_undone_by_a_failing_write_answers_each_write_as_it_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(SqliteStore::open(&dir.path().join("leads.db")).unwrap());
        let (before, failing, after) = between_two_writes(&store, |conn| {
            conn.execute_batch("ROLLBACK")?;
            conn.execute_batch("SELECT * FROM a_disk_that_failed")
        })
        .await;
        assert!(failing.is_err());

        for (key, answer) in [("before", before), ("after", after)] {
            let stored = store
                .read(move |conn| {
                    conn.query_row("SELECT 1 FROM zayavka_meta WHERE key = ?1", [key], |_| Ok(())).optional()
                })
                .await
                .unwrap()
                .is_some();
            assert_eq!(answer.is_ok(), stored, "{key}: answered {answer:?}, stored: {stored}");
        }
        store.close().await;
    }

    /// A bug in one write must cost that write alone: its neighbours in the batch are stored, and
    /// the writer thread lives on for the writes after it.
    #[tokio::test]
    async fn a_write_that_panics_fails_alone_and_the_writer_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(SqliteStore::open(&dir.path().join("leads.db")).unwrap());
        let (before, panicking, after) = between_two_writes(&store, |conn| -> rusqlite::Result<()> {
            conn.execute("INSERT INTO zayavka_meta (key, value) VALUES ('half-done', '1')", [])?;
            panic!("a bug in a write")
        })
        .await;

        assert!(matches!(panicking, Err(StoreError::Unavailable(_))));
        assert_eq!(before.unwrap(), "1");
        assert_eq!(after.unwrap(), "1");
        assert_eq!(store.meta_get_or_insert("next batch", "1".into()).await.unwrap(), "1");
        let keys = store
            .read(|conn| {
                let mut stmt = conn.prepare(
                    "SELECT key FROM zayavka_meta \
                     WHERE key IN ('before', 'half-done', 'after', 'next batch') ORDER BY key",
                )?;
                stmt.query_map([], |row| row.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()
            })
            .await
            .unwrap();
        assert_eq!(
            keys,
            ["after", "before", "next batch"],
            "the panicking write's row undone, the others kept"
        );
        store.close().await;
    }

    impl SqliteStore {
        /// Writes waiting for the writer thread.
        fn queued(&self) -> usize {
            let jobs = self.jobs.lock().unwrap();
            jobs.as_ref().map_or(0, |sender| sender.max_capacity() - sender.capacity())
        }
    }
}

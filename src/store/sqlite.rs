//! SQLite: one writer thread with group commit, one reader connection.
//!
//! Every acknowledged insert is fsync'd (WAL, `synchronous=FULL`). An fsync per request would cap
//! throughput at the disk's fsync rate, so the writer takes every insert waiting in its queue,
//! writes them in one transaction and commits once; each request still gets its own savepoint, so
//! one bad request cannot fail its neighbours.

use std::path::Path;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::{mpsc, oneshot};

use super::{
    Attempt, ChannelQueue, Counts, CountsAt, Idempotency, InsertContext, LOCK_WAIT, LeadQuery, LeadRecord,
    Operator, OutboxJob, Session, StoreError, Stored,
};
use crate::inbox::{Outcome, open_statuses_sql};
use crate::lead::{Lead, NewLead};

const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/sqlite/0001_leads.sql"),
    include_str!("../../migrations/sqlite/0002_idempotency_keys.sql"),
    include_str!("../../migrations/sqlite/0003_operators.sql"),
    include_str!("../../migrations/sqlite/0004_repeat_submissions.sql"),
    include_str!("../../migrations/sqlite/0005_held.sql"),
    include_str!("../../migrations/sqlite/0006_setup_tokens.sql"),
];

const LEAD_COLUMNS: &str = "id, created_at, name, phone, confirmation, comment";
/// The columns `record_from` reads.
const RECORD_COLUMNS: &str = "id, created_at, name, phone, phone_e164, confirmation, comment, policy_version, \
     status, reached_at, (SELECT count(*) FROM call_attempts WHERE lead_id = \"CRN\".id), repeat_of, \
     (SELECT count(*) FROM \"CRN\" AS later WHERE later.repeat_of = \"CRN\".id), held";

/// Per channel: unsent rows, those that failed, the oldest's time, the newest failure's reason.
const OUTBOX_QUEUES: &str = "SELECT channel, count(*), count(last_error), min(created_at), \
     (SELECT newest.last_error FROM outbox AS newest WHERE newest.channel = queued.channel \
      AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
     FROM outbox AS queued WHERE sent_at IS NULL GROUP BY channel ORDER BY channel";

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
    reader: std::sync::Arc<Mutex<Connection>>,
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
            reader: std::sync::Arc::new(Mutex::new(reader)),
        })
    }

    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: InsertContext,
        idempotency: Option<Idempotency>,
    ) -> Result<Vec<Stored>, StoreError> {
        self.write(move |conn| insert_leads(conn, &leads, &context, idempotency.as_ref())).await
    }

    pub async fn meta_get_or_insert(&self, key: &str, value: String) -> Result<String, StoreError> {
        let key = key.to_owned();
        self.write(move |conn| meta_get_or_insert(conn, &key, &value)).await
    }

    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let before = format!("{before:.6}");
        self.write(move |conn| conn.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", [before]))
            .await
    }

    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let (key, since) = (key.to_owned(), format!("{since:.6}"));
        self.read(move |conn| {
            let record: Option<(String, String)> = conn
                .query_row(
                    "SELECT fingerprint, lead_ids FROM idempotency_keys WHERE key = ?1 AND created_at >= ?2",
                    params![key, since],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            Ok(record.map(|(fingerprint, ids)| (fingerprint, parse_ids(&ids))))
        })
        .await
    }

    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        self.read(move |conn| {
            let mut stmt =
                conn.prepare_cached(&format!("SELECT {LEAD_COLUMNS} FROM \"CRN\" WHERE id = ?1"))?;
            let mut leads = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(lead) = stmt.query_row([id], lead_from).optional()? {
                    leads.push(lead);
                }
            }
            Ok(leads)
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

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![after_id, limit], record_from)?;
            rows.collect()
        })
        .await
    }

    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                 WHERE repeat_of IS NULL AND (held IS NOT NULL) = ?7 AND (?1 IS NULL OR id < ?1) \
                   AND (?2 IS NULL OR zayavka_fold(name) LIKE ?2 ESCAPE '\\') \
                   AND (?3 IS NULL OR phone_e164 LIKE ?3) \
                   AND (NOT ?4 OR status IN ({open})) \
                   AND (?5 IS NULL OR created_at < ?5) \
                 ORDER BY id DESC LIMIT ?6",
                open = open_statuses_sql()
            ))?;
            let rows = stmt.query_map(
                params![
                    query.before_id,
                    query.name_pattern,
                    query.phone_pattern,
                    query.open_only,
                    query.created_before.map(text),
                    query.limit,
                    query.held
                ],
                record_from,
            )?;
            rows.collect()
        })
        .await
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        self.read(move |conn| {
            conn.prepare_cached(&format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id = ?1"))?
                .query_row([id], record_from)
                .optional()
        })
        .await
    }

    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE repeat_of = ?1 ORDER BY id"
            ))?;
            let rows = stmt.query_map([lead_id], record_from)?;
            rows.collect()
        })
        .await
    }

    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, at, operator, outcome, note FROM call_attempts WHERE lead_id = ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([lead_id], |row| {
                Ok(Attempt {
                    id: row.get(0)?,
                    at: row.get(1)?,
                    operator: row.get(2)?,
                    outcome: row.get(3)?,
                    note: row.get(4)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let exists = conn.query_row("SELECT 1 FROM \"CRN\" WHERE id = ?1", [lead_id], |_| Ok(())).optional()?;
            if exists.is_none() {
                return Ok(false);
            }
            let now = text(jiff::Timestamp::now());
            conn.execute(
                "INSERT INTO call_attempts (lead_id, at, operator, outcome, note) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![lead_id, now, operator, outcome.as_str(), note],
            )?;
            let unanswered: i64 = conn.query_row(
                "SELECT count(*) FROM call_attempts WHERE lead_id = ?1 AND outcome = 'no_answer'",
                [lead_id],
                |row| row.get(0),
            )?;
            conn.execute(
                "UPDATE \"CRN\" SET status = ?2, \
                 reached_at = CASE WHEN ?3 AND reached_at IS NULL THEN ?4 ELSE reached_at END WHERE id = ?1",
                params![lead_id, outcome.status_after(unanswered), outcome.reached(), now],
            )?;
            Ok(true)
        })
        .await
    }

    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        self.read(move |conn| {
            let (overdue_before, window_start) = (text(at.overdue_before), text(at.window_start));
            let (open, overdue) = conn.query_row(
                &format!(
                    "SELECT count(*), coalesce(sum(created_at < ?1), 0) FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND held IS NULL AND status IN ({})",
                    open_statuses_sql()
                ),
                [&overdue_before],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            // julianday() days: 2.0 is the 48-hour promise.
            let (due, reached_in_time) = conn.query_row(
                "SELECT count(*), coalesce(sum(julianday(reached_at) - julianday(created_at) <= 2.0), 0) \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= ?1 \
                 AND (created_at < ?2 OR reached_at IS NOT NULL)",
                [&window_start, &overdue_before],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            let mut stmt = conn.prepare_cached(
                "SELECT substr(created_at, 1, 13) AS hour, count(*) FROM \"CRN\" \
                 WHERE repeat_of IS NULL AND held IS NULL AND created_at >= ?1 GROUP BY hour ORDER BY hour",
            )?;
            let per_hour = stmt
                .query_map([&window_start], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let held =
                conn.query_row("SELECT count(*) FROM \"CRN\" WHERE held IS NOT NULL", [], |row| row.get(0))?;
            Ok(Counts { held, open, overdue, due, reached_in_time, per_hour })
        })
        .await
    }

    pub async fn erase_phone(&self, phone_e164: String) -> Result<usize, StoreError> {
        let erased = self.write(move |conn| delete_leads(conn, "phone_e164 = ?1", &phone_e164)).await?;
        self.checkpoint().await?;
        Ok(erased)
    }

    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let purged = self.write(move |conn| delete_leads(conn, "created_at < ?1", &text(before))).await?;
        if purged > 0 {
            self.checkpoint().await?;
        }
        Ok(purged)
    }

    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let purged = self
            .write(move |conn| delete_leads(conn, "held IS NOT NULL AND created_at < ?1", &text(before)))
            .await?;
        if purged > 0 {
            self.checkpoint().await?;
        }
        Ok(purged)
    }

    pub async fn release(
        &self,
        id: i64,
        channels: std::sync::Arc<[&'static str]>,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            if conn.execute("UPDATE \"CRN\" SET held = NULL WHERE id = ?1 AND held IS NOT NULL", [id])? == 0 {
                return Ok(false);
            }
            let now = text(jiff::Timestamp::now());
            let mut queue = conn.prepare_cached(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 VALUES (?1, 'new', ?2, ?3, ?3) ON CONFLICT (lead_id, event, channel) DO NOTHING",
            )?;
            for channel in channels.iter() {
                queue.execute(params![id, channel, now])?;
            }
            Ok(true)
        })
        .await
    }

    /// Moves the WAL into the main file and empties it, so deleted (and zeroed) rows leave no
    /// copy behind in the WAL. A reader in the middle of a query (another process's, say) makes the
    /// checkpoint answer "busy" and leave the WAL as it is: tried again for a few seconds, then an
    /// error, never a quiet success with the bytes still there.
    async fn checkpoint(&self) -> Result<(), StoreError> {
        let busy = self
            .read(|conn| {
                for _ in 0..50 {
                    let busy: i64 =
                        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
                    if busy == 0 {
                        return Ok(false);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Ok(true)
            })
            .await?;
        if busy {
            return Err(StoreError::Unavailable(
                "the database is busy: the deleted rows may still be in its log; try again".into(),
            ));
        }
        Ok(())
    }

    pub async fn add_operator(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let added = conn.execute(
                "INSERT INTO operators (email, password_hash, created_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (email) DO NOTHING",
                params![email, password_hash, text(jiff::Timestamp::now())],
            )?;
            Ok(added == 1)
        })
        .await
    }

    pub async fn set_password(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let changed =
                conn.execute("UPDATE operators SET password_hash = ?2 WHERE email = ?1", params![email, password_hash])?;
            conn.execute(
                "DELETE FROM operator_sessions WHERE operator_id IN (SELECT id FROM operators WHERE email = ?1)",
                [&email],
            )?;
            Ok(changed == 1)
        })
        .await
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        self.read(move |conn| {
            conn.query_row(
                "SELECT id, email, password_hash FROM operators WHERE email = ?1",
                [email],
                |row| Ok(Operator { id: row.get(0)?, email: row.get(1)?, password_hash: row.get(2)? }),
            )
            .optional()
        })
        .await
    }

    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            if has_operator(conn)? {
                conn.execute("DELETE FROM setup_tokens", [])?;
                return Ok(false);
            }
            conn.execute("DELETE FROM setup_tokens WHERE expires_at <= ?1", [text(jiff::Timestamp::now())])?;
            conn.execute(
                "INSERT INTO setup_tokens (token_hash, expires_at) VALUES (?1, ?2)",
                params![token_hash, text(expires_at)],
            )?;
            Ok(true)
        })
        .await
    }

    pub async fn setup_token_valid(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.read(move |conn| {
            let found = conn
                .query_row(
                    "SELECT 1 FROM setup_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                    params![token_hash, text(now)],
                    |_| Ok(()),
                )
                .optional()?;
            Ok(found.is_some() && !has_operator(conn)?)
        })
        .await
    }

    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
    ) -> Result<Option<Operator>, StoreError> {
        self.write(move |conn| {
            let used = conn.execute(
                "DELETE FROM setup_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                params![token_hash, text(now)],
            )?;
            if used == 0 || has_operator(conn)? {
                return Ok(None);
            }
            conn.execute(
                "INSERT INTO operators (email, password_hash, created_at) VALUES (?1, ?2, ?3)",
                params![email, password_hash, text(now)],
            )?;
            conn.execute("DELETE FROM setup_tokens", [])?;
            Ok(Some(Operator { id: conn.last_insert_rowid(), email, password_hash }))
        })
        .await
    }

    pub async fn create_session(
        &self,
        token_hash: String,
        operator_id: i64,
        csrf_token: String,
        expires_at: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute(
                "INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, created_at, expires_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![token_hash, operator_id, csrf_token, text(jiff::Timestamp::now()), text(expires_at)],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn session(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<Option<Session>, StoreError> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT s.operator_id, o.email, s.csrf_token FROM operator_sessions s \
                 JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = ?1 AND s.expires_at > ?2",
            )?
            .query_row(params![token_hash, text(now)], |row| {
                Ok(Session { operator_id: row.get(0)?, email: row.get(1)?, csrf_token: row.get(2)? })
            })
            .optional()
        })
        .await
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute("DELETE FROM operator_sessions WHERE token_hash = ?1", [token_hash])?;
            Ok(())
        })
        .await
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.write(move |conn| {
            conn.execute("DELETE FROM operator_sessions WHERE expires_at < ?1", [text(before)])
        })
        .await
    }

    pub async fn claim_outbox(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: std::sync::Arc<[&'static str]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            // The channels as a JSON array, read by json_each: one statement whatever their number.
            let channels = serde_json::to_string(&*channels).expect("strings serialise");
            let mut stmt = conn.prepare_cached(
                "UPDATE outbox SET locked_until = ?2, attempts = attempts + 1 WHERE id IN ( \
                   SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ?1 \
                   AND (locked_until IS NULL OR locked_until <= ?1) \
                   AND channel IN (SELECT value FROM json_each(?4)) ORDER BY next_attempt_at, id LIMIT ?3) \
                 RETURNING id, lead_id, event, channel, attempts",
            )?;
            let rows = stmt.query_map(params![now, text(lease_until), limit, channels], |row| {
                Ok(OutboxJob {
                    id: row.get(0)?,
                    lead_id: row.get(1)?,
                    event: row.get(2)?,
                    channel: row.get(3)?,
                    attempts: row.get(4)?,
                })
            })?;
            let mut jobs: Vec<OutboxJob> = rows.collect::<Result<_, _>>()?;
            jobs.sort_by_key(|job| job.id);
            Ok(jobs)
        })
        .await
    }

    pub async fn outbox_sent(&self, id: i64, now: jiff::Timestamp) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute(
                "UPDATE outbox SET sent_at = ?2, locked_until = NULL, last_error = NULL WHERE id = ?1",
                params![id, text(now)],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn outbox_retry(
        &self,
        id: i64,
        next_attempt_at: jiff::Timestamp,
        error: String,
    ) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute(
                "UPDATE outbox SET next_attempt_at = ?2, locked_until = NULL, last_error = ?3 WHERE id = ?1",
                params![id, text(next_attempt_at), error],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn queue_reminders(
        &self,
        event: &'static str,
        channels: std::sync::Arc<[&'static str]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        self.write(move |conn| {
            let now = text(jiff::Timestamp::now());
            let mut stmt = conn.prepare_cached(&format!(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 SELECT id, ?1, ?2, ?3, ?3 FROM \"CRN\" \
                 WHERE repeat_of IS NULL AND held IS NULL AND status IN ({}) AND created_at >= ?4 AND created_at < ?5 \
                 ON CONFLICT (lead_id, event, channel) DO NOTHING",
                open_statuses_sql()
            ))?;
            let mut queued = 0;
            for channel in channels.iter() {
                queued += stmt.execute(params![event, channel, now, text(from), text(to)])?;
            }
            Ok(queued)
        })
        .await
    }

    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(OUTBOX_QUEUES)?;
            let rows = stmt.query_map([], |row| {
                Ok(ChannelQueue {
                    channel: row.get(0)?,
                    waiting: row.get(1)?,
                    failing: row.get(2)?,
                    oldest_at: row.get(3)?,
                    last_error: row.get(4)?,
                })
            })?;
            rows.collect()
        })
        .await
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
        let handle = self.writer.lock().expect("writer lock").take();
        if let Some(handle) = handle {
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(LOCK_WAIT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: the WAL is fsync'd at every commit, so an acknowledged lead survives power loss.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Erased leads are overwritten with zeros, not just unlinked (privacy: erasure means gone).
    conn.pragma_update(None, "secure_delete", "ON")?;
    conn.create_scalar_function(
        "zayavka_fold",
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(crate::inbox::fold(&ctx.get::<String>(0)?)),
    )?;
    Ok(())
}

/// A time as the store keeps it: RFC 3339 in UTC with microseconds, so text order is time order.
fn text(at: jiff::Timestamp) -> String {
    format!("{at:.6}")
}

/// Deletes the leads `condition` (with `?1` bound to `value`) picks and the repeats that name
/// them, their calls and notifications (by cascade) and the idempotency records that name them.
fn delete_leads(conn: &Connection, condition: &str, value: &str) -> rusqlite::Result<usize> {
    // Chosen first: a cascade would delete a repeat without a RETURNING row to say so.
    let ids: Vec<i64> = conn
        .prepare(&format!(
            "SELECT id FROM \"CRN\" WHERE ({condition}) OR repeat_of IN (SELECT id FROM \"CRN\" WHERE {condition})"
        ))?
        .query_map([value], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut delete = conn.prepare_cached("DELETE FROM \"CRN\" WHERE id = ?1")?;
    let mut forget = conn.prepare_cached(
        "DELETE FROM idempotency_keys WHERE ',' || lead_ids || ',' LIKE '%,' || ?1 || ',%'",
    )?;
    for id in &ids {
        delete.execute([id])?;
        forget.execute([id])?;
    }
    Ok(ids.len())
}

/// Applies the migrations not yet applied; `user_version` counts those that were.
fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let applied: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
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
    while let Some(first) = jobs.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit_batch(&mut conn, batch.drain(..));
    }
    // A clean close checkpoints the WAL into the main file.
    if let Err((_, e)) = conn.close() {
        tracing::warn!(error = %e, "closing the database");
    }
}

/// Runs every job in one transaction, each in its own savepoint, and answers them all only after
/// the commit (or with the commit's error).
fn commit_batch(conn: &mut Connection, batch: std::vec::Drain<'_, Job>) {
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
            return;
        }
    };
    let deliveries: Vec<Deliver> = batch.map(|job| (job.run)(Ok(&mut tx))).collect();
    let committed = tx.commit();
    if let Err(e) = &committed {
        tracing::error!(error = %e, "database commit failed");
    }
    for deliver in deliveries {
        deliver(committed.as_ref().map(|_| ()));
    }
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
    let sp = tx.savepoint().map_err(|e| unavailable(&e))?;
    let value = f(&sp).map_err(|e| unavailable(&e))?; // dropping `sp` rolls it back
    sp.commit().map_err(|e| unavailable(&e))?;
    Ok(value)
}

fn insert_leads(
    conn: &Connection,
    leads: &[NewLead],
    context: &InsertContext,
    idempotency: Option<&Idempotency>,
) -> rusqlite::Result<Vec<Stored>> {
    let now = jiff::Timestamp::now();
    let created_at = format!("{now:.6}");
    // Same text format as created_at, so comparing the text compares the times.
    let duplicates_since = context.duplicate_window.and_then(|window| {
        let window = jiff::SignedDuration::try_from(window).ok()?;
        Some(format!("{:.6}", now.checked_sub(window).ok()?))
    });
    let mut find_first = conn.prepare_cached(
        "SELECT id FROM \"CRN\" WHERE phone_e164 = ?1 AND created_at >= ?2 AND repeat_of IS NULL \
         AND held IS NULL ORDER BY id LIMIT 1",
    )?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO \"CRN\" \
         (created_at, name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id",
    )?;
    let mut queue = conn.prepare_cached(
        "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) VALUES (?1, 'new', ?2, ?3, ?3)",
    )?;
    let mut stored = Vec::with_capacity(leads.len());
    for lead in leads {
        let held = super::held_text(&lead.held);
        // A held lead stands alone: it must not make a person's real lead its repeat.
        let repeat_of: Option<i64> = match &duplicates_since {
            Some(since) if held.is_none() => {
                find_first.query_row(params![lead.phone_e164, since], |row| row.get(0)).optional()?
            }
            _ => None,
        };
        let id = insert.query_row(
            params![
                created_at,
                lead.name,
                lead.phone,
                lead.phone_e164,
                lead.confirmation,
                lead.comment,
                &*context.policy_version,
                repeat_of,
                held
            ],
            |row| row.get(0),
        )?;
        // A repeat's first lead was notified already; a held lead is notified once released.
        if repeat_of.is_none() && held.is_none() {
            for channel in context.channels.iter() {
                queue.execute(params![id, channel, created_at])?;
            }
        }
        stored.push(Stored { lead: lead.stored_as(id, created_at.clone()), repeat_of });
    }
    if let Some(idempotency) = idempotency {
        let ids = stored.iter().map(|row| row.lead.id.to_string()).collect::<Vec<_>>().join(",");
        conn.prepare_cached(
            "INSERT INTO idempotency_keys (key, fingerprint, lead_ids, created_at) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (key) DO NOTHING",
        )?
        .execute(params![idempotency.key, idempotency.fingerprint, ids, created_at])?;
    }
    Ok(stored)
}

fn has_operator(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT EXISTS (SELECT 1 FROM operators)", [], |row| row.get(0))
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

/// `lead_ids` as written by `insert_leads`.
fn parse_ids(ids: &str) -> Vec<i64> {
    ids.split(',').filter_map(|id| id.parse().ok()).collect()
}

fn record_from(row: &rusqlite::Row) -> rusqlite::Result<LeadRecord> {
    Ok(LeadRecord {
        id: row.get(0)?,
        created_at: row.get(1)?,
        name: row.get(2)?,
        phone: row.get(3)?,
        phone_e164: row.get(4)?,
        confirmation: row.get(5)?,
        comment: row.get(6)?,
        policy_version: row.get(7)?,
        status: row.get(8)?,
        reached_at: row.get(9)?,
        attempt_count: row.get(10)?,
        repeat_of: row.get(11)?,
        repeat_count: row.get(12)?,
        held: super::held_codes(row.get(13)?),
    })
}

fn lead_from(row: &rusqlite::Row) -> rusqlite::Result<Lead> {
    Ok(Lead {
        id: row.get(0)?,
        created_at: row.get(1)?,
        name: row.get(2)?,
        phone: row.get(3)?,
        confirmation: row.get(4)?,
        comment: row.get(5)?,
    })
}

fn unavailable(e: &rusqlite::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite undoes a whole batch when one of its writes meets an I/O error (see `in_savepoint`).
    /// The failing write here does that with a ROLLBACK: the state SQLite leaves behind, made at
    /// a known point of the batch. Every write queued behind it must be answered as it is stored.
    #[tokio::test]
    async fn a_batch_undone_by_a_failing_write_answers_each_write_as_it_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        let store = std::sync::Arc::new(store);
        // The writer waits inside a first write until the three below are queued: one batch.
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
        let before = tokio::spawn({
            let store = store.clone();
            async move { store.meta_get_or_insert("before", "1".into()).await }
        });
        while store.queued() < 1 {
            tokio::task::yield_now().await;
        }
        let failing = tokio::spawn({
            let store = store.clone();
            async move {
                store
                    .write(|conn| {
                        conn.execute_batch("ROLLBACK")?;
                        conn.execute_batch("SELECT * FROM a_disk_that_failed")
                    })
                    .await
            }
        });
        while store.queued() < 2 {
            tokio::task::yield_now().await;
        }
        let after = tokio::spawn({
            let store = store.clone();
            async move { store.meta_get_or_insert("after", "1".into()).await }
        });
        while store.queued() < 3 {
            tokio::task::yield_now().await;
        }
        release.send(()).unwrap();
        holding.await.unwrap().unwrap();
        assert!(failing.await.unwrap().is_err());

        for (key, answer) in [("before", before.await.unwrap()), ("after", after.await.unwrap())] {
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

    impl SqliteStore {
        /// Writes waiting for the writer thread.
        fn queued(&self) -> usize {
            let jobs = self.jobs.lock().unwrap();
            jobs.as_ref().map_or(0, |sender| sender.max_capacity() - sender.capacity())
        }
    }
}

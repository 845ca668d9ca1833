//! Where leads are kept: SQLite (default) or PostgreSQL. One `Store` whatever the engine; each engine lives in its own module with
//! its own migrations under `migrations/<engine>/`.

mod postgres;
mod sqlite;

use std::sync::Arc;

use crate::config::DatabaseUrl;
use crate::lead::{Lead, NewLead};

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or written now (disk full, file gone, server down); the
    /// caller may retry later.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The store was closed during shutdown.
    #[error("the store is closed")]
    Closed,
    /// Another request, on another instance, is running under this `Idempotency-Key` or has
    /// just recorded it; nothing was stored.
    #[error("the Idempotency-Key is taken by another request")]
    IdempotencyKeyTaken,
}

/// How long a write waits for a lock another connection holds (someone writing to the database by
/// hand, a maintenance job, a `zayavka` command) before its caller gets `Unavailable`: a visitor then
/// sees 503 with the entries kept, long before the page's own 30 s. The same on both engines.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long an `Idempotency-Key` is remembered.
pub const IDEMPOTENCY_WINDOW: jiff::SignedDuration = jiff::SignedDuration::from_hours(24);

/// How an insert is made: the consent evidence kept with each lead, the duplicate rule, and the
/// channels each new lead is queued for.
#[derive(Debug, Clone)]
pub struct InsertContext {
    /// Notification channels (`crate::notify::Channel` names) configured now.
    pub channels: Arc<[&'static str]>,
    /// A hash of the privacy policy's text in force when the lead was sent (consent evidence).
    pub policy_version: Arc<str>,
    /// A lead whose phone (E.164) was first sent this recently is stored as a repeat of that
    /// first lead: not notified again, not on the 48-hour clock again.
    pub duplicate_window: Option<std::time::Duration>,
}

/// An insert made under an `Idempotency-Key`: recorded with the leads, in the same transaction, so
/// a repeat finds either both or neither.
#[derive(Debug, Clone)]
pub struct Idempotency {
    pub key: String,
    /// A hash of what was asked, to tell a repeat from another request under the same key.
    pub fingerprint: String,
}

/// One row an insert stored: always a row of its own, with only what the request sent and the id
/// and time made for it, so an answer built from it never shows another visitor's submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub lead: Lead,
    /// The person's first lead within the duplicate window, when this is a repeat of it.
    pub repeat_of: Option<i64>,
}

/// A lead as the operators see it: what the visitor sent, the consent evidence, where it stands.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct LeadRecord {
    pub id: i64,
    /// RFC 3339, UTC, microseconds (as every time the store hands out).
    pub created_at: String,
    pub name: String,
    pub phone: String,
    pub phone_e164: String,
    pub confirmation: String,
    pub comment: Option<String>,
    /// Consent evidence: a hash of the privacy policy in force at `created_at`.
    pub policy_version: String,
    /// See `crate::inbox::Status`.
    pub status: String,
    /// When a call first reached the person.
    pub reached_at: Option<String>,
    pub attempt_count: i64,
    /// The first lead of the same person, when this one is a repeat sent within the duplicate window.
    pub repeat_of: Option<i64>,
    /// The later submissions that name this lead in `repeat_of`.
    pub repeat_count: i64,
    /// Why the lead is held for review (`abuse::Signal` codes); `None` in the call list.
    pub held: Option<Vec<String>>,
}

/// Which leads the inbox lists, newest first.
#[derive(Debug, Clone)]
pub struct LeadQuery {
    /// A `LIKE` pattern over the lower-cased name.
    pub name_pattern: Option<String>,
    /// A `LIKE` pattern over the E.164 phone.
    pub phone_pattern: Option<String>,
    /// Only open leads (`crate::inbox::OPEN_STATUSES`)...
    pub open_only: bool,
    /// ...and of them only those sent before this time (overdue).
    pub created_before: Option<jiff::Timestamp>,
    /// Leads with a smaller id (the next page).
    pub before_id: Option<i64>,
    /// The held leads instead of the call list.
    pub held: bool,
    pub limit: u32,
}

/// One call to a lead.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Attempt {
    pub id: i64,
    pub at: String,
    /// The operator's e-mail.
    pub operator: String,
    pub outcome: String,
    pub note: String,
}

/// The inbox's figures at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Leads held for review, waiting for a person to release or erase them.
    pub held: i64,
    pub open: i64,
    pub overdue: i64,
    /// Leads of the window whose 48 hours are over or that were reached...
    pub due: i64,
    /// ...and of them those reached within 48 hours.
    pub reached_in_time: i64,
    /// `YYYY-MM-DDTHH` (UTC) and the leads sent in that hour, hours without leads left out
    /// (whole hours, so the caller can count days in any time zone).
    pub per_hour: Vec<(String, i64)>,
}

/// The moments `Store::counts` measures against.
#[derive(Debug, Clone, Copy)]
pub struct CountsAt {
    /// Open leads sent before this are overdue (now − 48 h).
    pub overdue_before: jiff::Timestamp,
    /// Start of the window of the "reached in time" share and the hourly counts.
    pub window_start: jiff::Timestamp,
}

#[derive(Debug, Clone)]
pub struct Operator {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
}

/// A signed-in operator, found by the hash of the session cookie.
#[derive(Debug, Clone)]
pub struct Session {
    pub operator_id: i64,
    pub email: String,
    pub csrf_token: String,
}

/// A notification a sender has claimed.
#[derive(Debug, Clone)]
pub struct OutboxJob {
    pub id: i64,
    pub lead_id: i64,
    /// `new`, `reminder` or `overdue`.
    pub event: String,
    pub channel: String,
    /// Including this one.
    pub attempts: i32,
}

/// What waits in the outbox for one channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelQueue {
    pub channel: String,
    /// Notifications not yet sent.
    pub waiting: i64,
    /// Of those, the ones tried at least once without success.
    pub failing: i64,
    /// When the oldest of them was queued (RFC 3339, UTC).
    pub oldest_at: String,
    /// Why the newest failing one failed.
    pub last_error: Option<String>,
}

/// `held` as both engines keep it: the codes space-separated, NULL for the call list.
fn held_text(codes: &[&str]) -> Option<String> {
    (!codes.is_empty()).then(|| codes.join(" "))
}

fn held_codes(text: Option<String>) -> Option<Vec<String>> {
    text.map(|text| text.split(' ').map(str::to_owned).collect())
}

/// Calls the same method on whichever engine this store runs.
macro_rules! dispatch {
    ($self:ident, $method:ident($($arg:expr),*)) => {
        match &*$self.engine {
            Engine::Sqlite(s) => s.$method($($arg),*).await,
            Engine::Postgres(p) => p.$method($($arg),*).await,
        }
    };
}

#[derive(Clone)]
pub struct Store {
    engine: Arc<Engine>,
}

enum Engine {
    Sqlite(sqlite::SqliteStore),
    Postgres(postgres::PostgresStore),
}

impl Store {
    /// Opens a database that must exist already (operator commands: a typo in the path must not
    /// quietly create an empty database and export nothing).
    pub async fn open_existing(url: &DatabaseUrl) -> anyhow::Result<Store> {
        if let DatabaseUrl::Sqlite(path) = url {
            if !path.exists() {
                anyhow::bail!(
                    "there is no database at {}; set ZAYAVKA_DATABASE_URL (or --config) as the server has it",
                    path.display()
                );
            }
        }
        Store::open(url).await
    }

    /// Opens the database, creating it (and its folder) on first start, and applies migrations.
    pub async fn open(url: &DatabaseUrl) -> anyhow::Result<Store> {
        let engine = match url {
            DatabaseUrl::Sqlite(path) => {
                let path = path.clone();
                Engine::Sqlite(tokio::task::spawn_blocking(move || sqlite::SqliteStore::open(&path)).await??)
            }
            DatabaseUrl::Postgres(url) => Engine::Postgres(postgres::PostgresStore::open(url).await?),
        };
        Ok(Store { engine: Arc::new(engine) })
    }

    /// Stores the leads of one request atomically. Returns once they are durable on disk.
    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: &InsertContext,
        idempotency: Option<Idempotency>,
    ) -> Result<Vec<Stored>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.insert(leads, context.clone(), idempotency).await,
            Engine::Postgres(p) => p.insert(leads, context, idempotency.as_ref()).await,
        }
    }

    /// The fingerprint and lead ids recorded under an `Idempotency-Key` since `since`.
    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.idempotency_record(key, since).await,
            Engine::Postgres(p) => p.idempotency_record(key, since).await,
        }
    }

    /// Forgets `Idempotency-Key`s recorded before `before`.
    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.purge_idempotency_keys(before).await,
            Engine::Postgres(p) => p.purge_idempotency_keys(before).await,
        }
    }

    /// The leads with these ids that still exist, in the order given.
    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.leads_by_ids(ids).await,
            Engine::Postgres(p) => p.leads_by_ids(ids).await,
        }
    }

    /// Whether the database answers (readiness).
    pub async fn ping(&self) -> Result<(), StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.ping().await,
            Engine::Postgres(p) => p.ping().await,
        }
    }

    /// Copies the database to `path` while it is in use (SQLite's online backup). PostgreSQL has
    /// its own tools.
    pub async fn backup_to(&self, path: &std::path::Path) -> anyhow::Result<()> {
        match &*self.engine {
            Engine::Sqlite(s) => s.backup_to(path).await,
            Engine::Postgres(_) => {
                anyhow::bail!("zayavka backup copies SQLite databases; for PostgreSQL use pg_dump -Fc")
            }
        }
    }

    /// Up to `limit` leads with an id above `after_id`, oldest first: a page of an export.
    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.leads_after(after_id, limit).await,
            Engine::Postgres(p) => p.leads_after(after_id, limit).await,
        }
    }

    /// The inbox's list: people's first leads matching `query`, newest first (a repeat is shown
    /// with its first lead).
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, find_leads(query))
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        dispatch!(self, lead(id))
    }

    /// The later submissions of the person whose first lead is `lead_id`, oldest first.
    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, repeats(lead_id))
    }

    /// The calls made to a lead, oldest first.
    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        dispatch!(self, attempts(lead_id))
    }

    /// Logs a call and moves the lead's status on (`crate::inbox::status_after`); `false` if
    /// there is no such lead.
    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: crate::inbox::Outcome,
        note: String,
    ) -> Result<bool, StoreError> {
        dispatch!(self, add_attempt(lead_id, operator, outcome, note))
    }

    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        dispatch!(self, counts(at))
    }

    /// Deletes every lead with this phone (E.164) with its calls and notifications, and the
    /// idempotency records that name them; on SQLite the freed bytes are zeroed and the WAL
    /// checkpointed, so the number is gone from the files. Returns how many leads went.
    pub async fn erase_phone(&self, phone_e164: &str) -> Result<usize, StoreError> {
        let phone_e164 = phone_e164.to_owned();
        dispatch!(self, erase_phone(phone_e164))
    }

    /// Deletes leads sent before `before` (retention), as `erase_phone` does.
    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_leads(before))
    }

    /// Deletes held leads sent before `before` that nobody released.
    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_held(before))
    }

    /// Moves a held lead to the call list and queues its notifications (once: a lead already
    /// notified is not notified again); `false` if there is no such held lead.
    pub async fn release(&self, id: i64, channels: Arc<[&'static str]>) -> Result<bool, StoreError> {
        dispatch!(self, release(id, channels))
    }

    /// Adds an operator; `false` if the e-mail has an account already.
    pub async fn add_operator(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, add_operator(email, password_hash))
    }

    /// Sets an operator's password and ends their sessions; `false` if there is no such account.
    pub async fn set_password(&self, email: String, password_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, set_password(email, password_hash))
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        dispatch!(self, operator(email))
    }

    /// Keeps a first-start setup token (its hash) until `expires_at`, if no operator exists yet;
    /// `false` (and every setup token forgotten) once one does.
    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, offer_setup(token_hash, expires_at))
    }

    /// Whether this setup token would create the first operator now.
    pub async fn setup_token_valid(&self, token_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, setup_token_valid(token_hash, jiff::Timestamp::now()))
    }

    /// Uses up the setup token and creates the first operator, in one transaction; `None` if the
    /// token is unknown, used or expired, or an operator exists already.
    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
    ) -> Result<Option<Operator>, StoreError> {
        dispatch!(self, add_first_operator(token_hash, email, password_hash, jiff::Timestamp::now()))
    }

    pub async fn create_session(
        &self,
        token_hash: String,
        operator_id: i64,
        csrf_token: String,
        expires_at: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        dispatch!(self, create_session(token_hash, operator_id, csrf_token, expires_at))
    }

    /// The session with this token hash, if it has not expired.
    pub async fn session(&self, token_hash: String) -> Result<Option<Session>, StoreError> {
        dispatch!(self, session(token_hash, jiff::Timestamp::now()))
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        dispatch!(self, delete_session(token_hash))
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_sessions(before))
    }

    /// Claims up to `limit` due notifications on `channels` for this sender until `lease_until`;
    /// a row another sender holds is skipped (on PostgreSQL with `FOR UPDATE SKIP LOCKED`). Rows
    /// of a channel no longer configured wait, untouched, until it is configured again.
    pub async fn claim_outbox(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: Arc<[&'static str]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        dispatch!(self, claim_outbox(now, lease_until, limit, channels))
    }

    pub async fn outbox_sent(&self, id: i64) -> Result<(), StoreError> {
        dispatch!(self, outbox_sent(id, jiff::Timestamp::now()))
    }

    /// Frees a claimed notification to be tried again at `next_attempt_at`.
    pub async fn outbox_retry(
        &self,
        id: i64,
        next_attempt_at: jiff::Timestamp,
        error: String,
    ) -> Result<(), StoreError> {
        dispatch!(self, outbox_retry(id, next_attempt_at, error))
    }

    /// Queues `event` on every channel for the open leads sent in `[from, to)` that have not had
    /// it yet; returns how many notifications were queued.
    pub async fn queue_reminders(
        &self,
        event: &'static str,
        channels: Arc<[&'static str]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        dispatch!(self, queue_reminders(event, channels, from, to))
    }

    /// The notifications not yet sent, per channel that has any (for the inbox's warning and
    /// `/metrics`).
    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        dispatch!(self, outbox_queues())
    }

    /// The value kept under `key`, created with `make` (and kept) if there is none yet.
    pub async fn meta_get_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.meta_get_or_insert(key, make()).await,
            Engine::Postgres(p) => p.meta_get_or_insert(key, make()).await,
        }
    }

    /// Finishes the writes already queued and closes the database cleanly.
    pub async fn close(&self) {
        match &*self.engine {
            Engine::Sqlite(s) => s.close().await,
            Engine::Postgres(p) => p.close(),
        }
    }
}

//! Where leads are kept: SQLite (default) or PostgreSQL. One `Store` whatever the engine: each
//! method hands its call to the engine (`dispatch!`), which keeps its SQL in one file per entity
//! (`leads`, `inbox`, `claims`, `operators`, `outbox`, `audit`) and its migrations under `migrations/<engine>/`.
//! The rules themselves (a status after a call, the duplicate window, which channels) come from
//! the layers below, so the engines only store what they are told.

mod postgres;
mod search;
mod sqlite;

use std::sync::Arc;

use crate::config::DatabaseUrl;
use crate::inbox::{CallPlan, LeadRecord, Outcome, Status};
use crate::lead::clean::printable;
use crate::lead::{Lead, NewLead};
use crate::notice::{Channel, Event};
use crate::team::{AccountChange, Action, Role};

/// Why the store could not do what was asked.
#[derive(Debug, Clone, thiserror::Error)]
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
    /// The notification channels configured now.
    pub channels: Arc<[Channel]>,
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
    /// Only the leads of the call list someone (or no one) has.
    pub holder: Holder,
    pub limit: u32,
}

/// Whose leads a list shows (`crate::inbox::Claim`; a claim past its time is no one's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    Anyone,
    /// The leads this operator (an id) has at `now`.
    Operator {
        id: i64,
        now: jiff::Timestamp,
    },
    /// The leads nobody has at `now`.
    Nobody {
        now: jiff::Timestamp,
    },
}

/// Leads and how many were reached within 48 hours, per stored `(utm_source, referrer)`; the
/// caller names the source (`crate::inbox::source_of`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceCount {
    pub utm_source: Option<String>,
    pub referrer: Option<String>,
    pub leads: i64,
    pub reached: i64,
}

/// One operator's calls (by the e-mail the call log keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorCount {
    pub email: String,
    /// Calls made.
    pub calls: i64,
    /// Leads this operator's call reached within 48 hours of their sending.
    pub reached: i64,
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
    pub role: Role,
    /// The confirmed second-factor secret (base32), if the operator set one up.
    pub totp_secret: Option<String>,
    /// A secret being set up, until its first code is confirmed.
    pub totp_pending: Option<String>,
}

/// An account as the admins' list shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Account {
    pub email: String,
    pub role: Role,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Whether the account has a second factor set up.
    pub second_factor: bool,
}

/// The 48-hour promise in seconds, as the engines' figures take it: the rule is `inbox::PROMISE`,
/// passed into SQL, never written there.
fn promise_seconds() -> f64 {
    crate::inbox::PROMISE.as_secs_f64()
}

/// A signed-in operator, found by the hash of the session cookie.
#[derive(Debug, Clone)]
pub struct Session {
    /// What the database keeps of the session's token.
    pub token_hash: String,
    pub operator_id: i64,
    pub email: String,
    pub role: Role,
    pub csrf_token: String,
    /// Whether the operator has a second factor set up (and so this session passed it).
    pub second_factor: bool,
    /// The session's use was last written down over `team::SEEN_EVERY` ago: this request does it.
    pub seen_due: bool,
}

/// One entry of the audit trail, to write.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    /// The operator's e-mail, or `command line` for the `zayavka` command.
    pub actor: String,
    pub action: Action,
    pub lead_id: Option<i64>,
    /// What else is worth knowing and names no visitor: a format, a count, a role.
    pub detail: Option<String>,
    /// The client's address (`None` for the command line).
    pub address: Option<String>,
}

/// One entry of the audit trail, as kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuditRecord {
    pub id: i64,
    /// RFC 3339, UTC.
    pub at: String,
    pub actor: String,
    /// An `Action` name; one this version does not know is shown as kept.
    pub action: String,
    pub lead_id: Option<i64>,
    pub detail: Option<String>,
    pub address: Option<String>,
}

/// A notification a sender has claimed.
#[derive(Debug, Clone)]
pub struct OutboxJob {
    pub id: i64,
    pub lead_id: i64,
    pub event: Event,
    pub channel: Channel,
    /// Including this one.
    pub attempts: i32,
}

/// When wrong second-factor codes refuse an account's codes: after `in_a_row` of them, for
/// `refusal(runs before)`, longer each run.
#[derive(Debug, Clone, Copy)]
pub struct CodeLimit {
    pub in_a_row: i64,
    pub refusal: fn(i64) -> jiff::SignedDuration,
}

/// An operator's second-factor secrets as the database keeps them (encrypted, or plain from
/// before encryption).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSecrets {
    pub operator_id: i64,
    pub secret: Option<String>,
    pub pending: Option<String>,
}

/// A notice about an account a sender has claimed: its codes are refused until `refused_until`.
#[derive(Debug, Clone)]
pub struct AccountNoticeJob {
    pub id: i64,
    pub email: String,
    pub refused_until: jiff::Timestamp,
    pub channel: Channel,
    /// Including this one.
    pub attempts: i32,
}

/// How a claimed notification went.
#[derive(Debug)]
pub enum Delivery {
    Sent(i64),
    /// Free it to be tried again at `at`; `error` is why this try failed.
    Retry {
        id: i64,
        at: jiff::Timestamp,
        error: String,
    },
}

/// What waits in the outbox for one channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelQueue {
    pub channel: Channel,
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

/// A status as both engines keep it. The tables only admit known names (a CHECK constraint);
/// were one ever unknown, the lead stays on the call list rather than vanish from it.
fn status_of(name: &str) -> Status {
    Status::from_name(name).unwrap_or(Status::New)
}

/// A role as both engines keep it (a CHECK constraint admits only known names); were one ever
/// unknown, the account gets the lesser rights.
fn role_of(name: &str) -> Role {
    Role::from_name(name).unwrap_or(Role::Operator)
}

/// The names of `channels`, as the outbox rows keep them.
fn channel_names(channels: &[Channel]) -> Vec<&'static str> {
    channels.iter().map(|c| c.name()).collect()
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
        dispatch!(self, insert(leads, context.clone(), idempotency))
    }

    /// The fingerprint and lead ids recorded under an `Idempotency-Key` since `since`.
    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        dispatch!(self, idempotency_record(key, since))
    }

    /// Forgets `Idempotency-Key`s recorded before `before`.
    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_idempotency_keys(before))
    }

    /// The leads with these ids that still exist, in the order given.
    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        dispatch!(self, leads_by_ids(ids))
    }

    /// Whether the database answers (readiness).
    pub async fn ping(&self) -> Result<(), StoreError> {
        dispatch!(self, ping())
    }

    /// Copies the database to `path` while it is in use (SQLite's online backup). PostgreSQL has
    /// its own tools.
    pub async fn backup_to(&self, path: &std::path::Path) -> anyhow::Result<()> {
        dispatch!(self, backup_to(path))
    }

    /// Up to `limit` leads with an id above `after_id`, oldest first: a page of an export.
    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, leads_after(after_id, limit))
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

    /// Logs a call and moves the lead's status on (`Outcome::status_after`) and its next call
    /// (`CallPlan::next_call_at`); a call by the operator who took the lead ends their claim (a
    /// lead handed to them stays theirs). `false` if there is no such lead.
    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
        plan: CallPlan,
    ) -> Result<bool, StoreError> {
        dispatch!(self, add_attempt(lead_id, operator, outcome, note, plan))
    }

    /// Up to `limit` leads of the call list due for a call at `now`, in the order to call them:
    /// call-backs set by a call first (the earliest first), then the others by the end of their
    /// 48 hours, nearest first. Read from the index of leads to call, not the whole table.
    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, due_leads(now, limit))
    }

    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        dispatch!(self, counts(at))
    }

    /// Gives the lead to the operator until `until`, if it is an open first lead of the call list
    /// that nobody else has at `now` (`crate::inbox::LeadRecord::take_refusal` says why not).
    /// One already handed to them stays theirs without an end. `false` if it was not given.
    pub async fn take(
        &self,
        id: i64,
        operator_id: i64,
        until: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, take(id, operator_id, until, now))
    }

    /// Puts the lead back in the pool if this operator has it at `now`; `false` if not.
    pub async fn give_back(
        &self,
        id: i64,
        operator_id: i64,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, give_back(id, operator_id, now))
    }

    /// Hands the lead to the operator (an id) with no end, or to nobody; `false` if there is no
    /// such lead.
    pub async fn hand_to(&self, id: i64, operator_id: Option<i64>) -> Result<bool, StoreError> {
        dispatch!(self, hand_to(id, operator_id))
    }

    /// Hands each of these leads that is a first lead of the call list nobody has to the next
    /// account of role `operator` at work (signed in, used the inbox within `team::ON_SHIFT`, and
    /// with a second factor if one is required, so able to open the lead) after the one that got
    /// the previous lead (round-robin, shared by instances through the database); with nobody at
    /// work they stay in the pool. Returns how many were handed out.
    pub async fn hand_out_in_turn(&self, ids: Vec<i64>, require_2fa: bool) -> Result<usize, StoreError> {
        let now = jiff::Timestamp::now();
        dispatch!(self, hand_out_in_turn(ids, now, now - crate::team::ON_SHIFT, require_2fa))
    }

    /// Per source: the first leads of the call list sent since `at.window_start`, and how many of
    /// them were reached within 48 hours. Most leads first.
    pub async fn source_counts(&self, at: CountsAt) -> Result<Vec<SourceCount>, StoreError> {
        dispatch!(self, source_counts(at))
    }

    /// Per operator who made calls since `since`: the calls, and the leads they reached within
    /// 48 hours. By e-mail.
    pub async fn operator_counts(&self, since: jiff::Timestamp) -> Result<Vec<OperatorCount>, StoreError> {
        dispatch!(self, operator_counts(since))
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
    pub async fn release(&self, id: i64, channels: Arc<[Channel]>) -> Result<bool, StoreError> {
        dispatch!(self, release(id, channels))
    }

    /// Adds an operator with `role`, or, without one, an admin if it is the first account and an
    /// operator otherwise; `false` if the e-mail has an account already.
    pub async fn add_operator(
        &self,
        email: String,
        password_hash: String,
        role: Option<Role>,
    ) -> Result<bool, StoreError> {
        dispatch!(self, add_operator(email, password_hash, role))
    }

    /// Every account, oldest first.
    pub async fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        dispatch!(self, accounts())
    }

    /// Gives an account `role`; never takes the admin role from the last admin. A change of role
    /// ends the account's sessions, so its rights change at once.
    pub async fn set_role(&self, email: String, role: Role) -> Result<AccountChange, StoreError> {
        dispatch!(self, set_role(email, role))
    }

    /// Removes an account with its sessions; never the last admin.
    pub async fn remove_operator(&self, email: String) -> Result<AccountChange, StoreError> {
        dispatch!(self, remove_operator(email))
    }

    /// Appends to the audit trail. The actor may be what a stranger typed as an e-mail: control
    /// characters are kept as escapes, so that no entry can forge another or hide text.
    pub async fn audit(&self, mut entry: AuditEntry) -> Result<(), StoreError> {
        entry.actor = printable(&entry.actor).into_owned();
        entry.detail = entry.detail.map(|detail| printable(&detail).into_owned());
        dispatch!(self, audit(entry, jiff::Timestamp::now()))
    }

    /// Up to `limit` audit entries with an id below `before_id` (all, without one), newest first.
    pub async fn audit_page(
        &self,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        dispatch!(self, audit_page(before_id.unwrap_or(i64::MAX), limit))
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
        second_factor_passed: bool,
    ) -> Result<(), StoreError> {
        dispatch!(self, create_session(token_hash, operator_id, csrf_token, expires_at, second_factor_passed))
    }

    /// The session with this token hash, if it has not expired and, for an account with a second
    /// factor, passed it.
    pub async fn session(&self, token_hash: String) -> Result<Option<Session>, StoreError> {
        let now = jiff::Timestamp::now();
        dispatch!(self, session(token_hash, now, now - crate::team::SEEN_EVERY))
    }

    /// Writes down that the session was used now (`Session::seen_due`).
    pub async fn session_seen(&self, token_hash: String) -> Result<(), StoreError> {
        dispatch!(self, session_seen(token_hash, jiff::Timestamp::now()))
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        dispatch!(self, delete_session(token_hash))
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_sessions(before))
    }

    /// Keeps `secret` as the operator's second factor being set up (replacing one set up before
    /// and never confirmed); `false` if they have a confirmed one.
    pub async fn start_second_factor(&self, operator_id: i64, secret: String) -> Result<bool, StoreError> {
        dispatch!(self, start_second_factor(operator_id, secret))
    }

    /// Makes the secret being set up the operator's second factor, `step` its first code used,
    /// with these recovery codes (hashes); `false` if that secret is no longer the one being set up.
    /// The session that confirmed it counts as having passed it; the operator's other sessions
    /// end, as none of them did.
    pub async fn confirm_second_factor(
        &self,
        operator_id: i64,
        secret: String,
        step: i64,
        code_hashes: Vec<String>,
        session_token_hash: String,
    ) -> Result<bool, StoreError> {
        dispatch!(self, confirm_second_factor(operator_id, secret, step, code_hashes, session_token_hash))
    }

    /// Records a code's time step as used; `false` if it or a later one was used already (a code
    /// signs in once).
    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        dispatch!(self, use_code_step(operator_id, step))
    }

    /// Uses up a recovery code (by its hash); `false` if it is not one of theirs or was used.
    pub async fn use_recovery_code(&self, operator_id: i64, code_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, use_recovery_code(operator_id, code_hash, jiff::Timestamp::now()))
    }

    pub async fn recovery_codes_left(&self, operator_id: i64) -> Result<i64, StoreError> {
        dispatch!(self, recovery_codes_left(operator_id))
    }

    /// Every operator's second-factor secrets, of those who have any.
    pub async fn second_factor_secrets(&self) -> Result<Vec<StoredSecrets>, StoreError> {
        dispatch!(self, second_factor_secrets())
    }

    /// Replaces an operator's secrets as kept (`before`) with `after` (the same, encrypted);
    /// `false` if they changed meanwhile (set up or reset: the next start sees them again).
    pub async fn replace_second_factor_secrets(
        &self,
        before: StoredSecrets,
        after: StoredSecrets,
    ) -> Result<bool, StoreError> {
        dispatch!(self, replace_second_factor_secrets(before, after))
    }

    /// Counts a wrong code typed after a right password. The `limit.in_a_row`th in a row refuses
    /// the account's codes until `now` + the refusal, queues a notice on each of `channels` in
    /// the same transaction, and says until when.
    pub async fn code_failed(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
        limit: CodeLimit,
        channels: Arc<[Channel]>,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        dispatch!(self, code_failed(operator_id, now, limit, channels))
    }

    /// Until when the account's codes are refused, if they are at `now`.
    pub async fn codes_refused_until(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        dispatch!(self, codes_refused_until(operator_id, now))
    }

    /// Claims due account notices on `channels` until `lease_until`, as `claim_outbox` does.
    pub async fn claim_account_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: Arc<[Channel]>,
    ) -> Result<Vec<AccountNoticeJob>, StoreError> {
        dispatch!(self, claim_account_notices(now, lease_until, channels))
    }

    pub async fn account_notices_done(&self, deliveries: Vec<Delivery>) -> Result<(), StoreError> {
        dispatch!(self, account_notices_done(deliveries, jiff::Timestamp::now()))
    }

    /// Forgets an operator's second factor and recovery codes and ends their sessions (a lost
    /// phone); `false` if there is no such account.
    pub async fn reset_second_factor(&self, email: String) -> Result<bool, StoreError> {
        dispatch!(self, reset_second_factor(email))
    }

    /// Claims up to `limit` due notifications on `channels` for this sender until `lease_until`;
    /// a row another sender holds is skipped (on PostgreSQL with `FOR UPDATE SKIP LOCKED`). Rows
    /// of a channel no longer configured wait, untouched, until it is configured again.
    pub async fn claim_outbox(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: Arc<[Channel]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        dispatch!(self, claim_outbox(now, lease_until, limit, channels))
    }

    /// Records how claimed notifications went, all in one write: a sender records every send
    /// that finished since its last claim together, rather than one write per notification.
    pub async fn outbox_done(&self, deliveries: Vec<Delivery>) -> Result<(), StoreError> {
        if deliveries.is_empty() {
            return Ok(());
        }
        dispatch!(self, outbox_done(deliveries, jiff::Timestamp::now()))
    }

    /// Queues `event` on every channel for the open leads sent in `[from, to)` that have not had
    /// it yet; returns how many notifications were queued.
    pub async fn queue_reminders(
        &self,
        event: Event,
        channels: Arc<[Channel]>,
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
        dispatch!(self, meta_get_or_insert(key, make()))
    }

    /// Takes `cost` from a client's token bucket shared by every instance (GCRA: its next token
    /// may come due at most `full` ahead): how long to wait, zero when taken. `None` on SQLite
    /// (one instance by design), whose limit is kept in memory.
    pub async fn take_submit_tokens(
        &self,
        client: i64,
        cost: std::time::Duration,
        full: std::time::Duration,
    ) -> Result<Option<std::time::Duration>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(_) => Ok(None),
            Engine::Postgres(p) => p.take_submit_tokens(client, cost, full).await.map(Some),
        }
    }

    /// Notes a phone (`crate::abuse::Tally`) under each key, shared by every instance: how many
    /// different phones each key has in the burst window. `None` on SQLite, counted in memory.
    pub async fn count_phones(&self, keys: Vec<i64>, phone: i64) -> Result<Option<Vec<usize>>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(_) => Ok(None),
            Engine::Postgres(p) => p.count_phones(keys, phone).await.map(Some),
        }
    }

    /// Forgets shared abuse counts that no longer count (nothing to do on SQLite).
    pub async fn forget_abuse_counts(&self) -> Result<(), StoreError> {
        match &*self.engine {
            Engine::Sqlite(_) => Ok(()),
            Engine::Postgres(p) => p.forget_abuse_counts().await,
        }
    }

    /// Finishes the writes already queued and closes the database cleanly.
    pub async fn close(&self) {
        dispatch!(self, close())
    }
}

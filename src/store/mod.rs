//! Where leads are kept: SQLite (default) or PostgreSQL. One `Store` whatever the engine: each
//! method hands its call to the engine (`dispatch!`). The facade is split per entity as the engines
//! are (`leads`, `inbox`, `claims`, `operators`, `audit`, `second_factor`, `outbox`, `outages`,
//! `abuse`, `closed_days`, `promise`): each file holds its `impl Store` block and the types it
//! takes and gives; each engine keeps its SQL in files of the same names and its migrations under
//! `migrations/<engine>/`. This file keeps the store itself: opening it, the error, the dispatch
//! and what is not any one entity's.
//! The rules themselves (a status after a call, the duplicate window, which channels, the 48 hours)
//! come from the layers below, so the engines only store what they are told.

mod export;
mod postgres;
mod search;
mod sqlite;

use std::sync::Arc;

pub use self::export::ExportedLead;
use crate::clock::Clock;
use crate::config::DatabaseUrl;
// The engines take it through `super::`, as they do the entities' types below.
use crate::inbox::LeadRecord;

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

/// Why a database whose schema is newer than this binary's migrations is not opened: the release
/// that migrated it writes and reads what this one does not know (a rollback by moving the binary
/// back), and this one would fail or count wrong where it met that.
fn newer_schema(applied: i64, known: usize) -> String {
    format!(
        "the database was migrated by a newer zayavka (its schema is at {applied}, this binary knows \
         {known}): run that release, or restore the backup taken before the upgrade \
         (docs/deployment.md, \"Upgrading\")"
    )
}

/// How long a write waits for a lock another connection holds (someone writing to the database by
/// hand, a maintenance job, a `zayavka` command) before its caller gets `Unavailable`: a visitor then
/// sees 503 with the entries kept, long before the page's own 30 s. The same on both engines.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Calls the same method on whichever engine this store runs.
macro_rules! dispatch {
    ($self:ident, $method:ident($($arg:expr),*)) => {
        match &*$self.engine {
            Engine::Sqlite(s) => s.$method($($arg),*).await,
            Engine::Postgres(p) => p.$method($($arg),*).await,
        }
    };
}

// Declared after `dispatch!`, so that they can use it.
mod abuse;
mod audit;
mod claims;
mod closed_days;
mod inbox;
mod leads;
mod operators;
mod outages;
mod outbox;
mod promise;
mod second_factor;

pub use audit::{AuditEntry, AuditRecord, EntryOf};
pub use claims::{OperatorCount, SourceCount};
pub use closed_days::ClosedDay;
pub use inbox::{Attempt, CallLogged, Counts, CountsAt, Holder, LeadQuery, NewAttempt};
pub use leads::{IDEMPOTENCY_WINDOW, Idempotency, InsertContext, Stored};
pub use operators::{Account, Operator, Session};
pub use outages::{ChannelNoticeJob, FailingChannel};
pub use outbox::{ChannelQueue, Delivery, OutboxJob, PendingNotification, WaitingChange};
pub use promise::{PromiseLead, PromiseLeads};
pub use second_factor::{AccountNoticeJob, CodeLimit, FactorConfirmed, StoredSecrets};
// What both engines share in keeping rows, decided once per entity.
use closed_days::closed_day_row;
use inbox::{promise_seconds, status_of};
use leads::{held_codes, held_text};
use operators::role_of;
use outbox::channel_names;
use promise::{Hour, PROMISE_COLUMNS, PromiseReader, PromiseRow, start_of};

#[derive(Clone)]
pub struct Store {
    engine: Arc<Engine>,
    /// Stamps what the store writes (a lead's arrival, an audit entry, a session's last use) and
    /// says what is due; the engines are told the time, never read it (ADR 0035).
    clock: Clock,
    /// The promise figures' leads read so far (`promise`).
    promise: Arc<tokio::sync::Mutex<promise::KeptHours>>,
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
        Ok(Store { engine: Arc::new(engine), clock: Clock::system(), promise: Default::default() })
    }

    /// This store, telling the time by `clock` (a test's, which moves only when told).
    pub fn with_clock(self, clock: Clock) -> Store {
        Store { clock, ..self }
    }

    /// The time as this store tells it: the one clock of the process that opened it.
    pub fn clock(&self) -> &Clock {
        &self.clock
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

    /// The value kept under `key`, created with `make` (and kept) if there is none yet.
    pub async fn meta_get_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        dispatch!(self, meta_get_or_insert(key, make()))
    }

    /// Keeps `value` under `key`, replacing what was there.
    pub async fn meta_set(&self, key: &str, value: String) -> Result<(), StoreError> {
        dispatch!(self, meta_set(key, value))
    }

    /// The value kept under `key`, if any.
    pub async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        dispatch!(self, meta_get(key))
    }

    /// Finishes the writes already queued and closes the database cleanly.
    pub async fn close(&self) {
        dispatch!(self, close())
    }
}

#[cfg(test)]
mod tests {
    /// A rule is decided once, in Rust, and reaches the engines' SQL as a parameter (the 48 hours as
    /// `promise_seconds`, a claim's end as `until`, "at work" as `on_shift_since`, the open
    /// statuses as `open_statuses_sql`, an outcome or an event by its name): no engine spells a
    /// length of time, a status list, an outcome or an event itself.
    #[test]
    fn no_engine_writes_a_rule_into_its_sql() {
        let store = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
        let outcomes = crate::inbox::Outcome::ALL.map(|outcome| format!("'{}'", outcome.as_str()));
        let rules = ["interval '", "hours'", "minutes'", "days'", "<= 2.0", "'attempt_", "'new'"];
        let spelled: Vec<&str> = rules.into_iter().chain(outcomes.iter().map(String::as_str)).collect();
        for engine in ["sqlite", "postgres"] {
            for file in std::fs::read_dir(store.join(engine)).unwrap() {
                let path = file.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
                for &literal in &spelled {
                    assert!(!text.contains(literal), "{} spells {literal:?}", path.display());
                }
            }
        }
    }
}

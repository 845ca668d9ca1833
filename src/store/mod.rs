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
}

/// How an insert is made: the consent evidence kept with each lead, and the duplicate rule.
#[derive(Debug, Clone)]
pub struct InsertContext {
    /// A hash of the privacy policy's text in force when the lead was sent (consent evidence).
    pub policy_version: Arc<str>,
    /// A lead whose phone (E.164) was stored this recently is not stored again.
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

/// One row of an insert's answer: stored now, or the earlier lead with the same phone (then
/// `duplicate`; its id and time, the values just sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub lead: Lead,
    pub duplicate: bool,
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
    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<Lead>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.leads_after(after_id, limit).await,
            Engine::Postgres(p) => p.leads_after(after_id, limit).await,
        }
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

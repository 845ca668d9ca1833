//! Abuse counts shared by every instance (PostgreSQL); SQLite, one instance by design, counts in
//! memory.

use super::{Engine, Store, StoreError};

impl Store {
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
            Engine::Postgres(p) => p.take_submit_tokens(client, cost, full, self.clock.now()).await.map(Some),
        }
    }

    /// Notes a phone (`crate::abuse::Tally`) under each key, shared by every instance: how many
    /// different phones each key has in the burst window. `None` on SQLite, counted in memory.
    pub async fn count_phones(&self, keys: Vec<i64>, phone: i64) -> Result<Option<Vec<usize>>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(_) => Ok(None),
            Engine::Postgres(p) => p.count_phones(keys, phone, self.clock.now()).await.map(Some),
        }
    }

    /// Forgets shared abuse counts that no longer count (nothing to do on SQLite).
    pub async fn forget_abuse_counts(&self) -> Result<(), StoreError> {
        match &*self.engine {
            Engine::Sqlite(_) => Ok(()),
            Engine::Postgres(p) => p.forget_abuse_counts(self.clock.now()).await,
        }
    }
}

//! The facade's export pages: only the columns an export writes, read by the primary key a page at
//! a time (ADR 0029), so a page costs the same at the first lead and at the two-millionth.

use super::{Engine, Store, StoreError};
use crate::inbox::Status;
use crate::lead::Attribution;

/// A lead as the exports write it: what the visitor sent, the consent evidence, where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedLead {
    pub id: i64,
    /// RFC 3339, UTC, microseconds (as every time the store hands out).
    pub created_at: String,
    pub name: String,
    pub phone: String,
    pub confirmation: String,
    pub comment: Option<String>,
    pub status: Status,
    pub reached_at: Option<String>,
    pub policy_version: String,
    pub repeat_of: Option<i64>,
    /// Why the lead is held for review; `None` for a lead in the call list.
    pub held: Option<Vec<String>>,
    pub attribution: Attribution,
    /// The earliest call to the lead (with `reached_at`, how the promise went for it).
    pub first_attempt_at: Option<String>,
}

impl Store {
    /// The lowest and the highest id of the leads kept (`None` when there are none): the span an
    /// export reads, a page of ids at a time.
    pub async fn export_span(&self) -> Result<Option<(i64, i64)>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.export_span().await,
            Engine::Postgres(p) => p.export_span().await,
        }
    }

    /// The leads with an id above `after_id` and up to `through_id`, oldest first: a page of an
    /// export. Its bounds do not depend on the page before, so pages can be read side by side.
    pub async fn export_page(&self, after_id: i64, through_id: i64) -> Result<Vec<ExportedLead>, StoreError> {
        match &*self.engine {
            Engine::Sqlite(s) => s.export_page(after_id, through_id).await,
            Engine::Postgres(p) => p.export_page(after_id, through_id).await,
        }
    }
}

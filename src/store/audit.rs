//! The append-only audit trail.

use super::{Engine, Store, StoreError};
use crate::lead::clean::printable;
use crate::team::Action;

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

/// The audit entry of a change, made from what the change found (the notification it sent again),
/// and written with it in its transaction (ADR 0088).
pub type EntryOf<T> = Box<dyn FnOnce(&T) -> AuditEntry + Send>;

/// One entry of the audit trail, as kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(rename = "AuditEntry")]
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

impl AuditEntry {
    /// The entry as the trail keeps it. The actor may be what a stranger typed as an e-mail:
    /// control characters are kept as escapes, so that no entry can forge another or hide text.
    pub(super) fn printable(self) -> AuditEntry {
        AuditEntry {
            actor: printable(&self.actor).into_owned(),
            detail: self.detail.map(|detail| printable(&detail).into_owned()),
            ..self
        }
    }
}

/// `trail`, making its entry as the trail keeps it.
pub(super) fn printable_entry<T: 'static>(trail: EntryOf<T>) -> EntryOf<T> {
    Box::new(move |found| trail(found).printable())
}

impl Store {
    /// Appends to the audit trail an entry of its own: a read, a sign-in, or a deletion whose
    /// entry says how many leads went. A change writes its entry in its own transaction instead
    /// (the store's methods that take a `trail`; ADR 0088).
    pub async fn audit(&self, entry: AuditEntry) -> Result<(), StoreError> {
        dispatch!(self, audit(entry.printable(), self.clock.now()))
    }

    /// Up to `limit` audit entries with an id below `before_id` (all, without one), newest first.
    pub async fn audit_page(
        &self,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        dispatch!(self, audit_page(before_id.unwrap_or(i64::MAX), limit))
    }

    /// Up to `limit` audit entries with an id above `after_id`, oldest first: the whole trail is
    /// read from the start this way a page at a time (`application::audit_trail::OldestFirst`).
    pub async fn audit_after(&self, after_id: i64, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        dispatch!(self, audit_after(after_id, limit))
    }
}

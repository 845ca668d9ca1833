//! Reading the audit trail: the inbox's "Журнал дій" a page at a time, newest first, and
//! `zayavka admin audit` the whole trail oldest first. The trail grows with every page of the list
//! an operator reads, so neither holds more than a page of it.

use crate::store::{AuditRecord, Store, StoreError};

/// Entries a page of the inbox's trail shows unless asked otherwise, and the most it shows.
pub const PAGE_DEFAULT: u32 = 100;
pub const PAGE_MOST: u32 = 500;

/// Entries the command line reads at a time.
const READ_AT_ONCE: u32 = 1000;

/// A page of the trail, newest first.
#[derive(Debug)]
pub struct NewestFirst {
    pub entries: Vec<AuditRecord>,
    /// The id to ask the next page before; `None`: no more.
    pub next_before_id: Option<i64>,
}

/// The entries below `before_id` (from the newest, without one), `asked` of them at most
/// (`PAGE_DEFAULT` unless asked, between 1 and `PAGE_MOST`).
pub async fn newest_first(
    store: &Store,
    before_id: Option<i64>,
    asked: Option<u32>,
) -> Result<NewestFirst, StoreError> {
    let limit = asked.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MOST);
    let entries = store.audit_page(before_id, limit + 1).await?;
    let (entries, next_before_id) = super::reading::one_page(entries, limit, |entry| entry.id);
    Ok(NewestFirst { entries, next_before_id })
}

/// The whole trail from its first entry, a page at a time: each `next` reads the entries after
/// the last one it gave, so an entry written meanwhile comes at the end.
pub struct OldestFirst<'a> {
    store: &'a Store,
    after_id: i64,
}

impl<'a> OldestFirst<'a> {
    pub fn new(store: &'a Store) -> OldestFirst<'a> {
        OldestFirst { store, after_id: 0 }
    }

    /// The next entries, oldest first; empty once the trail is read.
    pub async fn next(&mut self) -> Result<Vec<AuditRecord>, StoreError> {
        let page = self.store.audit_after(self.after_id, READ_AT_ONCE).await?;
        if let Some(last) = page.last() {
            self.after_id = last.id;
        }
        Ok(page)
    }
}

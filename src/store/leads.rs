//! Leads as they come in and go: the insert with its idempotency record, reads by id for an
//! export, release of a held lead, erasure and retention.

use std::sync::Arc;

use super::{AuditEntry, Engine, Store, StoreError};
use crate::inbox::LeadRecord;
use crate::lead::{Lead, NewLead};
use crate::notice::Channel;

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

/// `held` as both engines keep it: the codes space-separated, NULL for the call list.
pub(super) fn held_text(codes: &[&str]) -> Option<String> {
    (!codes.is_empty()).then(|| codes.join(" "))
}

pub(super) fn held_codes(text: Option<String>) -> Option<Vec<String>> {
    text.map(|text| text.split(' ').map(str::to_owned).collect())
}

impl Store {
    /// Stores the leads of one request atomically. Returns once they are durable on disk.
    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: &InsertContext,
        idempotency: Option<Idempotency>,
    ) -> Result<Vec<Stored>, StoreError> {
        dispatch!(self, insert(leads, context.clone(), idempotency, self.clock.now()))
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

    /// Up to `limit` leads with an id above `after_id`, oldest first: a page of an export.
    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, leads_after(after_id, limit))
    }

    /// Deletes every lead with this phone (E.164) with its calls and notifications, and the
    /// idempotency records that name them; on SQLite the freed bytes are zeroed. Returns how many
    /// leads went. `scrub_log` then removes their copies from the engine's log.
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

    /// After a deletion, removes the deleted rows' copies from the engine's log, so a number erased
    /// is gone from the files: SQLite's WAL is truncated (if a deletion since the last truncation
    /// deleted anything). A reader holding an older snapshot (a command's export) makes it
    /// `Unavailable` after a few seconds; the next call tries again. A separate step, so that
    /// what was deleted is in the audit trail even when the log cannot be truncated yet.
    pub async fn scrub_log(&self) -> Result<(), StoreError> {
        dispatch!(self, scrub_log())
    }

    /// Moves a held lead to the call list and queues its notifications (once: a lead already
    /// notified is not notified again); `false` if there is no such held lead. Where the person
    /// has an open lead of the call list within `duplicate_window` (as a lead sent now would find
    /// it), the released lead becomes its repeat instead, and its holder is told the person wrote
    /// again (ADR 0085). `trail` is written with the release, or neither is.
    pub async fn release(
        &self,
        id: i64,
        channels: Arc<[Channel]>,
        duplicate_window: Option<std::time::Duration>,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, release(id, channels, duplicate_window, self.clock.now(), trail.printable()))
    }
}

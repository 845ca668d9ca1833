//! The notifications still to send, as an admin sees and mends them when a channel fails.

use super::{Engine, Store, StoreError};
use crate::notice::{Channel, Event};

/// A notification not yet delivered: waiting for its first try, or failed and waiting for the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingNotification {
    pub id: i64,
    pub lead_id: i64,
    pub event: Event,
    pub channel: Channel,
    /// When it was queued (RFC 3339, UTC).
    pub created_at: String,
    /// Tries so far.
    pub attempts: i32,
    /// When the next try is due (RFC 3339, UTC).
    pub next_attempt_at: String,
    /// Why the last try failed; `None` before the first.
    pub last_error: Option<String>,
}

impl Store {
    /// Up to `limit` notifications not yet delivered, the next to be tried first.
    pub async fn pending_notifications(&self, limit: u32) -> Result<Vec<PendingNotification>, StoreError> {
        dispatch!(self, pending_notifications(limit))
    }

    /// Makes notification `id` due at once ("send again"). What it is, or `None` if it is not
    /// waiting (sent or dropped meanwhile).
    pub async fn resend_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<PendingNotification>, StoreError> {
        dispatch!(self, resend_notification(id, now))
    }

    /// Gives up on notification `id` on purpose: it is never sent. What it was, or `None` if it
    /// is not waiting (already sent or dropped).
    pub async fn drop_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<PendingNotification>, StoreError> {
        dispatch!(self, drop_notification(id, now))
    }
}

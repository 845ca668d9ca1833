//! The notifications waiting to be sent, per lead and channel.

use std::sync::Arc;

use super::audit::printable_entry;
use super::{Engine, EntryOf, Store, StoreError};
use crate::notice::{Channel, Event};

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

/// How a claimed notification went.
#[derive(Debug, Clone)]
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
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

/// The names of `channels`, as the outbox rows keep them.
pub(super) fn channel_names(channels: &[Channel]) -> Vec<&'static str> {
    channels.iter().map(|c| c.name()).collect()
}

/// What an admin's change to a waiting notification found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitingChange {
    /// It waited, and is changed: what it is.
    Changed(PendingNotification),
    /// A sender holds it, sending it now: left as it is (sent again, it would go twice; dropped,
    /// it might still arrive).
    BeingSent,
    /// Sent or dropped meanwhile.
    NotWaiting,
}

/// A notification not yet delivered: waiting for its first try, or failed and waiting for the next.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
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
    /// A sender's turn at the outbox: records how the sends it finished went (`done`), then
    /// claims up to `limit` due notifications on `channels` for it until `lease_until`; on SQLite
    /// one transaction, on PostgreSQL the statements in a row on one connection. A row another
    /// sender holds is skipped (on PostgreSQL with `FOR UPDATE SKIP LOCKED`); rows of a channel no
    /// longer configured wait, untouched, until it is configured again. One write for many
    /// notifications, where a write each made the outbox the database writer's second customer.
    pub async fn claim_outbox(
        &self,
        done: Vec<Delivery>,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: Arc<[Channel]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        if done.is_empty() && (limit == 0 || channels.is_empty()) {
            return Ok(Vec::new());
        }
        dispatch!(self, claim_outbox(done, now, lease_until, limit, channels))
    }

    /// Queues `event` on every channel for the leads sent in `[from, to)` whose 48 hours still run
    /// (open, no call reached the person: `inbox::on_the_clock_sql`) and that have not had it yet;
    /// returns how many notifications were queued. A person who asked for a later call was reached:
    /// that time's own notice comes when it does (ADR 0086, 0087).
    pub async fn queue_reminders(
        &self,
        event: Event,
        channels: Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        dispatch!(self, queue_reminders(event, channels, from, to, self.clock.now()))
    }

    /// Reports the leads of the call list sent in `[from, to)` that nobody has called and that
    /// were not reported yet: marks them escalated at `now` and queues `Event::Escalated` on every
    /// channel. Returns how many leads were escalated.
    pub async fn escalate(
        &self,
        channels: Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        dispatch!(self, escalate(channels, from, to, now))
    }

    /// Tells, once per scheduled time, that the time a call set for the next one (the time the
    /// person asked for, or the retry after no answer) has come: the leads whose `next_call_at`
    /// lies in `[since, now]` and was not told yet are marked told and get `Event::CallBackDue` on
    /// every channel, in one write. A lead due since it arrived is not among them: no call set its
    /// time. Returns how many leads were told.
    pub async fn queue_call_backs(
        &self,
        channels: Arc<[Channel]>,
        since: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        dispatch!(self, queue_call_backs(channels, since, now))
    }

    /// The notifications not yet sent, per channel that has any (for the inbox's warning and
    /// `/metrics`).
    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        dispatch!(self, outbox_queues())
    }

    /// Up to `limit` notifications not yet delivered, the next to be tried first.
    pub async fn pending_notifications(&self, limit: u32) -> Result<Vec<PendingNotification>, StoreError> {
        dispatch!(self, pending_notifications(limit))
    }

    /// Makes notification `id` due at once ("send again"), unless a sender is sending it now; with
    /// the audit entry `trail` makes of it, or neither.
    pub async fn resend_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        dispatch!(self, resend_notification(id, now, printable_entry(trail)))
    }

    /// Gives up on notification `id` on purpose: it is never sent. Not while a sender is sending
    /// it: that send may deliver it. With `trail`'s entry, as `resend_notification`.
    pub async fn drop_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        dispatch!(self, drop_notification(id, now, printable_entry(trail)))
    }
}

//! Channels that keep failing: a spell per channel, open until it delivers again, and the notices
//! about it sent through the other channels.

use std::sync::Arc;

use super::{Delivery, Engine, Store, StoreError};
use crate::notice::Channel;

/// A channel with notifications that failed and still wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingChannel {
    pub channel: Channel,
    /// When the oldest of those that have failed long enough to count (`failing_channels`) was
    /// queued (RFC 3339, UTC); `None` while none has.
    pub keeps_failing_since: Option<String>,
    /// Why the newest failing one failed.
    pub last_error: String,
}

/// A notice about a channel's spell, claimed to be sent through `channel`.
#[derive(Debug, Clone)]
pub struct ChannelNoticeJob {
    pub id: i64,
    /// The channel it goes through.
    pub channel: Channel,
    /// The channel it is about.
    pub failing: Channel,
    /// When the spell's oldest failing notification was queued (RFC 3339, UTC).
    pub since: String,
    pub last_error: String,
    /// When the channel delivered again (RFC 3339, UTC), for the notice that says so; `None` for
    /// the notice that it fails.
    pub recovered_at: Option<String>,
    /// Including this one.
    pub attempts: i32,
}

impl Store {
    /// The channels with notifications that failed and still wait, each with when the oldest of
    /// those tried `tries` times or more and queued before `queued_before` was queued.
    pub async fn failing_channels(
        &self,
        tries: i32,
        queued_before: jiff::Timestamp,
    ) -> Result<Vec<FailingChannel>, StoreError> {
        dispatch!(self, failing_channels(tries, queued_before))
    }

    /// The channels with a spell open.
    pub async fn open_outages(&self) -> Result<Vec<Channel>, StoreError> {
        dispatch!(self, open_outages())
    }

    /// Opens a spell for `failing` unless one is open (another instance was first), and queues the
    /// notice that it fails on each of `tell`, in one write. Whether this call opened it.
    pub async fn open_outage(
        &self,
        failing: FailingChannel,
        tell: Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, open_outage(failing, tell, now))
    }

    /// Ends `channel`'s open spell, if it has one, and queues the notice that it delivers again on
    /// each of `tell`, in one write. Whether this call ended it.
    pub async fn close_outage(
        &self,
        channel: Channel,
        tell: Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, close_outage(channel, tell, now))
    }

    /// Claims due notices about channels on `channels` until `lease_until`, as `claim_outbox` does.
    pub async fn claim_channel_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: Arc<[Channel]>,
    ) -> Result<Vec<ChannelNoticeJob>, StoreError> {
        dispatch!(self, claim_channel_notices(now, lease_until, channels))
    }

    /// Records how claimed notices about channels went, sent ones at `now`.
    pub async fn channel_notices_done(
        &self,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        if deliveries.is_empty() {
            return Ok(());
        }
        dispatch!(self, channel_notices_done(deliveries, now))
    }
}

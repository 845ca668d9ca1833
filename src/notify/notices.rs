//! Notices not about a lead, a few a day at most: an account's codes refused, a channel that keeps
//! failing or delivers again. The ones claimed together are sent side by side, so that all of them
//! end within one send's limit, inside their lease (one after the other, two hanging sends
//! outlived it and another instance sent the rest again); retried as the outbox's rows are.

use std::sync::Arc;

use futures_util::future::join_all;

use super::{LEASE, Message, Notifier, POLL, retry_at, retry_wait};
use crate::store::{Delivery, StoreError};

impl Notifier {
    pub(super) async fn notice_loop(self: Arc<Self>) {
        loop {
            if let Err(StoreError::Closed) = self.send_account_notices().await {
                return;
            }
            if let Err(StoreError::Closed) = self.send_channel_notices().await {
                return;
            }
            tokio::select! {
                _ = self.wake_notices.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    }

    async fn send_account_notices(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        let channels = self.settings.notify.channels();
        let jobs = match self.store.claim_account_notices(now, now + LEASE, channels).await {
            Ok(jobs) => jobs,
            Err(StoreError::Closed) => return Err(StoreError::Closed),
            Err(e) => {
                tracing::warn!(error = %e, "reading the account notices");
                return Ok(());
            }
        };
        let deliveries = join_all(jobs.into_iter().map(|job| async move {
            let message = Message::codes_refused(job.id, &job.email, job.refused_until, &self.settings);
            self.notice_delivery(job.id, job.channel, job.attempts, &message).await
        }))
        .await;
        if let Err(e) = self.store.account_notices_done(deliveries).await {
            tracing::warn!(error = %e, "recording how account notices went");
        }
        Ok(())
    }

    async fn send_channel_notices(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        let channels = self.settings.notify.channels();
        let jobs = match self.store.claim_channel_notices(now, now + LEASE, channels).await {
            Ok(jobs) => jobs,
            Err(StoreError::Closed) => return Err(StoreError::Closed),
            Err(e) => {
                tracing::warn!(error = %e, "reading the notices about channels");
                return Ok(());
            }
        };
        let deliveries = join_all(jobs.into_iter().map(|job| async move {
            let message = Message::channel_notice(
                job.id,
                job.failing,
                &job.since,
                &job.last_error,
                job.recovered_at.as_deref(),
                &self.settings,
            );
            self.notice_delivery(job.id, job.channel, job.attempts, &message).await
        }))
        .await;
        if let Err(e) = self.store.channel_notices_done(deliveries, self.clock.now()).await {
            tracing::warn!(error = %e, "recording how notices about channels went");
        }
        Ok(())
    }

    /// Sends notice `id` on `channel`: sent, or to be tried again.
    async fn notice_delivery(
        &self,
        id: i64,
        channel: crate::notice::Channel,
        attempts: i32,
        message: &Message,
    ) -> Delivery {
        match self.deliver(channel, message).await {
            Ok(()) => Delivery::Sent(id),
            Err(error) => {
                tracing::warn!(
                    channel = channel.name(),
                    event = message.event_name(),
                    reason = error.reason,
                    "notice failed; will retry"
                );
                let at = retry_at(self.clock.now(), retry_wait(&error, attempts));
                Delivery::Retry { id, at, error: error.reason }
            }
        }
    }
}

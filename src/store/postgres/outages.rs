//! Channels that keep failing: their spells, and the notices about them.

use super::*;
use crate::store::{ChannelNoticeJob, FailingChannel};

impl PostgresStore {
    pub async fn failing_channels(
        &self,
        tries: i32,
        queued_before: jiff::Timestamp,
    ) -> Result<Vec<FailingChannel>, StoreError> {
        let client = self.client().await?;
        // Only the rows still to send (the due index's), however long the log of sent ones.
        let rows = client
            .query(
                concat!(
                    "SELECT channel, ",
                    text_time!("min(created_at) FILTER (WHERE attempts >= $1 AND created_at < to_timestamp($2))"),
                    ", (SELECT newest.last_error FROM outbox AS newest WHERE newest.channel = failed.channel \
                     AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
                     FROM outbox AS failed WHERE sent_at IS NULL AND last_error IS NOT NULL \
                     GROUP BY channel ORDER BY channel"
                ),
                &[&tries, &seconds(queued_before)],
            )
            .await
            .map_err(unavailable)?;
        // A channel this version does not know (rows written by hand) is left out.
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some(FailingChannel {
                    channel: Channel::from_name(row.get(0))?,
                    keeps_failing_since: row.get(1),
                    last_error: row.get(2),
                })
            })
            .collect())
    }

    pub async fn open_outages(&self) -> Result<Vec<Channel>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query("SELECT channel FROM channel_outages WHERE recovered_at IS NULL", &[])
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().filter_map(|row| Channel::from_name(row.get(0))).collect())
    }

    pub async fn open_outage(
        &self,
        failing: FailingChannel,
        tell: std::sync::Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let Some(since) = failing.keeps_failing_since else { return Ok(false) };
        let client = self.client().await?;
        // One open spell per channel (a unique index): whoever comes second opens nothing.
        let rows = client
            .query(
                "WITH opened AS ( \
                     INSERT INTO channel_outages (channel, since, last_error, opened_at) \
                     VALUES ($1, $2::text::timestamptz, $3, to_timestamp($4)) ON CONFLICT DO NOTHING RETURNING id), \
                 queued AS ( \
                     INSERT INTO channel_notices (outage_id, recovered, channel, created_at, next_attempt_at) \
                     SELECT id, false, channel, to_timestamp($4), to_timestamp($4) FROM opened, unnest($5::text[]) AS channel) \
                 SELECT id FROM opened",
                &[&failing.channel.name(), &since, &failing.last_error, &seconds(now), &channel_names(&tell)],
            )
            .await
            .map_err(unavailable)?;
        Ok(!rows.is_empty())
    }

    pub async fn close_outage(
        &self,
        channel: Channel,
        tell: std::sync::Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "WITH closed AS ( \
                     UPDATE channel_outages SET recovered_at = to_timestamp($2) \
                     WHERE channel = $1 AND recovered_at IS NULL RETURNING id), \
                 queued AS ( \
                     INSERT INTO channel_notices (outage_id, recovered, channel, created_at, next_attempt_at) \
                     SELECT id, true, channel, to_timestamp($2), to_timestamp($2) FROM closed, unnest($3::text[]) AS channel) \
                 SELECT id FROM closed",
                &[&channel.name(), &seconds(now), &channel_names(&tell)],
            )
            .await
            .map_err(unavailable)?;
        Ok(!rows.is_empty())
    }

    pub async fn claim_channel_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<ChannelNoticeJob>, StoreError> {
        let client = self.client().await?;
        let channels = channel_names(&channels);
        // The caller's clock says what is due, as in `claim_outbox`.
        let rows = client
            .query(
                concat!(
                    "UPDATE channel_notices AS n SET locked_until = to_timestamp($1), \
                       attempts = attempts + 1 FROM channel_outages AS o \
                     WHERE o.id = n.outage_id AND n.id IN ( \
                       SELECT id FROM channel_notices WHERE sent_at IS NULL AND next_attempt_at <= to_timestamp($3) \
                       AND (locked_until IS NULL OR locked_until <= to_timestamp($3)) \
                       AND channel = ANY($2) ORDER BY next_attempt_at, id LIMIT 16 FOR UPDATE SKIP LOCKED) \
                     RETURNING n.id, n.channel, o.channel, ",
                    text_time!("o.since"),
                    ", o.last_error, CASE WHEN n.recovered THEN ",
                    text_time!("o.recovered_at"),
                    " END, n.attempts"
                ),
                &[&seconds(lease_until), &channels, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        // Only known names are ever written; a row that says otherwise waits out its lease.
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some(ChannelNoticeJob {
                    id: row.get(0),
                    channel: Channel::from_name(row.get(1))?,
                    failing: Channel::from_name(row.get(2))?,
                    since: row.get(3),
                    last_error: row.get(4),
                    recovered_at: row.get(5),
                    attempts: row.get(6),
                })
            })
            .collect())
    }

    pub async fn channel_notices_done(
        &self,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.notices_done("channel_notices", deliveries, now).await
    }
}

//! Channels that keep failing: their spells, and the notices about them.

use super::*;
use crate::store::{ChannelNoticeJob, FailingChannel};

/// Per channel with failed rows waiting: when the oldest of those tried `?1` times or more was
/// queued (before `?2`), and the newest failure's reason. Only the rows still to send: the short
/// range of the due index, however long the log.
pub(super) const FAILING_CHANNELS: &str = "SELECT channel, \
     min(CASE WHEN attempts >= ?1 AND created_at < ?2 THEN created_at END), \
     (SELECT newest.last_error FROM outbox AS newest INDEXED BY outbox_due WHERE newest.channel = failed.channel \
      AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
     FROM outbox AS failed INDEXED BY outbox_due \
     WHERE sent_at IS NULL AND last_error IS NOT NULL GROUP BY channel ORDER BY channel";

impl SqliteStore {
    pub async fn failing_channels(
        &self,
        tries: i32,
        queued_before: jiff::Timestamp,
    ) -> Result<Vec<FailingChannel>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(FAILING_CHANNELS)?;
            // A channel this version does not know (rows written by hand) is left out.
            let rows = stmt.query_map(params![tries, text(queued_before)], |row| {
                let Some(channel) = Channel::from_name(&row.get::<_, String>(0)?) else { return Ok(None) };
                Ok(Some(FailingChannel {
                    channel,
                    keeps_failing_since: row.get(1)?,
                    last_error: row.get(2)?,
                }))
            })?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    pub async fn open_outages(&self) -> Result<Vec<Channel>, StoreError> {
        self.read(|conn| {
            let mut stmt =
                conn.prepare_cached("SELECT channel FROM channel_outages WHERE recovered_at IS NULL")?;
            let rows = stmt.query_map([], |row| Ok(Channel::from_name(&row.get::<_, String>(0)?)))?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    pub async fn open_outage(
        &self,
        failing: FailingChannel,
        tell: std::sync::Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let Some(since) = failing.keeps_failing_since else { return Ok(false) };
        self.write(move |conn| {
            let now = text(now);
            // One open spell per channel (a unique index): whoever comes second opens nothing.
            let opened: Option<i64> = conn
                .prepare_cached(
                    "INSERT INTO channel_outages (channel, since, last_error, opened_at) \
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING RETURNING id",
                )?
                .query_row(params![failing.channel.name(), since, failing.last_error, now], |row| row.get(0))
                .optional()?;
            let Some(outage) = opened else { return Ok(false) };
            queue_channel_notices(conn, outage, false, &tell, &now)?;
            Ok(true)
        })
        .await
    }

    pub async fn close_outage(
        &self,
        channel: Channel,
        tell: std::sync::Arc<[Channel]>,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            let closed: Option<i64> = conn
                .prepare_cached(
                    "UPDATE channel_outages SET recovered_at = ?2 WHERE channel = ?1 AND recovered_at IS NULL \
                     RETURNING id",
                )?
                .query_row(params![channel.name(), now], |row| row.get(0))
                .optional()?;
            let Some(outage) = closed else { return Ok(false) };
            queue_channel_notices(conn, outage, true, &tell, &now)?;
            Ok(true)
        })
        .await
    }

    pub async fn claim_channel_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<ChannelNoticeJob>, StoreError> {
        self.write(move |conn| {
            let channels = serde_json::to_string(&channel_names(&channels)).expect("strings serialise");
            let mut stmt = conn.prepare_cached(
                "UPDATE channel_notices SET locked_until = ?2, attempts = attempts + 1 WHERE id IN ( \
                   SELECT id FROM channel_notices WHERE sent_at IS NULL AND next_attempt_at <= ?1 \
                   AND (locked_until IS NULL OR locked_until <= ?1) \
                   AND channel IN (SELECT value FROM json_each(?3)) ORDER BY next_attempt_at, id LIMIT 16) \
                 RETURNING id, channel, \
                   (SELECT channel FROM channel_outages AS o WHERE o.id = outage_id), \
                   (SELECT since FROM channel_outages AS o WHERE o.id = outage_id), \
                   (SELECT last_error FROM channel_outages AS o WHERE o.id = outage_id), \
                   CASE WHEN recovered THEN (SELECT recovered_at FROM channel_outages AS o WHERE o.id = outage_id) END, \
                   attempts",
            )?;
            let rows = stmt.query_map(params![text(now), text(lease_until), channels], |row| {
                Ok(ChannelNoticeJob {
                    id: row.get(0)?,
                    channel: named(row, 1, Channel::from_name)?,
                    failing: named(row, 2, Channel::from_name)?,
                    since: row.get(3)?,
                    last_error: row.get(4)?,
                    recovered_at: row.get(5)?,
                    attempts: row.get(6)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn channel_notices_done(
        &self,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.notices_done("channel_notices", deliveries, now).await
    }
}

/// Queues the notice about spell `outage` (that it began, or that it ended) on each of `tell`.
fn queue_channel_notices(
    conn: &Connection,
    outage: i64,
    recovered: bool,
    tell: &[Channel],
    now: &str,
) -> rusqlite::Result<()> {
    let mut queue = conn.prepare_cached(
        "INSERT INTO channel_notices (outage_id, recovered, channel, created_at, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT DO NOTHING",
    )?;
    for channel in tell {
        queue.execute(params![outage, recovered, channel.name(), now])?;
    }
    Ok(())
}

//! The notification outbox: claiming due rows, marking them sent or for a retry, reminders.

use super::*;
use crate::store::inbox::on_the_clock_sql;
use crate::store::{PendingNotification, WaitingChange};

/// Per channel: unsent rows, those that failed, the oldest's time, the newest failure's reason.
const OUTBOX_QUEUES: &str = "SELECT channel, count(*), count(last_error), min(created_at), \
     (SELECT newest.last_error FROM outbox AS newest INDEXED BY outbox_due WHERE newest.channel = queued.channel \
      AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
     FROM outbox AS queued WHERE sent_at IS NULL GROUP BY channel ORDER BY channel";

impl SqliteStore {
    pub async fn claim_outbox(
        &self,
        done: Vec<Delivery>,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            record_deliveries(conn, &done, &now)?;
            if limit == 0 || channels.is_empty() {
                return Ok(Vec::new());
            }
            // The channels as a JSON array, read by json_each: one statement whatever their number.
            let channels = serde_json::to_string(&channel_names(&channels)).expect("strings serialise");
            let mut stmt = conn.prepare_cached(
                "UPDATE outbox SET locked_until = ?2, attempts = attempts + 1 WHERE id IN ( \
                   SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ?1 \
                   AND (locked_until IS NULL OR locked_until <= ?1) \
                   AND channel IN (SELECT value FROM json_each(?4)) ORDER BY next_attempt_at, id LIMIT ?3) \
                 RETURNING id, lead_id, event, channel, attempts",
            )?;
            // Only known names are ever written; a row that says otherwise (a newer release's
            // event, after a rollback) waits out its lease, and the others are sent.
            let rows = stmt.query_map(params![now, text(lease_until), limit, channels], |row| {
                let (event, channel): (String, String) = (row.get(2)?, row.get(3)?);
                let (Some(event), Some(channel)) = (Event::from_name(&event), Channel::from_name(&channel))
                else {
                    return Ok(None);
                };
                Ok(Some(OutboxJob {
                    id: row.get(0)?,
                    lead_id: row.get(1)?,
                    event,
                    channel,
                    attempts: row.get(4)?,
                }))
            })?;
            let mut jobs: Vec<OutboxJob> = rows.filter_map(Result::transpose).collect::<Result<_, _>>()?;
            jobs.sort_by_key(|job| job.id);
            Ok(jobs)
        })
        .await
    }

    pub async fn queue_reminders(
        &self,
        event: Event,
        channels: std::sync::Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        let now = text(now);
        self.write(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 SELECT id, ?1, ?2, ?3, ?3 FROM \"CRN\" \
                 WHERE {} AND created_at >= ?4 AND created_at < ?5 \
                 ON CONFLICT (lead_id, event, channel) DO NOTHING",
                on_the_clock_sql("\"CRN\"")
            ))?;
            let (from, to) = (text(from), text(to));
            let mut queued = 0;
            for channel in channels.iter() {
                queued += stmt.execute(params![event.name(), channel.name(), now, from, to])?;
            }
            Ok(queued)
        })
        .await
    }

    pub async fn escalate(
        &self,
        channels: std::sync::Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            // The terms of the partial index "CRN_to_escalate", as written there.
            let ids: Vec<i64> = conn
                .prepare_cached(&format!(
                    "UPDATE \"CRN\" INDEXED BY \"CRN_to_escalate\" SET escalated_at = ?1 \
                     WHERE escalated_at IS NULL AND next_call_at IS NOT NULL AND call_back = 0 \
                     AND created_at >= ?2 AND created_at < ?3 AND status IN ({}) \
                     AND NOT EXISTS (SELECT 1 FROM call_attempts WHERE lead_id = \"CRN\".id) \
                     RETURNING id",
                    open_statuses_sql()
                ))?
                .query_map(params![now, text(from), text(to)], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let mut queue = conn.prepare_cached(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (lead_id, event, channel) DO NOTHING",
            )?;
            for id in &ids {
                for channel in channels.iter() {
                    queue.execute(params![id, Event::Escalated.name(), channel.name(), now])?;
                }
            }
            Ok(ids.len())
        })
        .await
    }

    pub async fn queue_call_backs(
        &self,
        channels: std::sync::Arc<[Channel]>,
        since: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            // The terms of the partial index "CRN_call_back_to_tell", as written there.
            let ids: Vec<i64> = conn
                .prepare_cached(
                    "UPDATE \"CRN\" INDEXED BY \"CRN_call_back_to_tell\" SET call_back_told = next_call_at \
                     WHERE call_back = 1 AND next_call_at IS NOT NULL AND call_back_told IS NOT next_call_at \
                     AND next_call_at >= ?1 AND next_call_at <= ?2 RETURNING id",
                )?
                .query_map(params![text(since), now], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            // One row per lead, event and channel: an earlier call-back's row is queued again.
            let mut queue = conn.prepare_cached(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (lead_id, event, channel) DO UPDATE SET \
                 created_at = excluded.created_at, next_attempt_at = excluded.next_attempt_at, \
                 attempts = 0, last_error = NULL, sent_at = NULL, dropped_at = NULL",
            )?;
            for id in &ids {
                for channel in channels.iter() {
                    queue.execute(params![id, Event::CallBackDue.name(), channel.name(), now])?;
                }
            }
            Ok(ids.len())
        })
        .await
    }

    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(OUTBOX_QUEUES)?;
            // A channel this version does not know (rows written by hand) is left out.
            let rows = stmt.query_map([], |row| {
                let Some(channel) = Channel::from_name(&row.get::<_, String>(0)?) else { return Ok(None) };
                Ok(Some(ChannelQueue {
                    channel,
                    waiting: row.get(1)?,
                    failing: row.get(2)?,
                    oldest_at: row.get(3)?,
                    last_error: row.get(4)?,
                }))
            })?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    pub async fn pending_notifications(&self, limit: u32) -> Result<Vec<PendingNotification>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {PENDING_COLUMNS} FROM outbox WHERE sent_at IS NULL ORDER BY next_attempt_at, id LIMIT ?1"
            ))?;
            // A row with a name this version does not know (written by hand) is left out.
            let rows = stmt.query_map(params![limit], |row| Ok(pending_notification(row).ok()))?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    pub async fn resend_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        self.change_waiting("next_attempt_at = ?2, locked_until = NULL", id, now, trail).await
    }

    pub async fn drop_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        self.change_waiting("sent_at = ?2, dropped_at = ?2, locked_until = NULL", id, now, trail).await
    }

    /// Sets `set` (`?2` is `now`) on notification `id` if it still waits and no sender holds it,
    /// with the entry `trail` makes of it.
    async fn change_waiting(
        &self,
        set: &'static str,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            let mut stmt = conn.prepare_cached(&format!(
                "UPDATE outbox SET {set} WHERE id = ?1 AND sent_at IS NULL \
                 AND (locked_until IS NULL OR locked_until <= ?2) RETURNING {PENDING_COLUMNS}"
            ))?;
            if let Some(changed) = stmt.query_row(params![id, now], pending_notification).optional()? {
                super::audit::append(conn, &trail(&changed), &now)?;
                return Ok(WaitingChange::Changed(changed));
            }
            let waits = conn
                .query_row("SELECT 1 FROM outbox WHERE id = ?1 AND sent_at IS NULL", [id], |_| Ok(()))
                .optional()?;
            Ok(if waits.is_some() { WaitingChange::BeingSent } else { WaitingChange::NotWaiting })
        })
        .await
    }
}

/// The columns `pending_notification` reads.
const PENDING_COLUMNS: &str =
    "id, lead_id, event, channel, created_at, attempts, next_attempt_at, last_error";

fn pending_notification(row: &rusqlite::Row) -> rusqlite::Result<PendingNotification> {
    Ok(PendingNotification {
        id: row.get(0)?,
        lead_id: row.get(1)?,
        event: named(row, 2, Event::from_name)?,
        channel: named(row, 3, Channel::from_name)?,
        created_at: row.get(4)?,
        attempts: row.get(5)?,
        next_attempt_at: row.get(6)?,
        last_error: row.get(7)?,
    })
}

/// Marks each delivered notification sent at `now`, and frees each failed one for its retry.
fn record_deliveries(conn: &Connection, deliveries: &[Delivery], now: &str) -> rusqlite::Result<()> {
    let mut sent = conn.prepare_cached(
        "UPDATE outbox SET sent_at = ?2, locked_until = NULL, last_error = NULL WHERE id = ?1",
    )?;
    let mut retry = conn.prepare_cached(
        "UPDATE outbox SET next_attempt_at = ?2, locked_until = NULL, last_error = ?3 WHERE id = ?1",
    )?;
    for delivery in deliveries {
        match delivery {
            Delivery::Sent(id) => sent.execute(params![id, now])?,
            Delivery::Retry { id, at, error } => retry.execute(params![id, text(*at), error])?,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outbox keeps every sent row until its lead goes: millions in a year. What waits is read
    /// from the due index alone, so an inbox's figures each minute cost the waiting rows only.
    #[tokio::test]
    async fn what_waits_is_read_without_walking_the_sent_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        let plan = |sql: &'static str| {
            store.read(move |conn| {
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let parameters = std::iter::repeat_n(0, stmt.parameter_count());
                let rows =
                    stmt.query_map(rusqlite::params_from_iter(parameters), |row| row.get::<_, String>(3))?;
                rows.collect::<Result<Vec<_>, _>>()
            })
        };
        for sql in [OUTBOX_QUEUES, super::super::outages::FAILING_CHANNELS] {
            let plan = plan(sql).await.unwrap();
            assert!(
                plan.iter().all(|step| !step.starts_with("SCAN") || step.contains("outbox_due")),
                "{plan:?}"
            );
        }
    }
}

//! The notification outbox: claiming due rows, marking them sent or for a retry, reminders.

use super::*;
use crate::store::inbox::on_the_clock_sql;
use crate::store::{PendingNotification, WaitingChange};

impl PostgresStore {
    pub async fn claim_outbox(
        &self,
        done: Vec<Delivery>,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        limit: u32,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<OutboxJob>, StoreError> {
        let client = self.client().await?;
        record_deliveries(&client, done, now).await?;
        if limit == 0 || channels.is_empty() {
            return Ok(Vec::new());
        }
        let channels = channel_names(&channels);
        // The caller's clock says what is due and whose lease has run out (ADR 0035): instances
        // keep their clocks within a second of each other (NTP), far inside a lease.
        // SKIP LOCKED: instances claiming at the same moment take different rows, never wait.
        let rows = client
            .query(
                "UPDATE outbox SET locked_until = to_timestamp($1), attempts = attempts + 1 \
                 WHERE id IN ( \
                   SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= to_timestamp($4) \
                   AND (locked_until IS NULL OR locked_until <= to_timestamp($4)) \
                   AND channel = ANY($3) ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) \
                 RETURNING id, lead_id, event, channel, attempts",
                &[&seconds(lease_until), &i64::from(limit), &channels, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        // Only known names are ever written; a row that says otherwise waits out its lease.
        let mut jobs: Vec<OutboxJob> = rows
            .iter()
            .filter_map(|row| {
                Some(OutboxJob {
                    id: row.get(0),
                    lead_id: row.get(1),
                    event: Event::from_name(row.get(2))?,
                    channel: Channel::from_name(row.get(3))?,
                    attempts: row.get(4),
                })
            })
            .collect();
        jobs.sort_by_key(|job| job.id);
        Ok(jobs)
    }

    pub async fn queue_reminders(
        &self,
        event: Event,
        channels: std::sync::Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let channels = channel_names(&channels);
        let queued = client
            .execute(
                &format!(
                    "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                     SELECT id, $1, channel, to_timestamp($5), to_timestamp($5) FROM \"CRN\", unnest($2::text[]) AS channel \
                     WHERE {} AND created_at >= to_timestamp($3) AND created_at < to_timestamp($4) \
                     ON CONFLICT (lead_id, event, channel) DO NOTHING",
                    on_the_clock_sql("\"CRN\"")
                ),
                &[&event.name(), &channels, &seconds(from), &seconds(to), &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(queued as usize)
    }

    pub async fn escalate(
        &self,
        channels: std::sync::Arc<[Channel]>,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let channels = channel_names(&channels);
        // The terms of the partial index "CRN_to_escalate", as written there.
        let rows = client
            .query(
                &format!(
                    "WITH escalated AS ( \
                     UPDATE \"CRN\" SET escalated_at = to_timestamp($1) \
                     WHERE escalated_at IS NULL AND next_call_at IS NOT NULL AND NOT call_back \
                     AND created_at >= to_timestamp($2) AND created_at < to_timestamp($3) AND status IN ({}) \
                     AND NOT EXISTS (SELECT 1 FROM call_attempts WHERE lead_id = \"CRN\".id) \
                     RETURNING id), \
                 queued AS ( \
                     INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                     SELECT id, $4, channel, to_timestamp($1), to_timestamp($1) FROM escalated, unnest($5::text[]) AS channel \
                     ON CONFLICT (lead_id, event, channel) DO NOTHING) \
                 SELECT id FROM escalated",
                    open_statuses_sql()
                ),
                &[&seconds(now), &seconds(from), &seconds(to), &Event::Escalated.name(), &channels],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.len())
    }

    pub async fn queue_call_backs(
        &self,
        channels: std::sync::Arc<[Channel]>,
        since: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let channels = channel_names(&channels);
        // The terms of the partial index "CRN_call_back_to_tell", as written there. Of instances
        // scanning at once, the second finds the row told already (it waits for the first's lock,
        // then reads it again). One row per lead, event and channel: an earlier call-back's row is
        // queued again.
        let rows = client
            .query(
                "WITH told AS ( \
                     UPDATE \"CRN\" SET call_back_told = next_call_at \
                     WHERE call_back AND next_call_at IS NOT NULL AND call_back_told IS DISTINCT FROM next_call_at \
                     AND next_call_at >= to_timestamp($1) AND next_call_at <= to_timestamp($2) RETURNING id), \
                 queued AS ( \
                     INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                     SELECT id, $3, channel, to_timestamp($2), to_timestamp($2) FROM told, unnest($4::text[]) AS channel \
                     ON CONFLICT (lead_id, event, channel) DO UPDATE SET created_at = to_timestamp($2), \
                     next_attempt_at = to_timestamp($2), attempts = 0, last_error = NULL, sent_at = NULL, dropped_at = NULL) \
                 SELECT id FROM told",
                &[&seconds(since), &seconds(now), &Event::CallBackDue.name(), &channels],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.len())
    }

    pub async fn outbox_queues(&self) -> Result<Vec<ChannelQueue>, StoreError> {
        let client = self.client().await?;
        // Per channel: unsent rows, those that failed, the oldest's time, the newest failure's reason.
        let rows = client
            .query(
                concat!(
                    "SELECT channel, count(*), count(last_error), ",
                    text_time!("min(created_at)"),
                    ", (SELECT newest.last_error FROM outbox AS newest WHERE newest.channel = queued.channel \
                     AND newest.sent_at IS NULL AND newest.last_error IS NOT NULL ORDER BY newest.id DESC LIMIT 1) \
                     FROM outbox AS queued WHERE sent_at IS NULL GROUP BY channel ORDER BY channel"
                ),
                &[],
            )
            .await
            .map_err(unavailable)?;
        // A channel this version does not know (rows written by hand) is left out.
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some(ChannelQueue {
                    channel: Channel::from_name(row.get(0))?,
                    waiting: row.get(1),
                    failing: row.get(2),
                    oldest_at: row.get(3),
                    last_error: row.get(4),
                })
            })
            .collect())
    }

    pub async fn pending_notifications(&self, limit: u32) -> Result<Vec<PendingNotification>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {PENDING_COLUMNS} FROM outbox WHERE sent_at IS NULL \
                     ORDER BY next_attempt_at, id LIMIT $1"
                ),
                &[&i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        // A row with a name this version does not know (written by hand) is left out.
        Ok(rows.iter().filter_map(pending_notification).collect())
    }

    pub async fn resend_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        self.change_waiting("next_attempt_at = to_timestamp($2), locked_until = NULL", id, now, trail).await
    }

    pub async fn drop_notification(
        &self,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        let set = "sent_at = to_timestamp($2), dropped_at = to_timestamp($2), locked_until = NULL";
        self.change_waiting(set, id, now, trail).await
    }

    /// Sets `set` on notification `$1` if it still waits and no sender holds it (`$2` is now),
    /// with the entry `trail` makes of it.
    async fn change_waiting(
        &self,
        set: &str,
        id: i64,
        now: jiff::Timestamp,
        trail: EntryOf<PendingNotification>,
    ) -> Result<WaitingChange, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let row = tx
            .query_opt(
                &format!(
                    "UPDATE outbox SET {set} WHERE id = $1 AND sent_at IS NULL \
                     AND (locked_until IS NULL OR locked_until <= to_timestamp($2)) RETURNING {PENDING_COLUMNS}"
                ),
                &[&id, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        if let Some(row) = row {
            // A channel this version does not know (a row written by hand) is as good as gone: left
            // as it was.
            let Some(changed) = pending_notification(&row) else {
                tx.rollback().await.map_err(unavailable)?;
                return Ok(WaitingChange::NotWaiting);
            };
            super::audit::append(&*tx, &[&trail(&changed)], seconds(now)).await?;
            tx.commit().await.map_err(unavailable)?;
            return Ok(WaitingChange::Changed(changed));
        }
        tx.rollback().await.map_err(unavailable)?;
        let waits = client
            .query_opt("SELECT 1 FROM outbox WHERE id = $1 AND sent_at IS NULL", &[&id])
            .await
            .map_err(unavailable)?;
        Ok(if waits.is_some() { WaitingChange::BeingSent } else { WaitingChange::NotWaiting })
    }
}

/// The columns `pending_notification` reads.
const PENDING_COLUMNS: &str = concat!(
    "id, lead_id, event, channel, ",
    text_time!("created_at"),
    ", attempts, ",
    text_time!("next_attempt_at"),
    ", last_error"
);

fn pending_notification(row: &tokio_postgres::Row) -> Option<PendingNotification> {
    Some(PendingNotification {
        id: row.get(0),
        lead_id: row.get(1),
        event: Event::from_name(row.get(2))?,
        channel: Channel::from_name(row.get(3))?,
        created_at: row.get(4),
        attempts: row.get(5),
        next_attempt_at: row.get(6),
        last_error: row.get(7),
    })
}

/// Marks each delivered notification sent at `now`, and frees each failed one for its retry.
async fn record_deliveries(
    client: &tokio_postgres::Client,
    deliveries: Vec<Delivery>,
    now: jiff::Timestamp,
) -> Result<(), StoreError> {
    let now = seconds(now);
    let mut sent = Vec::new();
    let (mut retry_ids, mut retry_at, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for delivery in deliveries {
        match delivery {
            Delivery::Sent(id) => sent.push(id),
            Delivery::Retry { id, at, error } => {
                retry_ids.push(id);
                retry_at.push(seconds(at));
                errors.push(error);
            }
        }
    }
    if !sent.is_empty() {
        client
            .execute(
                "UPDATE outbox SET sent_at = to_timestamp($2), locked_until = NULL, last_error = NULL \
                 WHERE id = ANY($1)",
                &[&sent, &now],
            )
            .await
            .map_err(unavailable)?;
    }
    if !retry_ids.is_empty() {
        client
            .execute(
                "UPDATE outbox SET next_attempt_at = to_timestamp(retry.at), \
                 locked_until = NULL, last_error = retry.error \
                 FROM unnest($1::bigint[], $2::float8[], $3::text[]) AS retry (id, at, error) \
                 WHERE outbox.id = retry.id",
                &[&retry_ids, &retry_at, &errors],
            )
            .await
            .map_err(unavailable)?;
    }
    Ok(())
}

//! The visitor's leads: the insert (with its idempotency record and outbox rows), the pages of an
//! export, erasure, retention and release from quarantine.

use super::*;

impl PostgresStore {
    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: InsertContext,
        idempotency: Option<Idempotency>,
    ) -> Result<Vec<Stored>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        if let Some(idempotency) = &idempotency {
            // Instances share no memory: the key is claimed with a lock held until this commit.
            // One that cannot take it, or takes it only after another request recorded the key,
            // stores nothing and says so. Two statements: the record is read with a snapshot
            // taken after the lock, which sees a commit that released it.
            let locked: bool = tx
                .query_one(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended('Idempotency-Key ' || $1, 0))",
                    &[&idempotency.key],
                )
                .await
                .map_err(unavailable)?
                .get(0);
            let recorded = locked
                && tx
                    .query_opt(
                        "SELECT 1 FROM idempotency_keys WHERE key = $1 \
                         AND created_at >= now() - make_interval(secs => $2)",
                        &[&idempotency.key, &(IDEMPOTENCY_WINDOW.as_secs_f64())],
                    )
                    .await
                    .map_err(unavailable)?
                    .is_some();
            if !locked || recorded {
                return Err(StoreError::IdempotencyKeyTaken);
            }
        }
        let insert = tx
            .prepare_cached(&format!(
                "INSERT INTO \"CRN\" \
                 (name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held, \
                  utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING {LEAD_COLUMNS}"
            ))
            .await
            .map_err(unavailable)?;
        let window_seconds = context.duplicate_window.map(|w| w.as_secs_f64());
        let mut stored = Vec::with_capacity(leads.len());
        for lead in &leads {
            let held = held_text(&lead.held);
            let mut repeat_of: Option<i64> = None;
            // A held lead stands alone: it must not make a person's real lead its repeat.
            if let Some(seconds) = window_seconds.filter(|_| held.is_none()) {
                // Two instances taking the same phone at once: the lock (held until commit) makes
                // the second see the first's row.
                tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lead.phone_e164])
                    .await
                    .map_err(unavailable)?;
                repeat_of = tx
                    .query_opt(
                        "SELECT id FROM \"CRN\" WHERE phone_e164 = $1 AND repeat_of IS NULL AND held IS NULL \
                         AND created_at >= now() - make_interval(secs => $2) ORDER BY id LIMIT 1",
                        &[&lead.phone_e164, &seconds],
                    )
                    .await
                    .map_err(unavailable)?
                    .map(|row| row.get(0));
            }
            let source = lead.attribution.values();
            let row = tx
                .query_one(
                    &insert,
                    &[
                        &lead.name,
                        &lead.phone,
                        &lead.phone_e164,
                        &lead.confirmation,
                        &lead.comment,
                        &&*context.policy_version,
                        &repeat_of,
                        &held,
                        &source[0],
                        &source[1],
                        &source[2],
                        &source[3],
                        &source[4],
                        &source[5],
                    ],
                )
                .await
                .map_err(unavailable)?;
            let lead = lead_from(&row);
            // A repeat's first lead was notified already; a held lead is notified once released.
            if repeat_of.is_none() && held.is_none() && !context.channels.is_empty() {
                let channels = channel_names(&context.channels);
                tx.execute(
                    "INSERT INTO outbox (lead_id, event, channel) SELECT $1, 'new', unnest($2::text[])",
                    &[&lead.id, &channels],
                )
                .await
                .map_err(unavailable)?;
            }
            stored.push(Stored { lead, repeat_of });
        }
        if let Some(idempotency) = &idempotency {
            let ids: Vec<i64> = stored.iter().map(|row| row.lead.id).collect();
            tx.execute(
                "INSERT INTO idempotency_keys (key, fingerprint, lead_ids) VALUES ($1, $2, $3) \
                 ON CONFLICT (key) DO NOTHING",
                &[&idempotency.key, &idempotency.fingerprint, &ids],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(stored)
    }

    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT fingerprint, lead_ids FROM idempotency_keys \
                 WHERE key = $1 AND created_at >= to_timestamp($2)",
                &[&key, &(since.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let purged = client
            .execute(
                "DELETE FROM idempotency_keys WHERE created_at < to_timestamp($1)",
                &[&(before.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(purged as usize)
    }

    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {LEAD_COLUMNS} FROM \"CRN\" JOIN unnest($1::bigint[]) WITH ORDINALITY AS wanted(id, n) \
                     USING (id) ORDER BY n"
                ),
                &[&ids],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(lead_from).collect())
    }

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after_id, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn erase_phone(&self, phone_e164: String) -> Result<usize, StoreError> {
        self.delete_leads("phone_e164 = $1", &phone_e164).await
    }

    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("created_at < to_timestamp($1)", &seconds(before)).await
    }

    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("held IS NOT NULL AND created_at < to_timestamp($1)", &seconds(before)).await
    }

    pub async fn release(&self, id: i64, channels: std::sync::Arc<[Channel]>) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let released = tx
            .execute("UPDATE \"CRN\" SET held = NULL WHERE id = $1 AND held IS NOT NULL", &[&id])
            .await
            .map_err(unavailable)?;
        if released == 0 {
            return Ok(false);
        }
        let channels = channel_names(&channels);
        tx.execute(
            "INSERT INTO outbox (lead_id, event, channel) SELECT $1, 'new', unnest($2::text[]) \
             ON CONFLICT (lead_id, event, channel) DO NOTHING",
            &[&id, &channels],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    /// Deletes the leads `condition` picks and the repeats that name them, their calls and
    /// notifications (by cascade) and the idempotency records that name them, in one statement: atomic without a transaction left
    /// open between round trips (the hourly purge runs in the background, and a transaction held
    /// open while the task waits would block anyone altering those tables meanwhile).
    async fn delete_leads(
        &self,
        condition: &str,
        value: &(dyn tokio_postgres::types::ToSql + Sync),
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                &format!(
                    "WITH gone AS (DELETE FROM \"CRN\" WHERE ({condition}) \
                       OR repeat_of IN (SELECT id FROM \"CRN\" WHERE {condition}) RETURNING id), \
                     forgotten AS (DELETE FROM idempotency_keys \
                       WHERE lead_ids && (SELECT coalesce(array_agg(id), '{{}}') FROM gone)) \
                     SELECT count(*) FROM gone"
                ),
                &[value],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.get::<_, i64>(0) as usize)
    }
}

fn lead_from(row: &Row) -> Lead {
    Lead {
        id: row.get(0),
        created_at: row.get(1),
        name: row.get(2),
        phone: row.get(3),
        confirmation: row.get(4),
        comment: row.get(5),
    }
}

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
        // One statement per lead: the duplicate lookup is its subquery and the outbox rows its
        // second part, so a lead costs one round trip (plus the lock's, sent in the same flight).
        let insert = tx
            .prepare_cached(&format!(
                "WITH new AS ( \
                   INSERT INTO \"CRN\" \
                   (name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held, \
                    utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer) \
                   VALUES ($1, $2, $3, $4, $5, $6, \
                     (SELECT id FROM \"CRN\" WHERE $7::float8 IS NOT NULL AND phone_e164 = $3 \
                      AND repeat_of IS NULL AND held IS NULL \
                      AND created_at >= now() - make_interval(secs => $7) ORDER BY id LIMIT 1), \
                     $8, $9, $10, $11, $12, $13, $14) \
                   RETURNING id, created_at, name, phone, confirmation, comment, repeat_of, held), \
                 queued AS ( \
                   INSERT INTO outbox (lead_id, event, channel) \
                   SELECT new.id, 'new', channel FROM new, unnest($15::text[]) AS channel \
                   WHERE new.repeat_of IS NULL AND new.held IS NULL) \
                 SELECT {LEAD_COLUMNS}, repeat_of FROM new"
            ))
            .await
            .map_err(unavailable)?;
        let lock =
            tx.prepare_cached("SELECT pg_advisory_xact_lock(hashtext($1))").await.map_err(unavailable)?;
        let window_seconds = context.duplicate_window.map(|w| w.as_secs_f64());
        // A repeat's first lead was notified already and a held lead is notified once released:
        // the statement writes outbox rows for neither.
        let channels = channel_names(&context.channels);
        let mut stored = Vec::with_capacity(leads.len());
        for lead in &leads {
            let held = held_text(&lead.held);
            // A held lead stands alone: it must not make a person's real lead its repeat.
            let window = window_seconds.filter(|_| held.is_none());
            let source = lead.attribution.values();
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 15] = [
                &lead.name,
                &lead.phone,
                &lead.phone_e164,
                &lead.confirmation,
                &lead.comment,
                &&*context.policy_version,
                &window,
                &held,
                &source[0],
                &source[1],
                &source[2],
                &source[3],
                &source[4],
                &source[5],
                &channels,
            ];
            // Two instances taking the same phone at once: the lock (held until commit) makes the
            // second see the first's row. The insert is sent without waiting for the lock's answer
            // (tokio-postgres pipelines queries polled together); PostgreSQL still runs it after
            // the lock is taken, so its snapshot sees every row committed before.
            let row = if window.is_some() {
                let phone: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&lead.phone_e164];
                let (_, row) = tokio::try_join!(tx.execute(&lock, &phone), tx.query_one(&insert, &params))
                    .map_err(unavailable)?;
                row
            } else {
                tx.query_one(&insert, &params).await.map_err(unavailable)?
            };
            let lead = lead_from(&row);
            let repeat_of: Option<i64> = row.get(6);
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

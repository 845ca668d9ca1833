//! Operators' second factor: the secret being set up, the confirmed one, the last step used and
//! the recovery codes.

use super::*;
use crate::store::{AccountNoticeJob, CodeLimit, FactorConfirmed, StoredSecrets};

impl PostgresStore {
    pub async fn start_second_factor(&self, operator_id: i64, secret: String) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let started = client
            .execute(
                "UPDATE operators SET totp_pending = $2 WHERE id = $1 AND totp_secret IS NULL",
                &[&operator_id, &secret],
            )
            .await
            .map_err(unavailable)?;
        Ok(started == 1)
    }

    pub async fn confirm_second_factor(
        &self,
        confirmed: FactorConfirmed,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let FactorConfirmed { operator_id, secret, step, code_hashes, session_token_hash } = confirmed;
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let confirmed = tx
            .execute(
                "UPDATE operators SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = $3 \
                 WHERE id = $1 AND totp_secret IS NULL AND totp_pending = $2",
                &[&operator_id, &secret, &step],
            )
            .await
            .map_err(unavailable)?;
        if confirmed == 1 {
            replace_recovery_codes(&tx, operator_id, &code_hashes).await?;
            tx.execute(
                "DELETE FROM operator_sessions WHERE operator_id = $1 AND token_hash <> $2",
                &[&operator_id, &session_token_hash],
            )
            .await
            .map_err(unavailable)?;
            tx.execute(
                "UPDATE operator_sessions SET second_factor_passed = true WHERE token_hash = $1",
                &[&session_token_hash],
            )
            .await
            .map_err(unavailable)?;
            super::audit::append(&*tx, &[&trail], seconds(now)).await?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(confirmed == 1)
    }

    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let used = client
            .execute(
                "UPDATE operators SET totp_last_step = $2, code_failures = 0, code_refusals = 0 \
                 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)",
                &[&operator_id, &step],
            )
            .await
            .map_err(unavailable)?;
        Ok(used == 1)
    }

    pub async fn use_recovery_code(
        &self,
        operator_id: i64,
        code_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let used = client
            .execute(
                "UPDATE recovery_codes SET used_at = to_timestamp($3) \
                 WHERE operator_id = $1 AND code_hash = $2 AND used_at IS NULL",
                &[&operator_id, &code_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(used == 1)
    }

    pub async fn recovery_codes_left(&self, operator_id: i64) -> Result<i64, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                "SELECT count(*) FROM recovery_codes WHERE operator_id = $1 AND used_at IS NULL",
                &[&operator_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.get(0))
    }

    pub async fn second_factor_secrets(&self) -> Result<Vec<StoredSecrets>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT id, totp_secret, totp_pending FROM operators \
                 WHERE totp_secret IS NOT NULL OR totp_pending IS NOT NULL ORDER BY id",
                &[],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| StoredSecrets { operator_id: row.get(0), secret: row.get(1), pending: row.get(2) })
            .collect())
    }

    pub async fn replace_second_factor_secrets(
        &self,
        before: StoredSecrets,
        after: StoredSecrets,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let replaced = client
            .execute(
                "UPDATE operators SET totp_secret = $4, totp_pending = $5 \
                 WHERE id = $1 AND totp_secret IS NOT DISTINCT FROM $2 AND totp_pending IS NOT DISTINCT FROM $3",
                &[&before.operator_id, &before.secret, &before.pending, &after.secret, &after.pending],
            )
            .await
            .map_err(unavailable)?;
        Ok(replaced == 1)
    }

    pub async fn code_failed(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
        limit: CodeLimit,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The row stays locked to the commit: instances counting at once take turns.
        let row = tx
            .query_one(
                "UPDATE operators SET code_failures = code_failures + 1 WHERE id = $1 \
                 RETURNING code_failures, code_refusals",
                &[&operator_id],
            )
            .await
            .map_err(unavailable)?;
        let (failures, refusals): (i32, i32) = (row.get(0), row.get(1));
        if i64::from(failures) < limit.in_a_row {
            tx.commit().await.map_err(unavailable)?;
            return Ok(None);
        }
        let until = now + (limit.refusal)(i64::from(refusals));
        tx.execute(
            "UPDATE operators SET code_failures = 0, code_refusals = code_refusals + 1, \
             codes_refused_until = to_timestamp($2) WHERE id = $1",
            &[&operator_id, &seconds(until)],
        )
        .await
        .map_err(unavailable)?;
        for channel in channels.iter() {
            tx.execute(
                "INSERT INTO account_notices (operator_id, refused_until, channel, created_at, next_attempt_at) \
                 VALUES ($1, to_timestamp($2), $3, to_timestamp($4), to_timestamp($4))",
                &[&operator_id, &seconds(until), &channel.name(), &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(until))
    }

    pub async fn codes_refused_until(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT extract(epoch FROM codes_refused_until)::float8 FROM operators \
                 WHERE id = $1 AND codes_refused_until > to_timestamp($2)",
                &[&operator_id, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.and_then(|row| timestamp(row.get(0))))
    }

    pub async fn claim_account_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<AccountNoticeJob>, StoreError> {
        let client = self.client().await?;
        let channels = channel_names(&channels);
        // The caller's clock says what is due, as in `claim_outbox`.
        let rows = client
            .query(
                "UPDATE account_notices AS n SET locked_until = to_timestamp($1), \
                   attempts = attempts + 1 FROM operators AS o \
                 WHERE o.id = n.operator_id AND n.id IN ( \
                   SELECT id FROM account_notices WHERE sent_at IS NULL AND next_attempt_at <= to_timestamp($3) \
                   AND (locked_until IS NULL OR locked_until <= to_timestamp($3)) \
                   AND channel = ANY($2) ORDER BY next_attempt_at, id LIMIT 16 FOR UPDATE SKIP LOCKED) \
                 RETURNING n.id, o.email, extract(epoch FROM n.refused_until)::float8, n.channel, n.attempts",
                &[&seconds(lease_until), &channels, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .filter_map(|row| {
                Some(AccountNoticeJob {
                    id: row.get(0),
                    email: row.get(1),
                    refused_until: timestamp(row.get(2))?,
                    channel: Channel::from_name(row.get(3))?,
                    attempts: row.get(4),
                })
            })
            .collect())
    }

    pub async fn account_notices_done(
        &self,
        deliveries: Vec<Delivery>,
        now: jiff::Timestamp,
    ) -> Result<(), StoreError> {
        self.notices_done("account_notices", deliveries, now).await
    }

    pub async fn reset_second_factor(
        &self,
        email: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let Some(row) = tx
            .query_opt(
                "UPDATE operators SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL, \
                 code_failures = 0, code_refusals = 0, codes_refused_until = NULL \
                 WHERE email = $1 RETURNING id",
                &[&email],
            )
            .await
            .map_err(unavailable)?
        else {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(false);
        };
        let id: i64 = row.get(0);
        replace_recovery_codes(&tx, id, &[]).await?;
        tx.execute("DELETE FROM operator_sessions WHERE operator_id = $1", &[&id])
            .await
            .map_err(unavailable)?;
        super::audit::append(&*tx, &[&trail], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }
}

async fn replace_recovery_codes(
    tx: &deadpool_postgres::Transaction<'_>,
    operator_id: i64,
    code_hashes: &[String],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM recovery_codes WHERE operator_id = $1", &[&operator_id])
        .await
        .map_err(unavailable)?;
    for hash in code_hashes {
        tx.execute(
            "INSERT INTO recovery_codes (operator_id, code_hash) VALUES ($1, $2)",
            &[&operator_id, hash],
        )
        .await
        .map_err(unavailable)?;
    }
    Ok(())
}

/// A time read as seconds since the epoch.
fn timestamp(epoch_seconds: f64) -> Option<jiff::Timestamp> {
    jiff::Timestamp::from_microsecond((epoch_seconds * 1_000_000.0).round() as i64).ok()
}

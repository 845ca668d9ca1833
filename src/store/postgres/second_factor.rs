//! Operators' second factor: the secret being set up, the confirmed one, the last step used and
//! the recovery codes.

use super::*;

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
        operator_id: i64,
        secret: String,
        step: i64,
        code_hashes: Vec<String>,
        session_token_hash: String,
    ) -> Result<bool, StoreError> {
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
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(confirmed == 1)
    }

    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let used = client
            .execute(
                "UPDATE operators SET totp_last_step = $2 \
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

    pub async fn reset_second_factor(&self, email: String) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let Some(row) = tx
            .query_opt(
                "UPDATE operators SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL \
                 WHERE email = $1 RETURNING id",
                &[&email],
            )
            .await
            .map_err(unavailable)?
        else {
            return Ok(false);
        };
        let id: i64 = row.get(0);
        replace_recovery_codes(&tx, id, &[]).await?;
        tx.execute("DELETE FROM operator_sessions WHERE operator_id = $1", &[&id])
            .await
            .map_err(unavailable)?;
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

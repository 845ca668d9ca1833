//! Operators' second factor: the secret being set up, the confirmed one, the last step used and
//! the recovery codes.

use super::*;

impl SqliteStore {
    pub async fn start_second_factor(&self, operator_id: i64, secret: String) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let started = conn.execute(
                "UPDATE operators SET totp_pending = ?2 WHERE id = ?1 AND totp_secret IS NULL",
                params![operator_id, secret],
            )?;
            Ok(started == 1)
        })
        .await
    }

    pub async fn confirm_second_factor(
        &self,
        operator_id: i64,
        secret: String,
        step: i64,
        code_hashes: Vec<String>,
        session_token_hash: String,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let confirmed = conn.execute(
                "UPDATE operators SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = ?3 \
                 WHERE id = ?1 AND totp_secret IS NULL AND totp_pending = ?2",
                params![operator_id, secret, step],
            )?;
            if confirmed == 1 {
                replace_recovery_codes(conn, operator_id, &code_hashes)?;
                conn.execute(
                    "DELETE FROM operator_sessions WHERE operator_id = ?1 AND token_hash <> ?2",
                    params![operator_id, session_token_hash],
                )?;
                conn.execute(
                    "UPDATE operator_sessions SET second_factor_passed = 1 WHERE token_hash = ?1",
                    [&session_token_hash],
                )?;
            }
            Ok(confirmed == 1)
        })
        .await
    }

    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let used = conn.execute(
                "UPDATE operators SET totp_last_step = ?2 \
                 WHERE id = ?1 AND (totp_last_step IS NULL OR totp_last_step < ?2)",
                params![operator_id, step],
            )?;
            Ok(used == 1)
        })
        .await
    }

    pub async fn use_recovery_code(
        &self,
        operator_id: i64,
        code_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let used = conn.execute(
                "UPDATE recovery_codes SET used_at = ?3 \
                 WHERE operator_id = ?1 AND code_hash = ?2 AND used_at IS NULL",
                params![operator_id, code_hash, text(now)],
            )?;
            Ok(used == 1)
        })
        .await
    }

    pub async fn recovery_codes_left(&self, operator_id: i64) -> Result<i64, StoreError> {
        self.read(move |conn| {
            conn.query_row(
                "SELECT count(*) FROM recovery_codes WHERE operator_id = ?1 AND used_at IS NULL",
                [operator_id],
                |row| row.get(0),
            )
        })
        .await
    }

    pub async fn reset_second_factor(&self, email: String) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let Some(id) = conn
                .query_row("SELECT id FROM operators WHERE email = ?1", [&email], |row| row.get::<_, i64>(0))
                .optional()?
            else {
                return Ok(false);
            };
            conn.execute(
                "UPDATE operators SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL WHERE id = ?1",
                [id],
            )?;
            replace_recovery_codes(conn, id, &[])?;
            conn.execute("DELETE FROM operator_sessions WHERE operator_id = ?1", [id])?;
            Ok(true)
        })
        .await
    }
}

fn replace_recovery_codes(
    conn: &Connection,
    operator_id: i64,
    code_hashes: &[String],
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM recovery_codes WHERE operator_id = ?1", [operator_id])?;
    let mut insert = conn.prepare("INSERT INTO recovery_codes (operator_id, code_hash) VALUES (?1, ?2)")?;
    for hash in code_hashes {
        insert.execute(params![operator_id, hash])?;
    }
    Ok(())
}

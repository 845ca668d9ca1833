//! Operators' second factor: the secret being set up, the confirmed one, the last step used and
//! the recovery codes.

use super::*;
use crate::store::{AccountNoticeJob, CodeLimit, FactorConfirmed, StoredSecrets};

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
        confirmed: FactorConfirmed,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let FactorConfirmed { operator_id, secret, step, code_hashes, session_token_hash } = confirmed;
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
                super::audit::append(conn, &trail, &text(now))?;
            }
            Ok(confirmed == 1)
        })
        .await
    }

    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let used = conn.execute(
                "UPDATE operators SET totp_last_step = ?2, code_failures = 0, code_refusals = 0 \
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

    pub async fn second_factor_secrets(&self) -> Result<Vec<StoredSecrets>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT id, totp_secret, totp_pending FROM operators \
                 WHERE totp_secret IS NOT NULL OR totp_pending IS NOT NULL ORDER BY id",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(StoredSecrets { operator_id: row.get(0)?, secret: row.get(1)?, pending: row.get(2)? })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn replace_second_factor_secrets(
        &self,
        before: StoredSecrets,
        after: StoredSecrets,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let replaced = conn.execute(
                "UPDATE operators SET totp_secret = ?4, totp_pending = ?5 \
                 WHERE id = ?1 AND totp_secret IS ?2 AND totp_pending IS ?3",
                params![before.operator_id, before.secret, before.pending, after.secret, after.pending],
            )?;
            Ok(replaced == 1)
        })
        .await
    }

    pub async fn code_failed(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
        limit: CodeLimit,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        self.write(move |conn| {
            let (failures, refusals): (i64, i64) = conn.query_row(
                "UPDATE operators SET code_failures = code_failures + 1 WHERE id = ?1 \
                 RETURNING code_failures, code_refusals",
                [operator_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            if failures < limit.in_a_row {
                return Ok(None);
            }
            let until = now + (limit.refusal)(refusals);
            conn.execute(
                "UPDATE operators SET code_failures = 0, code_refusals = code_refusals + 1, \
                 codes_refused_until = ?2 WHERE id = ?1",
                params![operator_id, text(until)],
            )?;
            let mut notice = conn.prepare_cached(
                "INSERT INTO account_notices (operator_id, refused_until, channel, created_at, next_attempt_at) \
                 VALUES (?1, ?2, ?3, ?4, ?4)",
            )?;
            for channel in channels.iter() {
                notice.execute(params![operator_id, text(until), channel.name(), text(now)])?;
            }
            Ok(Some(until))
        })
        .await
    }

    pub async fn codes_refused_until(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        let until: Option<String> = self
            .read(move |conn| {
                conn.query_row(
                    "SELECT codes_refused_until FROM operators WHERE id = ?1 AND codes_refused_until > ?2",
                    params![operator_id, text(now)],
                    |row| row.get(0),
                )
                .optional()
            })
            .await?;
        Ok(until.and_then(|until| until.parse().ok()))
    }

    pub async fn claim_account_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: std::sync::Arc<[Channel]>,
    ) -> Result<Vec<AccountNoticeJob>, StoreError> {
        self.write(move |conn| {
            let channels = serde_json::to_string(&channel_names(&channels)).expect("strings serialise");
            let mut stmt = conn.prepare_cached(
                "UPDATE account_notices SET locked_until = ?2, attempts = attempts + 1 WHERE id IN ( \
                   SELECT id FROM account_notices WHERE sent_at IS NULL AND next_attempt_at <= ?1 \
                   AND (locked_until IS NULL OR locked_until <= ?1) \
                   AND channel IN (SELECT value FROM json_each(?3)) ORDER BY next_attempt_at, id LIMIT 16) \
                 RETURNING id, (SELECT email FROM operators WHERE operators.id = operator_id), \
                   refused_until, channel, attempts",
            )?;
            let rows = stmt.query_map(params![text(now), text(lease_until), channels], |row| {
                Ok(AccountNoticeJob {
                    id: row.get(0)?,
                    email: row.get(1)?,
                    refused_until: row.get::<_, String>(2)?.parse().unwrap_or(now),
                    channel: named(row, 3, Channel::from_name)?,
                    attempts: row.get(4)?,
                })
            })?;
            rows.collect()
        })
        .await
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
        self.write(move |conn| {
            let Some(id) = conn
                .query_row("SELECT id FROM operators WHERE email = ?1", [&email], |row| row.get::<_, i64>(0))
                .optional()?
            else {
                return Ok(false);
            };
            conn.execute(
                "UPDATE operators SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL, \
                 code_failures = 0, code_refusals = 0, codes_refused_until = NULL WHERE id = ?1",
                [id],
            )?;
            replace_recovery_codes(conn, id, &[])?;
            conn.execute("DELETE FROM operator_sessions WHERE operator_id = ?1", [id])?;
            super::audit::append(conn, &trail, &text(now))?;
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

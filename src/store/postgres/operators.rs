//! Operator accounts, the first start's setup token, and sessions.

use super::*;
use crate::store::operators::Credentials;

const HAS_OPERATOR: &str = "SELECT EXISTS (SELECT 1 FROM operators)";

impl PostgresStore {
    pub async fn add_operator(
        &self,
        email: String,
        password_hash: String,
        role: Option<Role>,
        now: jiff::Timestamp,
        trail: EntryOf<Role>,
    ) -> Result<Option<Role>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // Two first accounts added at once: one of them is the admin.
        tx.execute("LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE", &[]).await.map_err(unavailable)?;
        // The first account is an admin, whatever was asked: else nobody could run the team.
        let has_operator: bool = tx.query_one(HAS_OPERATOR, &[]).await.map_err(unavailable)?.get(0);
        let role = if has_operator { role.unwrap_or(Role::Operator) } else { Role::Admin };
        let added = tx
            .execute(
                "INSERT INTO operators (email, password_hash, role, created_at) \
                 VALUES ($1, $2, $3, to_timestamp($4)) ON CONFLICT (email) DO NOTHING",
                &[&email, &password_hash, &role.name(), &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        if added == 0 {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(None);
        }
        super::audit::append(&*tx, &[&trail(&role)], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(role))
    }

    pub async fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT email, role, ",
                    text_time!("created_at"),
                    ", totp_secret IS NOT NULL FROM operators ORDER BY id"
                ),
                &[],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| Account {
                email: row.get(0),
                role: role_of(row.get(1)),
                created_at: row.get(2),
                second_factor: row.get(3),
            })
            .collect())
    }

    pub async fn set_role(
        &self,
        email: String,
        role: Role,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        self.change_account(email, Some(role), now, trail).await
    }

    pub async fn remove_operator(
        &self,
        email: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        self.change_account(email, None, now, trail).await
    }

    /// Gives the account `role`, or removes it (`None`), with `trail`; under a lock, so two admins
    /// demoting each other at once cannot leave the team without one.
    async fn change_account(
        &self,
        email: String,
        role: Option<Role>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        tx.execute("LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE", &[]).await.map_err(unavailable)?;
        let Some(row) = tx
            .query_opt("SELECT id, role FROM operators WHERE email = $1", &[&email])
            .await
            .map_err(unavailable)?
        else {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(AccountChange::NoSuchOperator);
        };
        let (id, current): (i64, Role) = (row.get(0), role_of(row.get(1)));
        if current == Role::Admin && role != Some(Role::Admin) {
            let admins: i64 = tx
                .query_one("SELECT count(*) FROM operators WHERE role = 'admin'", &[])
                .await
                .map_err(unavailable)?
                .get(0);
            if admins <= 1 {
                tx.rollback().await.map_err(unavailable)?;
                return Ok(AccountChange::LastAdmin);
            }
        }
        if role != Some(current) {
            tx.execute("DELETE FROM operator_sessions WHERE operator_id = $1", &[&id])
                .await
                .map_err(unavailable)?;
            match role {
                Some(role) => {
                    tx.execute("UPDATE operators SET role = $2 WHERE id = $1", &[&id, &role.name()]).await
                }
                None => tx.execute("DELETE FROM operators WHERE id = $1", &[&id]).await,
            }
            .map_err(unavailable)?;
        }
        super::audit::append(&*tx, &[&trail], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(AccountChange::Done)
    }

    pub async fn set_password(
        &self,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let changed = tx
            .execute("UPDATE operators SET password_hash = $2 WHERE email = $1", &[&email, &password_hash])
            .await
            .map_err(unavailable)?;
        if changed == 0 {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(false);
        }
        tx.execute(
            "DELETE FROM operator_sessions WHERE operator_id IN (SELECT id FROM operators WHERE email = $1)",
            &[&email],
        )
        .await
        .map_err(unavailable)?;
        super::audit::append(&*tx, &[&trail], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT id, email, password_hash, role, totp_secret, totp_pending FROM operators WHERE email = $1",
                &[&email],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| Operator {
            id: row.get(0),
            email: row.get(1),
            password_hash: row.get(2),
            role: role_of(row.get(3)),
            totp_secret: row.get(4),
            totp_pending: row.get(5),
        }))
    }

    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let has_operator: bool = tx.query_one(HAS_OPERATOR, &[]).await.map_err(unavailable)?.get(0);
        if has_operator {
            tx.execute("DELETE FROM setup_tokens", &[]).await.map_err(unavailable)?;
        } else {
            tx.execute("DELETE FROM setup_tokens WHERE expires_at <= to_timestamp($1)", &[&seconds(now)])
                .await
                .map_err(unavailable)?;
            tx.execute(
                "INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, to_timestamp($2))",
                &[&token_hash, &seconds(expires_at)],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(!has_operator)
    }

    pub async fn setup_token_valid(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                &format!(
                    "SELECT EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = $1 AND expires_at > to_timestamp($2)) \
                     AND NOT ({HAS_OPERATOR})"
                ),
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.get(0))
    }

    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
        trail: EntryOf<Operator>,
    ) -> Result<Option<Operator>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // Two instances taking two links at once: one of them creates the first operator.
        tx.execute("LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE", &[]).await.map_err(unavailable)?;
        let used = tx
            .execute(
                "DELETE FROM setup_tokens WHERE token_hash = $1 AND expires_at > to_timestamp($2)",
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        let has_operator: bool = tx.query_one(HAS_OPERATOR, &[]).await.map_err(unavailable)?.get(0);
        if used == 0 || has_operator {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(None);
        }
        let id: i64 = tx
            .query_one(
                "INSERT INTO operators (email, password_hash, role, created_at) \
                 VALUES ($1, $2, $3, to_timestamp($4)) RETURNING id",
                &[&email, &password_hash, &Role::Admin.name(), &seconds(now)],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        tx.execute("DELETE FROM setup_tokens", &[]).await.map_err(unavailable)?;
        let operator =
            Operator { id, email, password_hash, role: Role::Admin, totp_secret: None, totp_pending: None };
        super::audit::append(&*tx, &[&trail(&operator)], seconds(now)).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(operator))
    }

    pub async fn create_session(
        &self,
        token_hash: String,
        Credentials { operator_id, password_hash, totp_secret }: Credentials,
        csrf_token: String,
        expires_at: jiff::Timestamp,
        second_factor_passed: bool,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        // FOR SHARE waits for a change of the password or factor being committed, and then reads
        // the account as it changed it.
        let created = client
            .execute(
                "INSERT INTO operator_sessions \
                 (token_hash, operator_id, csrf_token, created_at, seen_at, expires_at, second_factor_passed) \
                 SELECT $1, id, $3, to_timestamp($6), to_timestamp($6), to_timestamp($4), $5 FROM operators \
                 WHERE id = $2 AND password_hash = $7 AND totp_secret IS NOT DISTINCT FROM $8 FOR SHARE",
                &[
                    &token_hash,
                    &operator_id,
                    &csrf_token,
                    &seconds(expires_at),
                    &second_factor_passed,
                    &seconds(now),
                    &password_hash,
                    &totp_secret,
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(created == 1)
    }

    pub async fn session(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
        seen_due_before: jiff::Timestamp,
    ) -> Result<Option<Session>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT s.operator_id, o.email, s.csrf_token, o.role, o.totp_secret IS NOT NULL, \
                 s.seen_at < to_timestamp($3) FROM operator_sessions s \
                 JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = $1 AND s.expires_at > to_timestamp($2) \
                 AND (o.totp_secret IS NULL OR s.second_factor_passed)",
                &[&token_hash, &seconds(now), &seconds(seen_due_before)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| Session {
            token_hash: token_hash.clone(),
            operator_id: row.get(0),
            email: row.get(1),
            csrf_token: row.get(2),
            role: role_of(row.get(3)),
            second_factor: row.get(4),
            seen_due: row.get(5),
        }))
    }

    pub async fn session_seen(&self, token_hash: String, now: jiff::Timestamp) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE operator_sessions SET seen_at = to_timestamp($2) WHERE token_hash = $1",
                &[&token_hash, &seconds(now)],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute("DELETE FROM operator_sessions WHERE token_hash = $1", &[&token_hash])
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let purged = client
            .execute("DELETE FROM operator_sessions WHERE expires_at < to_timestamp($1)", &[&seconds(before)])
            .await
            .map_err(unavailable)?;
        Ok(purged as usize)
    }
}

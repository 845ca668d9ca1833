//! Operator accounts, the first start's setup token, and sessions.

use super::*;
use crate::store::operators::Credentials;

impl SqliteStore {
    pub async fn add_operator(
        &self,
        email: String,
        password_hash: String,
        role: Option<Role>,
        now: jiff::Timestamp,
        trail: EntryOf<Role>,
    ) -> Result<Option<Role>, StoreError> {
        self.write(move |conn| {
            // The first account is an admin, whatever was asked: else nobody could run the team.
            let role = if has_operator(conn)? { role.unwrap_or(Role::Operator) } else { Role::Admin };
            let now = text(now);
            let added = conn.execute(
                "INSERT INTO operators (email, password_hash, created_at, role) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (email) DO NOTHING",
                params![email, password_hash, now, role.name()],
            )?;
            Ok(super::audit::audited(conn, added, &trail(&role), &now)?.then_some(role))
        })
        .await
    }

    pub async fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT email, role, created_at, totp_secret IS NOT NULL FROM operators ORDER BY id",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(Account {
                    email: row.get(0)?,
                    role: role_of(&row.get::<_, String>(1)?),
                    created_at: row.get(2)?,
                    second_factor: row.get(3)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn set_role(
        &self,
        email: String,
        role: Role,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        self.write(move |conn| {
            let Some((id, current)) = account_role(conn, &email)? else {
                return Ok(AccountChange::NoSuchOperator);
            };
            if current == Role::Admin && role != Role::Admin && admins(conn)? <= 1 {
                return Ok(AccountChange::LastAdmin);
            }
            if current != role {
                conn.execute("UPDATE operators SET role = ?2 WHERE id = ?1", params![id, role.name()])?;
                conn.execute("DELETE FROM operator_sessions WHERE operator_id = ?1", [id])?;
            }
            super::audit::append(conn, &trail, &text(now))?;
            Ok(AccountChange::Done)
        })
        .await
    }

    pub async fn remove_operator(
        &self,
        email: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        self.write(move |conn| {
            let Some((id, current)) = account_role(conn, &email)? else {
                return Ok(AccountChange::NoSuchOperator);
            };
            if current == Role::Admin && admins(conn)? <= 1 {
                return Ok(AccountChange::LastAdmin);
            }
            conn.execute("DELETE FROM operator_sessions WHERE operator_id = ?1", [id])?;
            conn.execute("DELETE FROM operators WHERE id = ?1", [id])?;
            super::audit::append(conn, &trail, &text(now))?;
            Ok(AccountChange::Done)
        })
        .await
    }

    pub async fn set_password(
        &self,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let changed =
                conn.execute("UPDATE operators SET password_hash = ?2 WHERE email = ?1", params![email, password_hash])?;
            if changed == 0 {
                return Ok(false);
            }
            conn.execute(
                "DELETE FROM operator_sessions WHERE operator_id IN (SELECT id FROM operators WHERE email = ?1)",
                [&email],
            )?;
            super::audit::append(conn, &trail, &text(now))?;
            Ok(true)
        })
        .await
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        self.read(move |conn| {
            conn.query_row(
                "SELECT id, email, password_hash, role, totp_secret, totp_pending FROM operators WHERE email = ?1",
                [email],
                |row| {
                    Ok(Operator {
                        id: row.get(0)?,
                        email: row.get(1)?,
                        password_hash: row.get(2)?,
                        role: role_of(&row.get::<_, String>(3)?),
                        totp_secret: row.get(4)?,
                        totp_pending: row.get(5)?,
                    })
                },
            )
            .optional()
        })
        .await
    }

    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            if has_operator(conn)? {
                conn.execute("DELETE FROM setup_tokens", [])?;
                return Ok(false);
            }
            conn.execute("DELETE FROM setup_tokens WHERE expires_at <= ?1", [text(now)])?;
            conn.execute(
                "INSERT INTO setup_tokens (token_hash, expires_at) VALUES (?1, ?2)",
                params![token_hash, text(expires_at)],
            )?;
            Ok(true)
        })
        .await
    }

    pub async fn setup_token_valid(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.read(move |conn| {
            let found = conn
                .query_row(
                    "SELECT 1 FROM setup_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                    params![token_hash, text(now)],
                    |_| Ok(()),
                )
                .optional()?;
            Ok(found.is_some() && !has_operator(conn)?)
        })
        .await
    }

    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
        now: jiff::Timestamp,
        trail: EntryOf<Operator>,
    ) -> Result<Option<Operator>, StoreError> {
        self.write(move |conn| {
            let used = conn.execute(
                "DELETE FROM setup_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                params![token_hash, text(now)],
            )?;
            if used == 0 || has_operator(conn)? {
                return Ok(None);
            }
            conn.execute(
                "INSERT INTO operators (email, password_hash, created_at, role) VALUES (?1, ?2, ?3, ?4)",
                params![email, password_hash, text(now), Role::Admin.name()],
            )?;
            let operator = Operator {
                id: conn.last_insert_rowid(),
                email,
                password_hash,
                role: Role::Admin,
                totp_secret: None,
                totp_pending: None,
            };
            conn.execute("DELETE FROM setup_tokens", [])?;
            super::audit::append(conn, &trail(&operator), &text(now))?;
            Ok(Some(operator))
        })
        .await
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
        self.write(move |conn| {
            let created = conn.execute(
                "INSERT INTO operator_sessions \
                 (token_hash, operator_id, csrf_token, created_at, seen_at, expires_at, second_factor_passed) \
                 SELECT ?1, id, ?3, ?4, ?4, ?5, ?6 FROM operators \
                 WHERE id = ?2 AND password_hash = ?7 AND totp_secret IS ?8",
                params![
                    token_hash,
                    operator_id,
                    csrf_token,
                    text(now),
                    text(expires_at),
                    second_factor_passed,
                    password_hash,
                    totp_secret
                ],
            )?;
            Ok(created == 1)
        })
        .await
    }

    pub async fn session(
        &self,
        token_hash: String,
        now: jiff::Timestamp,
        seen_due_before: jiff::Timestamp,
    ) -> Result<Option<Session>, StoreError> {
        // A session without `seen_at` (written by hand, or by an older version) is written down now.
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT s.operator_id, o.email, s.csrf_token, o.role, o.totp_secret IS NOT NULL, \
                 coalesce(s.seen_at < ?3, 1) FROM operator_sessions s \
                 JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = ?1 AND s.expires_at > ?2 \
                 AND (o.totp_secret IS NULL OR s.second_factor_passed)",
            )?
            .query_row(params![token_hash, text(now), text(seen_due_before)], |row| {
                Ok(Session {
                    token_hash: token_hash.clone(),
                    operator_id: row.get(0)?,
                    email: row.get(1)?,
                    csrf_token: row.get(2)?,
                    role: role_of(&row.get::<_, String>(3)?),
                    second_factor: row.get(4)?,
                    seen_due: row.get(5)?,
                })
            })
            .optional()
        })
        .await
    }

    pub async fn session_seen(&self, token_hash: String, now: jiff::Timestamp) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute(
                "UPDATE operator_sessions SET seen_at = ?2 WHERE token_hash = ?1",
                params![token_hash, text(now)],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        self.write(move |conn| {
            conn.execute("DELETE FROM operator_sessions WHERE token_hash = ?1", [token_hash])?;
            Ok(())
        })
        .await
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.write(move |conn| {
            conn.execute("DELETE FROM operator_sessions WHERE expires_at < ?1", [text(before)])
        })
        .await
    }
}

fn account_role(conn: &Connection, email: &str) -> rusqlite::Result<Option<(i64, Role)>> {
    conn.query_row("SELECT id, role FROM operators WHERE email = ?1", [email], |row| {
        Ok((row.get(0)?, role_of(&row.get::<_, String>(1)?)))
    })
    .optional()
}

fn admins(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM operators WHERE role = 'admin'", [], |row| row.get(0))
}

fn has_operator(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT EXISTS (SELECT 1 FROM operators)", [], |row| row.get(0))
}

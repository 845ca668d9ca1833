//! Who has a lead (taken, or handed out) and the figures per source and per operator.

use rusqlite::named_params;

use super::*;

/// A claim that holds at `:now`: a lead handed out (no end) or taken until a later time.
const LIVE: &str = "(claimed_by IS NOT NULL AND (claimed_until IS NULL OR claimed_until > :now))";

impl SqliteStore {
    pub async fn take(
        &self,
        id: i64,
        operator_id: i64,
        until: jiff::Timestamp,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            // SET reads the row as it was: a lead handed to this operator keeps having no end.
            let sql = format!(
                "UPDATE \"CRN\" SET claimed_by = :operator, claimed_until = \
                 CASE WHEN claimed_by = :operator AND claimed_until IS NULL THEN NULL ELSE :until END \
                 WHERE id = :id AND repeat_of IS NULL AND held IS NULL AND status IN ({open}) \
                 AND NOT ({LIVE} AND claimed_by <> :operator)",
                open = open_statuses_sql()
            );
            let now = text(now);
            let changed = conn.prepare_cached(&sql)?.execute(named_params! {
                ":id": id, ":operator": operator_id, ":until": text(until), ":now": now,
            })?;
            super::audit::audited(conn, changed, &trail, &now)
        })
        .await
    }

    pub async fn give_back(
        &self,
        id: i64,
        operator_id: i64,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let sql = format!(
                "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL \
                 WHERE id = :id AND claimed_by = :operator AND {LIVE}"
            );
            let now = text(now);
            let changed = conn
                .prepare_cached(&sql)?
                .execute(named_params! { ":id": id, ":operator": operator_id, ":now": now })?;
            super::audit::audited(conn, changed, &trail, &now)
        })
        .await
    }

    pub async fn hand_to(
        &self,
        id: i64,
        operator_id: Option<i64>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let changed = conn.execute(
                "UPDATE \"CRN\" SET claimed_by = ?2, claimed_until = NULL \
                 WHERE id = ?1 AND held IS NULL AND repeat_of IS NULL",
                params![id, operator_id],
            )?;
            super::audit::audited(conn, changed, &trail, &text(now))
        })
        .await
    }

    pub async fn hand_out_in_turn(
        &self,
        ids: Vec<i64>,
        now: jiff::Timestamp,
        on_shift_since: jiff::Timestamp,
        require_2fa: bool,
    ) -> Result<usize, StoreError> {
        self.write(move |conn| {
            let mut handed = 0;
            for id in ids {
                let previous: i64 = conn
                    .query_row("SELECT value FROM zayavka_meta WHERE key = 'assign_turn'", [], |row| {
                        row.get::<_, String>(0)
                    })
                    .optional()?
                    .and_then(|value| value.parse().ok())
                    .unwrap_or(0);
                // The first operator at work after the previous one, else the first of all.
                let next: Option<i64> = conn
                    .prepare_cached(
                        "SELECT id FROM operators WHERE role = 'operator' \
                         AND (NOT ?4 OR totp_secret IS NOT NULL) AND EXISTS \
                         (SELECT 1 FROM operator_sessions WHERE operator_id = operators.id \
                          AND expires_at > ?2 AND seen_at >= ?3) \
                         ORDER BY id > ?1 DESC, id LIMIT 1",
                    )?
                    .query_row(params![previous, text(now), text(on_shift_since), require_2fa], |row| {
                        row.get(0)
                    })
                    .optional()?;
                let Some(next) = next else { break };
                let changed = conn.execute(
                    "UPDATE \"CRN\" SET claimed_by = ?2, claimed_until = NULL \
                     WHERE id = ?1 AND claimed_by IS NULL AND repeat_of IS NULL AND held IS NULL",
                    params![id, next],
                )?;
                if changed == 1 {
                    conn.execute(
                        "INSERT INTO zayavka_meta (key, value) VALUES ('assign_turn', ?1) \
                         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [next.to_string()],
                    )?;
                    handed += 1;
                }
            }
            Ok(handed)
        })
        .await
    }
}

//! Who has a lead (taken, or handed out) and the figures per source and per operator.

use super::*;

impl PostgresStore {
    pub async fn take(
        &self,
        id: i64,
        operator_id: i64,
        until: jiff::Timestamp,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        // SET reads the row as it was: a lead handed to this operator keeps having no end. The
        // row's lock makes two operators taking it at once one after the other: the second sees
        // the first's claim.
        let sql = format!(
            "UPDATE \"CRN\" SET claimed_by = $2, claimed_until = \
             CASE WHEN claimed_by = $2 AND claimed_until IS NULL THEN NULL ELSE to_timestamp($3) END \
             WHERE id = $1 AND repeat_of IS NULL AND held IS NULL AND status IN ({open}) \
             AND NOT (claimed_by IS NOT NULL AND claimed_by <> $2 \
                      AND (claimed_until IS NULL OR claimed_until > to_timestamp($4)))",
            open = open_statuses_sql()
        );
        self.audited_change(&sql, &[&id, &operator_id, &seconds(until), &seconds(now)], &trail, now).await
    }

    pub async fn give_back(
        &self,
        id: i64,
        operator_id: i64,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL \
                   WHERE id = $1 AND claimed_by = $2 \
                   AND (claimed_until IS NULL OR claimed_until > to_timestamp($3))";
        self.audited_change(sql, &[&id, &operator_id, &seconds(now)], &trail, now).await
    }

    pub async fn hand_to(
        &self,
        id: i64,
        operator_id: Option<i64>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE \"CRN\" SET claimed_by = $2, claimed_until = NULL \
                   WHERE id = $1 AND held IS NULL AND repeat_of IS NULL";
        self.audited_change(sql, &[&id, &operator_id], &trail, now).await
    }

    pub async fn hand_out_in_turn(
        &self,
        ids: Vec<i64>,
        now: jiff::Timestamp,
        on_shift_since: jiff::Timestamp,
        require_2fa: bool,
    ) -> Result<usize, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // Instances share the turn: its row's lock makes them take turns one after the other.
        tx.execute(
            "INSERT INTO zayavka_meta (key, value) VALUES ('assign_turn', '0') ON CONFLICT (key) DO NOTHING",
            &[],
        )
        .await
        .map_err(unavailable)?;
        let previous: String = tx
            .query_one("SELECT value FROM zayavka_meta WHERE key = 'assign_turn' FOR UPDATE", &[])
            .await
            .map_err(unavailable)?
            .get(0);
        let mut previous: i64 = previous.parse().unwrap_or(0);
        let mut handed = 0;
        for id in ids {
            // The first operator at work after the previous one, else the first of all.
            let next = tx
                .query_opt(
                    "SELECT id FROM operators WHERE role = 'operator' \
                     AND (NOT $4 OR totp_secret IS NOT NULL) AND EXISTS \
                     (SELECT 1 FROM operator_sessions WHERE operator_id = operators.id \
                      AND expires_at > to_timestamp($2) AND seen_at >= to_timestamp($3)) \
                     ORDER BY id > $1 DESC, id LIMIT 1",
                    &[&previous, &seconds(now), &seconds(on_shift_since), &require_2fa],
                )
                .await
                .map_err(unavailable)?;
            let Some(next) = next.map(|row| row.get::<_, i64>(0)) else { break };
            let changed = tx
                .execute(
                    "UPDATE \"CRN\" SET claimed_by = $2, claimed_until = NULL \
                     WHERE id = $1 AND claimed_by IS NULL AND repeat_of IS NULL AND held IS NULL",
                    &[&id, &next],
                )
                .await
                .map_err(unavailable)?;
            if changed == 1 {
                previous = next;
                handed += 1;
            }
        }
        tx.execute("UPDATE zayavka_meta SET value = $1 WHERE key = 'assign_turn'", &[&previous.to_string()])
            .await
            .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(handed)
    }
}

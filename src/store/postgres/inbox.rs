//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the figures.

use super::*;

impl PostgresStore {
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        let (holder_id, nobody, now) = query.holder.parameters();
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND (held IS NOT NULL) = $7 AND ($1::bigint IS NULL OR id < $1) \
                       AND ($2::text IS NULL OR translate(lower(name), 'ʼ’`', repeat(chr(39), 3)) LIKE $2 ESCAPE '\\') \
                       AND ($3::text IS NULL OR phone_e164 LIKE $3) \
                       AND (NOT $4 OR status IN ({open})) \
                       AND ($5::float8 IS NULL OR created_at < to_timestamp($5)) \
                       AND ($10::float8 IS NULL OR ((claimed_by IS NOT NULL \
                            AND (claimed_until IS NULL OR claimed_until > to_timestamp($10))) = (NOT $9) \
                            AND ($8::bigint IS NULL OR claimed_by = $8))) \
                     ORDER BY id DESC LIMIT $6",
                    open = open_statuses_sql()
                ),
                &[
                    &query.before_id,
                    &query.name_pattern,
                    &query.phone_pattern,
                    &query.open_only,
                    &query.created_before.map(seconds),
                    &i64::from(query.limit),
                    &query.held,
                    &holder_id,
                    &nobody,
                    &now.map(seconds),
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        // `next_call_at` is set only on open leads of the call list (held leads, repeats and
        // closed leads have none), so the range read on its partial index is the whole filter.
        let rows = client
            .query(
                &format!(
                    "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                     WHERE next_call_at IS NOT NULL AND next_call_at <= to_timestamp($1) \
                     ORDER BY call_back DESC, CASE WHEN call_back THEN next_call_at ELSE created_at END, id \
                     LIMIT $2"
                ),
                &[&seconds(now), &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(&format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id = $1"), &[&id])
            .await
            .map_err(unavailable)?;
        Ok(row.as_ref().map(record_from))
    }

    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE repeat_of = $1 ORDER BY id"),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT id, ",
                    text_time!("at"),
                    ", operator, outcome, note FROM call_attempts WHERE lead_id = $1 ORDER BY id"
                ),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| Attempt {
                id: row.get(0),
                at: row.get(1),
                operator: row.get(2),
                outcome: row.get(3),
                note: row.get(4),
            })
            .collect())
    }

    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
        plan: CallPlan,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The lock keeps two operators' calls from counting the same unanswered calls.
        let exists = tx
            .query_opt("SELECT 1 FROM \"CRN\" WHERE id = $1 FOR UPDATE", &[&lead_id])
            .await
            .map_err(unavailable)?;
        if exists.is_none() {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO call_attempts (lead_id, operator, outcome, note) VALUES ($1, $2, $3, $4)",
            &[&lead_id, &operator, &outcome.as_str(), &note],
        )
        .await
        .map_err(unavailable)?;
        let unanswered: i64 = tx
            .query_one(
                "SELECT count(*) FROM call_attempts WHERE lead_id = $1 AND outcome = 'no_answer'",
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        // Only a lead of the call list is due for calls: not a held one, nor a repeat.
        let next_call_at = plan.next_call_at(outcome, unanswered).map(seconds);
        tx.execute(
            "UPDATE \"CRN\" SET status = $2, \
             reached_at = CASE WHEN $3 AND reached_at IS NULL THEN now() ELSE reached_at END, \
             next_call_at = CASE WHEN held IS NULL AND repeat_of IS NULL THEN to_timestamp($4) END, \
             call_back = $4::float8 IS NOT NULL WHERE id = $1",
            &[&lead_id, &outcome.status_after(unanswered).name(), &outcome.reached(), &next_call_at],
        )
        .await
        .map_err(unavailable)?;
        // The caller's own claim ends with their call; a lead handed to them (no end) stays.
        tx.execute(
            "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 \
             AND claimed_until IS NOT NULL AND claimed_by = (SELECT id FROM operators WHERE email = $2)",
            &[&lead_id, &operator],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    pub async fn counts(&self, at: CountsAt, promise_seconds: f64) -> Result<Counts, StoreError> {
        let client = self.client().await?;
        let (overdue_before, window_start) = (seconds(at.overdue_before), seconds(at.window_start));
        let open = client
            .query_one(
                &format!(
                    "SELECT count(*), count(*) FILTER (WHERE created_at < to_timestamp($1)) FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND held IS NULL AND status IN ({})",
                    open_statuses_sql()
                ),
                &[&overdue_before],
            )
            .await
            .map_err(unavailable)?;
        let share = client
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE reached_at <= created_at + make_interval(secs => $3)) \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= to_timestamp($1) \
                 AND (created_at < to_timestamp($2) OR reached_at IS NOT NULL)",
                &[&window_start, &overdue_before, &promise_seconds],
            )
            .await
            .map_err(unavailable)?;
        let days = client
            .query(
                "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24') AS hour, count(*) \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= to_timestamp($1) \
                 GROUP BY hour ORDER BY hour",
                &[&window_start],
            )
            .await
            .map_err(unavailable)?;
        let held = client
            .query_one("SELECT count(*) FROM \"CRN\" WHERE held IS NOT NULL", &[])
            .await
            .map_err(unavailable)?;
        Ok(Counts {
            held: held.get(0),
            open: open.get(0),
            overdue: open.get(1),
            due: share.get(0),
            reached_in_time: share.get(1),
            per_hour: days.iter().map(|row| (row.get(0), row.get(1))).collect(),
        })
    }
}

//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the figures.

use super::*;

/// The columns `record_from` reads.
impl SqliteStore {
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        let (holder_id, nobody, now) = query.holder.parameters();
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                 WHERE repeat_of IS NULL AND (held IS NOT NULL) = ?7 AND (?1 IS NULL OR id < ?1) \
                   AND (?2 IS NULL OR zayavka_fold(name) LIKE ?2 ESCAPE '\\') \
                   AND (?3 IS NULL OR phone_e164 LIKE ?3) \
                   AND (NOT ?4 OR status IN ({open})) \
                   AND (?5 IS NULL OR created_at < ?5) \
                   AND (?10 IS NULL OR ((claimed_by IS NOT NULL AND (claimed_until IS NULL OR claimed_until > ?10)) \
                        = (NOT ?9) AND (?8 IS NULL OR claimed_by = ?8))) \
                 ORDER BY id DESC LIMIT ?6",
                open = open_statuses_sql()
            ))?;
            let rows = stmt.query_map(
                params![
                    query.before_id,
                    query.name_pattern,
                    query.phone_pattern,
                    query.open_only,
                    query.created_before.map(text),
                    query.limit,
                    query.held,
                    holder_id,
                    nobody,
                    now.map(text)
                ],
                record_from,
            )?;
            rows.collect()
        })
        .await
    }

    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            // `next_call_at` is set only on open leads of the call list (held leads, repeats and
            // closed leads have none), so the range read on its partial index is the whole filter.
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" INDEXED BY \"CRN_next_call_at\" \
                 WHERE next_call_at IS NOT NULL AND next_call_at <= ?1 \
                 ORDER BY call_back DESC, CASE WHEN call_back THEN next_call_at ELSE created_at END, id LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![text(now), limit], record_from)?;
            rows.collect()
        })
        .await
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        self.read(move |conn| {
            conn.prepare_cached(&format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id = ?1"))?
                .query_row([id], record_from)
                .optional()
        })
        .await
    }

    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE repeat_of = ?1 ORDER BY id"
            ))?;
            let rows = stmt.query_map([lead_id], record_from)?;
            rows.collect()
        })
        .await
    }

    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, at, operator, outcome, note FROM call_attempts WHERE lead_id = ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([lead_id], |row| {
                Ok(Attempt {
                    id: row.get(0)?,
                    at: row.get(1)?,
                    operator: row.get(2)?,
                    outcome: row.get(3)?,
                    note: row.get(4)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
        plan: CallPlan,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let exists = conn.query_row("SELECT 1 FROM \"CRN\" WHERE id = ?1", [lead_id], |_| Ok(())).optional()?;
            if exists.is_none() {
                return Ok(false);
            }
            let now = text(jiff::Timestamp::now());
            conn.execute(
                "INSERT INTO call_attempts (lead_id, at, operator, outcome, note) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![lead_id, now, operator, outcome.as_str(), note],
            )?;
            let unanswered: i64 = conn.query_row(
                "SELECT count(*) FROM call_attempts WHERE lead_id = ?1 AND outcome = 'no_answer'",
                [lead_id],
                |row| row.get(0),
            )?;
            // Only a lead of the call list is due for calls: not a held one, nor a repeat.
            conn.execute(
                "UPDATE \"CRN\" SET status = ?2, \
                 reached_at = CASE WHEN ?3 AND reached_at IS NULL THEN ?4 ELSE reached_at END, \
                 next_call_at = CASE WHEN held IS NULL AND repeat_of IS NULL THEN ?5 END, call_back = ?5 IS NOT NULL \
                 WHERE id = ?1",
                params![
                    lead_id,
                    outcome.status_after(unanswered).name(),
                    outcome.reached(),
                    now,
                    plan.next_call_at(outcome, unanswered).map(text)
                ],
            )?;
            // The caller's own claim ends with their call; a lead handed to them (no end) stays.
            conn.execute(
                "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL WHERE id = ?1 \
                 AND claimed_until IS NOT NULL AND claimed_by = (SELECT id FROM operators WHERE email = ?2)",
                params![lead_id, operator],
            )?;
            Ok(true)
        })
        .await
    }

    pub async fn counts(&self, at: CountsAt, promise_seconds: f64) -> Result<Counts, StoreError> {
        self.read(move |conn| {
            let (overdue_before, window_start) = (text(at.overdue_before), text(at.window_start));
            let (open, overdue) = conn.query_row(
                &format!(
                    "SELECT count(*), coalesce(sum(created_at < ?1), 0) FROM \"CRN\" \
                     WHERE repeat_of IS NULL AND held IS NULL AND status IN ({})",
                    open_statuses_sql()
                ),
                [&overdue_before],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            // julianday() counts days: seconds are days × 86,400.
            let (due, reached_in_time) = conn.query_row(
                "SELECT count(*), \
                 coalesce(sum((julianday(reached_at) - julianday(created_at)) * 86400.0 <= ?3), 0) \
                 FROM \"CRN\" WHERE repeat_of IS NULL AND held IS NULL AND created_at >= ?1 \
                 AND (created_at < ?2 OR reached_at IS NOT NULL)",
                params![&window_start, &overdue_before, promise_seconds],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            let mut stmt = conn.prepare_cached(
                "SELECT substr(created_at, 1, 13) AS hour, count(*) FROM \"CRN\" \
                 WHERE repeat_of IS NULL AND held IS NULL AND created_at >= ?1 GROUP BY hour ORDER BY hour",
            )?;
            let per_hour = stmt
                .query_map([&window_start], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let held =
                conn.query_row("SELECT count(*) FROM \"CRN\" WHERE held IS NOT NULL", [], |row| row.get(0))?;
            Ok(Counts { held, open, overdue, due, reached_in_time, per_hour })
        })
        .await
    }
}

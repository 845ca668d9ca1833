//! The inbox's list of closed days.

use super::*;
use crate::store::inbox::last_outcome_sql;

impl SqliteStore {
    pub async fn closed_days(&self, from: String, limit: u32) -> Result<Vec<ClosedDay>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT day, note, added_by, added_at FROM closed_days WHERE day >= ?1 ORDER BY day LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![from, limit], |row| {
                Ok(closed_day_row(&row.get::<_, String>(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    pub async fn add_closed_day(
        &self,
        day: String,
        note: Option<String>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let now = text(now);
            let added = conn
                .prepare_cached(
                    "INSERT INTO closed_days (day, note, added_by, added_at) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (day) DO NOTHING",
                )?
                .execute(params![day, note, trail.actor, now])?;
            super::audit::audited(conn, added, &trail, &now)
        })
        .await
    }

    pub async fn move_retries(
        &self,
        from: jiff::Timestamp,
        until: jiff::Timestamp,
        to: jiff::Timestamp,
        unanswered: &'static str,
    ) -> Result<usize, StoreError> {
        let (from, until, to) = (text(from), text(until), text(to));
        self.write(move |conn| {
            conn.prepare_cached(&format!(
                "UPDATE \"CRN\" INDEXED BY \"CRN_next_call_at\" SET next_call_at = ?3 \
                 WHERE next_call_at >= ?1 AND next_call_at < ?2 AND call_back AND {} = ?4",
                last_outcome_sql("\"CRN\"")
            ))?
            .execute(params![from, until, to, unanswered])
        })
        .await
    }

    pub async fn remove_closed_day(
        &self,
        day: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let removed =
                conn.prepare_cached("DELETE FROM closed_days WHERE day = ?1")?.execute(params![day])?;
            super::audit::audited(conn, removed, &trail, &text(now))
        })
        .await
    }
}

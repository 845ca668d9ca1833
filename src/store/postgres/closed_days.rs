//! The inbox's list of closed days.

use super::*;
use crate::store::inbox::last_outcome_sql;

impl PostgresStore {
    pub async fn closed_days(&self, from: String, limit: u32) -> Result<Vec<ClosedDay>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT to_char(day, 'YYYY-MM-DD'), note, added_by, ",
                    text_time!("added_at"),
                    " FROM closed_days WHERE day >= $1::text::date ORDER BY day LIMIT $2"
                ),
                &[&from, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .filter_map(|row| closed_day_row(row.get::<_, &str>(0), row.get(1), row.get(2), row.get(3)))
            .collect())
    }

    pub async fn add_closed_day(
        &self,
        day: String,
        note: Option<String>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let add = "INSERT INTO closed_days (day, note, added_by, added_at) \
                   VALUES ($1::text::date, $2, $3, to_timestamp($4)) ON CONFLICT (day) DO NOTHING";
        self.audited_change(add, &[&day, &note, &trail.actor, &seconds(now)], &trail, now).await
    }

    pub async fn move_retries(
        &self,
        from: jiff::Timestamp,
        until: jiff::Timestamp,
        to: jiff::Timestamp,
        unanswered: &'static str,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let moved = client
            .execute(
                &format!(
                    "UPDATE \"CRN\" AS lead SET next_call_at = to_timestamp($3) \
                     WHERE next_call_at >= to_timestamp($1) AND next_call_at < to_timestamp($2) \
                     AND call_back AND {} = $4",
                    last_outcome_sql("lead")
                ),
                &[&seconds(from), &seconds(until), &seconds(to), &unanswered],
            )
            .await
            .map_err(unavailable)?;
        Ok(moved as usize)
    }

    pub async fn remove_closed_day(
        &self,
        day: String,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        self.audited_change("DELETE FROM closed_days WHERE day = $1::text::date", &[&day], &trail, now).await
    }
}

//! The inbox's list of closed days.

use super::*;

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
        added_by: String,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let added = conn
                .prepare_cached(
                    "INSERT INTO closed_days (day, note, added_by, added_at) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (day) DO NOTHING",
                )?
                .execute(params![day, note, added_by, text(now)])?;
            Ok(added == 1)
        })
        .await
    }

    pub async fn remove_closed_day(&self, day: String) -> Result<bool, StoreError> {
        self.write(move |conn| {
            let removed =
                conn.prepare_cached("DELETE FROM closed_days WHERE day = ?1")?.execute(params![day])?;
            Ok(removed == 1)
        })
        .await
    }
}

//! The promise figures' leads, hour by hour, and each hour's revision (`store::promise`).

use std::collections::BTreeMap;

use super::*;
use crate::store::{Hour, PromiseLeads, PromiseReader, PromiseRow, start_of};

impl SqliteStore {
    /// The revision of each hour from `first` to `last` that has a counters row, in order.
    pub async fn promise_revisions(&self, first: Hour, last: Hour) -> Result<Vec<(Hour, i64)>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT CAST(strftime('%s', hour || ':00:00') AS INTEGER) / 3600, revision FROM lead_hours \
                 WHERE hour >= ?1 AND hour <= ?2 ORDER BY hour",
            )?;
            let rows = stmt
                .query_map([counters::hour(start_of(first)), counters::hour(start_of(last))], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })?;
            rows.collect()
        })
        .await
    }

    /// The call list's first leads sent in each run of hours (`[first, end)`), by hour.
    pub async fn promise_leads(
        &self,
        runs: Vec<(Hour, Hour)>,
    ) -> Result<BTreeMap<Hour, PromiseLeads>, StoreError> {
        self.read(move |conn| {
            // All they need from one index (migration 0022).
            let mut stmt = conn.prepare_cached(
                "SELECT created_at, utm_source, referrer, first_call_at, first_call_by, reached_at \
                 FROM \"CRN\" INDEXED BY \"CRN_created_at\" \
                 WHERE created_at >= ?1 AND created_at < ?2 AND repeat_of IS NULL AND held IS NULL",
            )?;
            let mut read = PromiseReader::default();
            for (first, end) in runs {
                let mut rows = stmt.query(params![text(start_of(first)), text(start_of(end))])?;
                while let Some(row) = rows.next()? {
                    read.add(PromiseRow {
                        created_at: time_at(row, 0)?.ok_or(rusqlite::Error::InvalidColumnType(
                            0,
                            "created_at".into(),
                            rusqlite::types::Type::Null,
                        ))?,
                        utm_source: row.get_ref(1)?.as_bytes_or_null()?,
                        referrer: row.get_ref(2)?.as_bytes_or_null()?,
                        first_attempt_at: time_at(row, 3)?,
                        first_attempt_by: row.get_ref(4)?.as_bytes_or_null()?,
                        reached_at: time_at(row, 5)?,
                    });
                }
            }
            Ok(read.finish())
        })
        .await
    }
}

/// A stored time (RFC 3339 text, or null), parsed where it lies.
fn time_at(row: &rusqlite::Row, index: usize) -> rusqlite::Result<Option<jiff::Timestamp>> {
    let Some(text) = row.get_ref(index)?.as_bytes_or_null()? else { return Ok(None) };
    time_of_text(text)
        .map(Some)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, e.into()))
}

//! The promise figures' leads, hour by hour, and each hour's revision (`store::promise`).

use std::collections::BTreeMap;
use std::time::SystemTime;

use super::*;
use crate::store::{Hour, PromiseLeads, PromiseReader, PromiseRow, start_of};

/// A time read as a time (PostgreSQL's binary `timestamptz`), as the store's times are.
fn time(at: SystemTime) -> Result<jiff::Timestamp, StoreError> {
    jiff::Timestamp::try_from(at).map_err(|e| StoreError::Unavailable(format!("a stored time: {e}")))
}

impl PostgresStore {
    /// The revision of each hour from `first` to `last` that has a counters row, in order.
    pub async fn promise_revisions(&self, first: Hour, last: Hour) -> Result<Vec<(Hour, i64)>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT (extract(epoch FROM hour) / 3600)::bigint, revision FROM lead_hours \
                 WHERE hour >= to_timestamp($1) AT TIME ZONE 'UTC' AND hour <= to_timestamp($2) AT TIME ZONE 'UTC' \
                 ORDER BY hour",
                &[&seconds(start_of(first)), &seconds(start_of(last))],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    /// The call list's first leads sent in each run of hours (`[first, end)`), by hour: one
    /// statement, a range of the index on `created_at` per run (migration 0022), each row kept as
    /// a few numbers as it arrives rather than all the rows held at once.
    pub async fn promise_leads(
        &self,
        runs: Vec<(Hour, Hour)>,
    ) -> Result<BTreeMap<Hour, PromiseLeads>, StoreError> {
        use futures_util::TryStreamExt;
        let (firsts, ends): (Vec<f64>, Vec<f64>) =
            runs.iter().map(|&(first, end)| (seconds(start_of(first)), seconds(start_of(end)))).unzip();
        let client = self.client().await?;
        let rows = client
            .query_raw(
                "SELECT l.created_at, l.utm_source, l.referrer, l.first_call_at, l.first_call_by, l.reached_at \
                 FROM unnest($1::float8[], $2::float8[]) AS r(first, until) \
                 JOIN \"CRN\" AS l ON l.created_at >= to_timestamp(r.first) AND l.created_at < to_timestamp(r.until) \
                 WHERE l.repeat_of IS NULL AND l.held IS NULL",
                [&firsts, &ends],
            )
            .await
            .map_err(unavailable)?;
        let mut rows = std::pin::pin!(rows);
        let mut read = PromiseReader::default();
        while let Some(row) = rows.try_next().await.map_err(unavailable)? {
            read.add(PromiseRow {
                created_at: time(row.get(0))?,
                utm_source: row.get::<_, Option<&str>>(1).map(str::as_bytes),
                referrer: row.get::<_, Option<&str>>(2).map(str::as_bytes),
                first_attempt_at: row.get::<_, Option<SystemTime>>(3).map(time).transpose()?,
                first_attempt_by: row.get::<_, Option<&str>>(4).map(str::as_bytes),
                reached_at: row.get::<_, Option<SystemTime>>(5).map(time).transpose()?,
            });
        }
        Ok(read.finish())
    }
}

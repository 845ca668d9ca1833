//! The abuse counts every instance shares (migration 0014): the submit rate limit per client and
//! the different phones per client, name and proof. Each is one autocommitted upsert on an
//! UNLOGGED table, outside the lead's transaction: its row lock orders two instances counting
//! the same key, and the second sees the first's count.

use super::*;

/// GCRA in one statement: the client's next arrival moves on by `cost` unless it would then run
/// more than a full bucket ahead of now; no row back means refused.
const TAKE_TOKENS: &str = "INSERT INTO abuse_rate AS r (client, next_at) VALUES ($1::int8, $2::int8 + $3::int8) \
     ON CONFLICT (client) DO UPDATE SET next_at = greatest(r.next_at, $2) + $3 \
     WHERE greatest(r.next_at, $2) + $3 - $2 <= $4 \
     RETURNING next_at";

/// Adds the phone under each key (in key order, so two instances lock rows in one order) and
/// keeps, per key, the newest `$5` different phones sent within the window; their number back.
const COUNT_PHONES: &str = "INSERT INTO abuse_volume AS v (key, phones, seen_at, last_at) \
     SELECT key, ARRAY[$2::int8], ARRAY[$3::int8], $3::int8 FROM unnest($1::int8[]) AS key ORDER BY key \
     ON CONFLICT (key) DO UPDATE SET (phones, seen_at, last_at) = ( \
       SELECT array_agg(p ORDER BY t, p), array_agg(t ORDER BY t, p), $3::int8 FROM ( \
         SELECT p, t FROM unnest(v.phones, v.seen_at) AS u(p, t) WHERE t > $3::int8 - $4::int8 AND p <> $2 \
         UNION ALL SELECT $2::int8, $3::int8 ORDER BY 2 DESC LIMIT $5) AS kept(p, t)) \
     RETURNING key, cardinality(phones)";

/// Microseconds since the Unix epoch.
fn micros(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

impl PostgresStore {
    pub async fn take_submit_tokens(
        &self,
        client: i64,
        cost: std::time::Duration,
        full: std::time::Duration,
        now: jiff::Timestamp,
    ) -> Result<std::time::Duration, StoreError> {
        let now = now.as_microsecond();
        let (cost, full) = (micros(cost), micros(full));
        let db = self.client().await?;
        // Prepared once per connection: a submit costs one round trip, not two.
        let take = db.prepare_cached(TAKE_TOKENS).await.map_err(unavailable)?;
        let taken = db.query_opt(&take, &[&client, &now, &cost, &full]).await.map_err(unavailable)?;
        if taken.is_some() {
            return Ok(std::time::Duration::ZERO);
        }
        let next_at: i64 = db
            .query_one("SELECT next_at FROM abuse_rate WHERE client = $1", &[&client])
            .await
            .map_err(unavailable)?
            .get(0);
        let wait = (next_at.max(now) + cost - now - full).max(1);
        Ok(std::time::Duration::from_micros(wait as u64))
    }

    pub async fn count_phones(
        &self,
        keys: Vec<i64>,
        phone: i64,
        now: jiff::Timestamp,
    ) -> Result<Vec<usize>, StoreError> {
        let now = now.as_second();
        let window = crate::abuse::BURST_WINDOW.as_secs() as i64;
        let kept = crate::abuse::COUNTED as i64;
        let db = self.client().await?;
        let count = db.prepare_cached(COUNT_PHONES).await.map_err(unavailable)?;
        let rows = db.query(&count, &[&keys, &phone, &now, &window, &kept]).await.map_err(unavailable)?;
        let counts: std::collections::HashMap<i64, i32> =
            rows.iter().map(|row| (row.get(0), row.get(1))).collect();
        Ok(keys.iter().map(|key| counts.get(key).map_or(0, |&n| n as usize)).collect())
    }

    /// Forgets clients whose bucket is full again and keys with nothing in the window.
    pub async fn forget_abuse_counts(&self, now: jiff::Timestamp) -> Result<(), StoreError> {
        let since = now.as_second() - crate::abuse::BURST_WINDOW.as_secs() as i64;
        let db = self.client().await?;
        db.execute("DELETE FROM abuse_rate WHERE next_at <= $1", &[&now.as_microsecond()])
            .await
            .map_err(unavailable)?;
        db.execute("DELETE FROM abuse_volume WHERE last_at <= $1", &[&since]).await.map_err(unavailable)?;
        Ok(())
    }
}

//! The inbox's figures from counters kept as leads change (`lead_hours`, `source_hours`,
//! `operator_hours`, migration 0016), and each lead's first call (`first_call_at`, `first_call_by`,
//! migration 0022): a request sums at most the hours it shows, whatever the table holds. Triggers
//! keep them in the transaction that changes a lead or logs a call, so every write (an insert, a
//! call, a release, an erasure, a purge) counts without knowing of them.

use super::*;
use crate::store::PROMISE_COLUMNS;
use crate::store::inbox::on_the_clock_sql;

/// Under this key the database keeps the rules its triggers were made with.
const RULES_KEY: &str = "counters_rules";

/// Makes the counters' functions and triggers from today's rules and fills the counters from the
/// rows, unless the database says it has both for these very rules already (so once after
/// migration 0016, and again only if a rule changes). Run under the migrations' lock.
pub(super) async fn keep_counters(
    client: &mut deadpool_postgres::Object,
) -> Result<(), tokio_postgres::Error> {
    let rules = Rules::now();
    let kept = client.query_opt("SELECT value FROM zayavka_meta WHERE key = $1", &[&RULES_KEY]).await?;
    if kept.map(|row| row.get::<_, String>(0)).as_deref() == Some(rules.fingerprint().as_str()) {
        return Ok(());
    }
    // Seconds at millions of leads (ADR 0052), before the server answers: said in the log.
    tracing::info!("counting the inbox's figures again from the leads (their rules changed)");
    let started = std::time::Instant::now();
    // The triggers go before the recount and come back after it: the recount writes each row it
    // corrects once, without a trigger running for it (at 2 M leads they made it take minutes).
    // Dropping them locks the tables, so no other writer changes a row until the commit.
    let tx = client.transaction().await?;
    tx.batch_execute(DROP_TRIGGERS).await?;
    tx.batch_execute(&rules.refill()).await?;
    tx.batch_execute(&rules.triggers()).await?;
    tx.execute(
        "INSERT INTO zayavka_meta (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&RULES_KEY, &rules.fingerprint()],
    )
    .await?;
    tx.commit().await?;
    tracing::info!(seconds = started.elapsed().as_secs_f64(), "the inbox's figures counted again");
    Ok(())
}

/// Drops the counters' triggers, those of today and of before, and functions no longer used. The
/// row triggers of the days on the hourly counters (migration 0021) are gone too: they locked a day's
/// row between the rows of two hours, so two batches of leads of several hours could each wait for the
/// other; the days are now written after all the hours, in the order of the days (ADR 0053).
const DROP_TRIGGERS: &str = "DROP TRIGGER IF EXISTS counters_lead ON \"CRN\";
    DROP TRIGGER IF EXISTS counters_lead_insert ON \"CRN\";
    DROP TRIGGER IF EXISTS counters_lead_update ON \"CRN\";
    DROP TRIGGER IF EXISTS counters_lead_delete ON \"CRN\";
    DROP TRIGGER IF EXISTS counters_lead_revised ON \"CRN\";
    DROP TRIGGER IF EXISTS counters_call ON call_attempts;
    DROP TRIGGER IF EXISTS counters_call_insert ON call_attempts;
    DROP TRIGGER IF EXISTS counters_call_delete ON call_attempts;
    DROP TRIGGER IF EXISTS counters_call_moved ON call_attempts;
    DROP TRIGGER IF EXISTS source_days_count ON source_hours;
    DROP TRIGGER IF EXISTS operator_days_count ON operator_hours;
    DROP TRIGGER IF EXISTS source_days_emptied ON source_hours;
    DROP TRIGGER IF EXISTS operator_days_emptied ON operator_hours;
    DROP FUNCTION IF EXISTS zayavka_lead_counters(), zayavka_call_counters(),
        zayavka_count_lead(\"CRN\", integer), source_days_count(), operator_days_count(), days_emptied();";

/// The rules the counters count by, as SQL (all of them decided in Rust).
struct Rules {
    promise_seconds: f64,
    open: String,
    reached: String,
}

/// The hour a time falls in, as the counters key it (UTC).
macro_rules! hour_of {
    ($at:expr) => {
        concat!("date_trunc('hour', ", $at, " AT TIME ZONE 'UTC')")
    };
}

impl Rules {
    fn now() -> Rules {
        Rules {
            promise_seconds: super::super::promise_seconds(),
            open: open_statuses_sql(),
            reached: reached_outcomes_sql(),
        }
    }

    /// The SQL that counts, hashed: a change of a rule or of how it is counted makes it anew.
    fn fingerprint(&self) -> String {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(format!("{DROP_TRIGGERS}\n{}\n{}", self.triggers(), self.refill()));
        hash.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// What the lead row `r` (a variable or a table) adds to the counters, as named columns.
    fn figures(&self, r: &str) -> String {
        let Rules { promise_seconds, open, .. } = self;
        let first = format!("({r}.repeat_of IS NULL AND {r}.held IS NULL)");
        [
            (format!("date_trunc('hour', {r}.created_at AT TIME ZONE 'UTC')"), "hour"),
            (format!("{first}::int"), "leads"),
            (format!("({first} AND {r}.status IN ({open}))::int"), "open"),
            (format!("{}::int", on_the_clock_sql(r)), "waiting"),
            (format!("({first} AND {r}.reached_at IS NOT NULL)::int"), "reached"),
            (
                format!(
                    "({first} AND {r}.reached_at IS NOT NULL \
                     AND {r}.reached_at <= {r}.created_at + make_interval(secs => {promise_seconds}))::int"
                ),
                "reached_in_time",
            ),
            (format!("({r}.held IS NOT NULL)::int"), "held"),
            (format!("coalesce({r}.utm_source, '')"), "utm_source"),
            (format!("coalesce({r}.referrer, '')"), "referrer"),
        ]
        .map(|(figure, name)| format!("{figure} AS {name}"))
        .join(", ")
    }

    /// What the lead rows `changes` (their figures and a `sign`, +1 come or -1 gone) add to the
    /// hourly counters and the sources' days: one upsert per table, in the keys' order (so two
    /// writers lock rows in the same order), and nothing written for a row whose figures did not
    /// move. An hour written has its revision raised (`store::promise`).
    fn count_leads(&self, changes: &str) -> String {
        format!(
            "INSERT INTO lead_hours AS c (hour, leads, open, waiting, reached, reached_in_time, held, revision)
             SELECT hour, sum(sign * leads), sum(sign * open), sum(sign * waiting), sum(sign * reached),
                 sum(sign * reached_in_time), sum(sign * held), 1
             FROM ({changes}) AS f GROUP BY hour
             HAVING sum(sign * leads) <> 0 OR sum(sign * open) <> 0 OR sum(sign * waiting) <> 0
                 OR sum(sign * reached) <> 0 OR sum(sign * reached_in_time) <> 0 OR sum(sign * held) <> 0
             ORDER BY hour
             ON CONFLICT (hour) DO UPDATE SET leads = c.leads + excluded.leads, open = c.open + excluded.open,
                 waiting = c.waiting + excluded.waiting, reached = c.reached + excluded.reached,
                 reached_in_time = c.reached_in_time + excluded.reached_in_time, held = c.held + excluded.held,
                 revision = c.revision + 1;
             INSERT INTO source_hours AS c (hour, utm_source, referrer, leads, reached_in_time)
             SELECT hour, utm_source, referrer, sum(sign), sum(sign * reached_in_time)
             FROM ({changes}) AS f WHERE leads = 1 GROUP BY hour, utm_source, referrer
             HAVING sum(sign) <> 0 OR sum(sign * reached_in_time) <> 0
             ORDER BY hour, utm_source, referrer
             ON CONFLICT (hour, utm_source, referrer) DO UPDATE SET leads = c.leads + excluded.leads,
                 reached_in_time = c.reached_in_time + excluded.reached_in_time;
             INSERT INTO source_days AS c (day, utm_source, referrer, leads, reached_in_time)
             SELECT hour::date, utm_source, referrer, sum(sign), sum(sign * reached_in_time)
             FROM ({changes}) AS f WHERE leads = 1 GROUP BY 1, 2, 3
             HAVING sum(sign) <> 0 OR sum(sign * reached_in_time) <> 0
             ORDER BY 1, 2, 3
             ON CONFLICT (day, utm_source, referrer) DO UPDATE SET leads = c.leads + excluded.leads,
                 reached_in_time = c.reached_in_time + excluded.reached_in_time;"
        )
    }

    /// The functions and triggers that keep the counters (once those of before are dropped). They
    /// run once per statement over its rows (transition tables), so a batch of leads or calls costs
    /// a few statements, not a few per row; most updates (a claim, another unanswered call) move no
    /// figure and write nothing.
    fn triggers(&self) -> String {
        let Rules { promise_seconds, reached, .. } = self;
        let come = format!("SELECT {}, 1 AS sign FROM new_rows AS n", self.figures("n"));
        let gone = format!("SELECT {}, -1 AS sign FROM old_rows AS o", self.figures("o"));
        // A change the promise figures read (a first call) may move no counter: then a row
        // trigger raises the hour's revision, checked (`WHEN`) before any function is called.
        let row = |r: &str| PROMISE_COLUMNS.map(|column| format!("{r}.{column}")).join(", ");
        let revised = format!("({}) IS DISTINCT FROM ({})", row("OLD"), row("NEW"));
        format!(
            "CREATE OR REPLACE FUNCTION zayavka_leads_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN {inserted} RETURN NULL; END $$;
             CREATE OR REPLACE FUNCTION zayavka_leads_updated() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN {updated} RETURN NULL; END $$;
             CREATE OR REPLACE FUNCTION zayavka_leads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN {deleted} RETURN NULL; END $$;
             CREATE OR REPLACE FUNCTION zayavka_lead_revised() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 UPDATE lead_hours SET revision = revision + 1 WHERE hour IN ({old_lead_hour}, {new_lead_hour});
                 RETURN NULL;
             END $$;
             CREATE OR REPLACE FUNCTION zayavka_calls_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
             DECLARE
                 firsts bigint[];
             BEGIN
                 -- A call counts as reached for its operator if it is their first call that reached
                 -- the person within the promise. Both counters count these ids as marked here: the
                 -- days read back from call_attempts were planned as a scan of the whole table for a
                 -- batch of calls (160 ms for 2,000 calls at 240 k).
                 WITH first AS (
                     UPDATE call_attempts AS a SET counts_reached = true FROM (
                         SELECT DISTINCT ON (n.lead_id, n.operator) n.id FROM new_rows AS n
                         JOIN \"CRN\" AS l ON l.id = n.lead_id
                         WHERE n.outcome IN ({reached})
                             AND n.at <= l.created_at + make_interval(secs => {promise_seconds})
                             AND NOT EXISTS (SELECT 1 FROM call_attempts AS earlier
                                 WHERE earlier.lead_id = n.lead_id AND earlier.operator = n.operator
                                 AND earlier.counts_reached)
                         ORDER BY n.lead_id, n.operator, n.id) AS f
                     WHERE a.id = f.id RETURNING a.id)
                 SELECT coalesce(array_agg(id), '{{}}') INTO firsts FROM first;
                 INSERT INTO operator_hours AS c (hour, operator, calls, reached)
                 SELECT {new_hour}, n.operator, count(*), count(f.id)
                 FROM new_rows AS n LEFT JOIN unnest(firsts) AS f(id) ON f.id = n.id GROUP BY 1, 2 ORDER BY 1, 2
                 ON CONFLICT (hour, operator) DO UPDATE SET calls = c.calls + excluded.calls,
                     reached = c.reached + excluded.reached;
                 INSERT INTO operator_days AS c (day, operator, calls, reached)
                 SELECT ({new_hour})::date, n.operator, count(*), count(f.id)
                 FROM new_rows AS n LEFT JOIN unnest(firsts) AS f(id) ON f.id = n.id GROUP BY 1, 2 ORDER BY 1, 2
                 ON CONFLICT (day, operator) DO UPDATE SET calls = c.calls + excluded.calls,
                     reached = c.reached + excluded.reached;
                 UPDATE \"CRN\" AS l SET first_call_at = f.at, first_call_by = f.operator FROM (
                     SELECT DISTINCT ON (lead_id) lead_id, at, operator FROM new_rows ORDER BY lead_id, at, id) AS f
                 WHERE l.id = f.lead_id AND (l.first_call_at IS NULL OR l.first_call_at > f.at);
                 RETURN NULL;
             END $$;
             -- The leads' first calls from their calls again (a call moved or deleted, also by hand).
             CREATE OR REPLACE FUNCTION zayavka_first_call_again(leads bigint[]) RETURNS void LANGUAGE sql AS $$
                 UPDATE \"CRN\" AS l SET first_call_at = f.at, first_call_by = f.operator
                 FROM (SELECT ids.id, first.at, first.operator FROM unnest(leads) AS ids(id)
                       LEFT JOIN LATERAL (SELECT at, operator FROM call_attempts WHERE lead_id = ids.id
                                          ORDER BY at, id LIMIT 1) AS first ON true) AS f
                 WHERE l.id = f.id AND (l.first_call_at, l.first_call_by) IS DISTINCT FROM (f.at, f.operator)
             $$;
             CREATE OR REPLACE FUNCTION zayavka_call_moved() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 PERFORM zayavka_first_call_again(ARRAY[OLD.lead_id, NEW.lead_id]);
                 RETURN NULL;
             END $$;
             CREATE OR REPLACE FUNCTION zayavka_calls_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 PERFORM zayavka_first_call_again(ARRAY(SELECT DISTINCT lead_id FROM old_rows));
                 INSERT INTO operator_hours AS c (hour, operator, calls, reached)
                 SELECT {old_hour}, operator, -count(*), -count(*) FILTER (WHERE counts_reached)
                 FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
                 ON CONFLICT (hour, operator) DO UPDATE SET calls = c.calls + excluded.calls,
                     reached = c.reached + excluded.reached;
                 INSERT INTO operator_days AS c (day, operator, calls, reached)
                 SELECT ({old_hour})::date, operator, -count(*), -count(*) FILTER (WHERE counts_reached)
                 FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
                 ON CONFLICT (day, operator) DO UPDATE SET calls = c.calls + excluded.calls,
                     reached = c.reached + excluded.reached;
                 RETURN NULL;
             END $$;
             CREATE TRIGGER counters_lead_insert AFTER INSERT ON \"CRN\" REFERENCING NEW TABLE AS new_rows
                 FOR EACH STATEMENT EXECUTE FUNCTION zayavka_leads_inserted();
             CREATE TRIGGER counters_lead_update AFTER UPDATE ON \"CRN\"
                 REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                 FOR EACH STATEMENT EXECUTE FUNCTION zayavka_leads_updated();
             CREATE TRIGGER counters_lead_delete AFTER DELETE ON \"CRN\" REFERENCING OLD TABLE AS old_rows
                 FOR EACH STATEMENT EXECUTE FUNCTION zayavka_leads_deleted();
             CREATE TRIGGER counters_lead_revised AFTER UPDATE OF {promise_columns} ON \"CRN\" FOR EACH ROW
                 WHEN ({revised}) EXECUTE FUNCTION zayavka_lead_revised();
             CREATE TRIGGER counters_call_insert AFTER INSERT ON call_attempts REFERENCING NEW TABLE AS new_rows
                 FOR EACH STATEMENT EXECUTE FUNCTION zayavka_calls_inserted();
             CREATE TRIGGER counters_call_delete AFTER DELETE ON call_attempts REFERENCING OLD TABLE AS old_rows
                 FOR EACH STATEMENT EXECUTE FUNCTION zayavka_calls_deleted();
             CREATE TRIGGER counters_call_moved AFTER UPDATE OF at, operator, lead_id ON call_attempts
                 FOR EACH ROW EXECUTE FUNCTION zayavka_call_moved();",
            inserted = self.count_leads(&come),
            updated = self.count_leads(&format!("{come} UNION ALL {gone}")),
            deleted = self.count_leads(&gone),
            old_hour = hour_of!("at"),
            new_hour = hour_of!("n.at"),
            old_lead_hour = hour_of!("OLD.created_at"),
            new_lead_hour = hour_of!("NEW.created_at"),
            promise_columns = PROMISE_COLUMNS.join(", "),
        )
    }

    /// Fills the counters from the rows as they are, and writes only the calls and leads whose
    /// marks differ. An hour's row stays, its revision raised, so that a store that kept the
    /// hour's leads (another process's) reads them again. A lead is first marked reached at its
    /// first call (by id, the order its state follows) that reaches the person under today's
    /// rules, where it was marked later or not at all (an outcome came to count as reaching the
    /// person, ADR 0087).
    fn refill(&self) -> String {
        let Rules { promise_seconds, reached, .. } = self;
        format!(
            "UPDATE \"CRN\" AS l SET reached_at = r.at
                 FROM (SELECT a.lead_id, a.at FROM call_attempts AS a JOIN (SELECT min(id) AS id
                       FROM call_attempts WHERE outcome IN ({reached}) GROUP BY lead_id) AS f ON f.id = a.id) AS r
                 WHERE l.id = r.lead_id AND (l.reached_at IS NULL OR l.reached_at > r.at);
             UPDATE lead_hours SET leads = 0, open = 0, waiting = 0, reached = 0, reached_in_time = 0, held = 0,
                 revision = revision + 1;
             TRUNCATE source_hours, operator_hours, source_days, operator_days;
             INSERT INTO lead_hours (hour, leads, open, waiting, reached, reached_in_time, held)
             SELECT hour, sum(leads), sum(open), sum(waiting), sum(reached), sum(reached_in_time), sum(held)
             FROM (SELECT {figures} FROM \"CRN\") AS f GROUP BY hour
             ON CONFLICT (hour) DO UPDATE SET leads = excluded.leads, open = excluded.open,
                 waiting = excluded.waiting, reached = excluded.reached, reached_in_time = excluded.reached_in_time, held = excluded.held;
             INSERT INTO source_hours (hour, utm_source, referrer, leads, reached_in_time)
             SELECT hour, utm_source, referrer, count(*), sum(reached_in_time)
             FROM (SELECT {figures} FROM \"CRN\") AS f WHERE leads = 1 GROUP BY hour, utm_source, referrer;
             INSERT INTO source_days (day, utm_source, referrer, leads, reached_in_time)
             SELECT hour::date, utm_source, referrer, sum(leads), sum(reached_in_time) FROM source_hours
             GROUP BY 1, 2, 3;
             WITH counting AS (
                 SELECT min(a.id) AS id FROM call_attempts AS a JOIN \"CRN\" AS l ON l.id = a.lead_id
                 WHERE a.outcome IN ({reached}) AND a.at <= l.created_at + make_interval(secs => {promise_seconds})
                 GROUP BY a.lead_id, a.operator),
             marked AS (SELECT id FROM call_attempts WHERE counts_reached)
             UPDATE call_attempts AS a SET counts_reached = NOT a.counts_reached FROM (
                 (SELECT id FROM marked EXCEPT SELECT id FROM counting)
                 UNION ALL (SELECT id FROM counting EXCEPT SELECT id FROM marked)) AS wrong
             WHERE a.id = wrong.id;
             INSERT INTO operator_hours (hour, operator, calls, reached)
             SELECT {hour}, operator, count(*), count(*) FILTER (WHERE counts_reached) FROM call_attempts
             GROUP BY 1, 2;
             INSERT INTO operator_days (day, operator, calls, reached)
             SELECT hour::date, operator, sum(calls), sum(reached) FROM operator_hours GROUP BY 1, 2;
             UPDATE \"CRN\" AS l SET first_call_at = f.at, first_call_by = f.operator FROM (
                 SELECT c.id, first.at, first.operator FROM \"CRN\" AS c LEFT JOIN (
                     SELECT DISTINCT ON (lead_id) lead_id, at, operator FROM call_attempts
                     ORDER BY lead_id, at, id) AS first ON first.lead_id = c.id
                 WHERE (c.first_call_at, c.first_call_by) IS DISTINCT FROM (first.at, first.operator)) AS f
             WHERE l.id = f.id;",
            figures = self.figures("\"CRN\""),
            hour = hour_of!("at"),
        )
    }
}

impl PostgresStore {
    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        let client = self.client().await?;
        // Whole hours from the counters; the hour holding `overdue_before` from its rows.
        let first = "repeat_of IS NULL AND held IS NULL";
        let row = client
            .query_one(
                &format!(
                    "SELECT h.held::bigint, h.open::bigint, \
                     (h.overdue + (SELECT count(*) FROM \"CRN\" WHERE created_at >= b.boundary AT TIME ZONE 'UTC' \
                       AND created_at < b.before AND {waiting}))::bigint, \
                     (h.due + (SELECT count(*) FROM \"CRN\" \
                       WHERE created_at >= greatest(b.boundary, b.start) AT TIME ZONE 'UTC' \
                       AND created_at < (b.boundary + make_interval(hours => 1)) AT TIME ZONE 'UTC' AND {first} \
                       AND (created_at < b.before OR reached_at IS NOT NULL)))::bigint, \
                     h.reached_in_time::bigint \
                     FROM (SELECT {boundary} AS boundary, to_timestamp($1) AS before, {start} AS start) AS b, \
                     LATERAL (SELECT coalesce(sum(held), 0) AS held, coalesce(sum(open), 0) AS open, \
                       coalesce(sum(waiting) FILTER (WHERE hour < b.boundary), 0) AS overdue, \
                       coalesce(sum(CASE WHEN hour < b.start THEN 0 WHEN hour < b.boundary THEN leads \
                         WHEN hour > b.boundary THEN reached END), 0) AS due, \
                       coalesce(sum(reached_in_time) FILTER (WHERE hour >= b.start), 0) AS reached_in_time \
                       FROM lead_hours) AS h",
                    waiting = on_the_clock_sql("\"CRN\""),
                    boundary = hour_of!("to_timestamp($1)"),
                    start = hour_of!("to_timestamp($2)"),
                ),
                &[&seconds(at.overdue_before), &seconds(at.window_start)],
            )
            .await
            .map_err(unavailable)?;
        let hours = client
            .query(
                concat!(
                    "SELECT to_char(hour, 'YYYY-MM-DD\"T\"HH24'), leads FROM lead_hours WHERE hour >= ",
                    hour_of!("to_timestamp($1)"),
                    " AND leads > 0 ORDER BY hour"
                ),
                &[&seconds(at.window_start)],
            )
            .await
            .map_err(unavailable)?;
        Ok(Counts {
            held: row.get(0),
            open: row.get(1),
            overdue: row.get(2),
            due: row.get(3),
            reached_in_time: row.get(4),
            per_hour: hours.iter().map(|row| (row.get(0), row.get(1))).collect(),
        })
    }

    pub async fn source_counts(&self, at: CountsAt) -> Result<Vec<SourceCount>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    // The window's hours before its first whole day, then whole days (ADR 0039).
                    "SELECT nullif(utm_source, ''), nullif(referrer, ''), sum(leads)::bigint, \
                     sum(reached_in_time)::bigint AS reached FROM (\
                     SELECT utm_source, referrer, leads, reached_in_time FROM source_hours WHERE hour >= ",
                    hour_of!("to_timestamp($1)"),
                    " AND hour < ",
                    hour_of!("to_timestamp($2)"),
                    " UNION ALL SELECT utm_source, referrer, leads, reached_in_time FROM source_days WHERE day >= (",
                    hour_of!("to_timestamp($2)"),
                    ")::date) AS counted GROUP BY utm_source, referrer HAVING sum(leads) > 0 \
                     ORDER BY 3 DESC, reached DESC, utm_source COLLATE \"C\", referrer COLLATE \"C\""
                ),
                &[&seconds(at.window_start), &seconds(crate::store::inbox::first_whole_day(at.window_start))],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| SourceCount {
                utm_source: row.get(0),
                referrer: row.get(1),
                leads: row.get(2),
                reached: row.get(3),
            })
            .collect())
    }

    pub async fn operator_counts(&self, since: jiff::Timestamp) -> Result<Vec<OperatorCount>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT operator, sum(calls)::bigint, sum(reached)::bigint FROM (\
                     SELECT operator, calls, reached FROM operator_hours WHERE hour >= ",
                    hour_of!("to_timestamp($1)"),
                    " AND hour < ",
                    hour_of!("to_timestamp($2)"),
                    " UNION ALL SELECT operator, calls, reached FROM operator_days WHERE day >= (",
                    hour_of!("to_timestamp($2)"),
                    ")::date) AS counted GROUP BY operator HAVING sum(calls) > 0 ORDER BY operator COLLATE \"C\""
                ),
                &[&seconds(since), &seconds(crate::store::inbox::first_whole_day(since))],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| OperatorCount { email: row.get(0), calls: row.get(1), reached: row.get(2) })
            .collect())
    }
}

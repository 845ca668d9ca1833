//! The inbox's figures from counters kept as leads change (`lead_hours`, `source_hours`,
//! `operator_hours`, migration 0016): a request sums at most the hours it shows, whatever the
//! table holds. Triggers keep them in the transaction that changes a lead or logs a call, so every
//! write (an insert, a call, a release, an erasure, a purge) counts without knowing of them.

use super::*;

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
    let tx = client.transaction().await?;
    tx.batch_execute(&rules.triggers()).await?;
    tx.batch_execute(&rules.refill()).await?;
    tx.execute(
        "INSERT INTO zayavka_meta (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&RULES_KEY, &rules.fingerprint()],
    )
    .await?;
    tx.commit().await
}

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
        let hash = sha2::Sha256::digest(format!("{}\n{}", self.triggers(), self.refill()));
        hash.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// What the lead row `r` (a variable or a table) adds to the counters, and the names.
    fn figure_list(&self, r: &str) -> [(String, &'static str); 8] {
        let Rules { promise_seconds, open, .. } = self;
        let first = format!("({r}.repeat_of IS NULL AND {r}.held IS NULL)");
        [
            (format!("date_trunc('hour', {r}.created_at AT TIME ZONE 'UTC')"), "hour"),
            (format!("{first}::int"), "leads"),
            (format!("({first} AND {r}.status IN ({open}))::int"), "open"),
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
    }

    /// The figures of the lead row `r`, as named columns.
    fn figures(&self, r: &str) -> String {
        self.figure_list(r).map(|(figure, name)| format!("{figure} AS {name}")).join(", ")
    }

    /// The figures of the lead row `r`, as a list of values.
    fn figure_values(&self, r: &str) -> String {
        self.figure_list(r).map(|(figure, _)| figure).join(", ")
    }

    /// The functions and triggers that keep the counters, made anew.
    fn triggers(&self) -> String {
        let Rules { promise_seconds, reached, .. } = self;
        let changed = ["created_at", "status", "held", "reached_at", "repeat_of", "utm_source", "referrer"];
        // Most changes (another unanswered call) change no figure: then nothing is written.
        let when =
            format!("ROW({}) IS DISTINCT FROM ROW({})", self.figure_values("OLD"), self.figure_values("NEW"));
        format!(
            "CREATE OR REPLACE FUNCTION zayavka_count_lead(r \"CRN\", sign integer) RETURNS void
             LANGUAGE plpgsql AS $$
             DECLARE f record;
             BEGIN
                 SELECT {figures} INTO f;
                 INSERT INTO lead_hours AS c (hour, leads, open, reached, reached_in_time, held)
                 VALUES (f.hour, sign * f.leads, sign * f.open, sign * f.reached, sign * f.reached_in_time,
                         sign * f.held)
                 ON CONFLICT (hour) DO UPDATE SET leads = c.leads + excluded.leads, open = c.open + excluded.open,
                     reached = c.reached + excluded.reached,
                     reached_in_time = c.reached_in_time + excluded.reached_in_time, held = c.held + excluded.held;
                 IF f.leads = 1 THEN
                     INSERT INTO source_hours AS c (hour, utm_source, referrer, leads, reached_in_time)
                     VALUES (f.hour, f.utm_source, f.referrer, sign, sign * f.reached_in_time)
                     ON CONFLICT (hour, utm_source, referrer) DO UPDATE SET leads = c.leads + excluded.leads,
                         reached_in_time = c.reached_in_time + excluded.reached_in_time;
                 END IF;
             END $$;
             CREATE OR REPLACE FUNCTION zayavka_lead_counters() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM zayavka_count_lead(OLD, -1); END IF;
                 IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM zayavka_count_lead(NEW, 1); END IF;
                 RETURN NULL;
             END $$;
             CREATE OR REPLACE FUNCTION zayavka_call_counters() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF TG_OP = 'DELETE' THEN
                     UPDATE operator_hours SET calls = calls - 1, reached = reached - OLD.counts_reached::int
                     WHERE hour = {old_hour} AND operator = OLD.operator;
                     RETURN NULL;
                 END IF;
                 NEW.counts_reached := NEW.outcome IN ({reached})
                     AND NEW.at <= (SELECT created_at FROM \"CRN\" WHERE id = NEW.lead_id)
                                   + make_interval(secs => {promise_seconds})
                     AND NOT EXISTS (SELECT 1 FROM call_attempts AS earlier WHERE earlier.lead_id = NEW.lead_id
                                     AND earlier.operator = NEW.operator AND earlier.counts_reached);
                 INSERT INTO operator_hours AS c (hour, operator, calls, reached)
                 VALUES ({new_hour}, NEW.operator, 1, NEW.counts_reached::int)
                 ON CONFLICT (hour, operator) DO UPDATE SET calls = c.calls + 1, reached = c.reached + excluded.reached;
                 RETURN NEW;
             END $$;
             DROP TRIGGER IF EXISTS counters_lead ON \"CRN\";
             DROP TRIGGER IF EXISTS counters_lead_update ON \"CRN\";
             DROP TRIGGER IF EXISTS counters_call ON call_attempts;
             DROP TRIGGER IF EXISTS counters_call_delete ON call_attempts;
             CREATE TRIGGER counters_lead AFTER INSERT OR DELETE ON \"CRN\"
                 FOR EACH ROW EXECUTE FUNCTION zayavka_lead_counters();
             CREATE TRIGGER counters_lead_update AFTER UPDATE OF {columns} ON \"CRN\"
                 FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION zayavka_lead_counters();
             CREATE TRIGGER counters_call BEFORE INSERT ON call_attempts
                 FOR EACH ROW EXECUTE FUNCTION zayavka_call_counters();
             CREATE TRIGGER counters_call_delete AFTER DELETE ON call_attempts
                 FOR EACH ROW EXECUTE FUNCTION zayavka_call_counters();",
            figures = self.figures("r"),
            columns = changed.join(", "),
            old_hour = hour_of!("OLD.at"),
            new_hour = hour_of!("NEW.at"),
        )
    }

    /// Fills the counters from the rows as they are.
    fn refill(&self) -> String {
        let Rules { promise_seconds, reached, .. } = self;
        format!(
            "TRUNCATE lead_hours, source_hours, operator_hours;
             INSERT INTO lead_hours (hour, leads, open, reached, reached_in_time, held)
             SELECT hour, sum(leads), sum(open), sum(reached), sum(reached_in_time), sum(held)
             FROM (SELECT {figures} FROM \"CRN\") AS f GROUP BY hour;
             INSERT INTO source_hours (hour, utm_source, referrer, leads, reached_in_time)
             SELECT hour, utm_source, referrer, count(*), sum(reached_in_time)
             FROM (SELECT {figures} FROM \"CRN\") AS f WHERE leads = 1 GROUP BY hour, utm_source, referrer;
             UPDATE call_attempts SET counts_reached = false WHERE counts_reached;
             UPDATE call_attempts SET counts_reached = true WHERE id IN (
                 SELECT min(a.id) FROM call_attempts AS a JOIN \"CRN\" AS l ON l.id = a.lead_id
                 WHERE a.outcome IN ({reached}) AND a.at <= l.created_at + make_interval(secs => {promise_seconds})
                 GROUP BY a.lead_id, a.operator);
             INSERT INTO operator_hours (hour, operator, calls, reached)
             SELECT {hour}, operator, count(*), count(*) FILTER (WHERE counts_reached) FROM call_attempts
             GROUP BY 1, 2;",
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
                       AND created_at < b.before AND {first} AND status IN ({open})))::bigint, \
                     (h.due + (SELECT count(*) FROM \"CRN\" \
                       WHERE created_at >= greatest(b.boundary, b.start) AT TIME ZONE 'UTC' \
                       AND created_at < (b.boundary + make_interval(hours => 1)) AT TIME ZONE 'UTC' AND {first} \
                       AND (created_at < b.before OR reached_at IS NOT NULL)))::bigint, \
                     h.reached_in_time::bigint \
                     FROM (SELECT {boundary} AS boundary, to_timestamp($1) AS before, {start} AS start) AS b, \
                     LATERAL (SELECT coalesce(sum(held), 0) AS held, coalesce(sum(open), 0) AS open, \
                       coalesce(sum(open) FILTER (WHERE hour < b.boundary), 0) AS overdue, \
                       coalesce(sum(CASE WHEN hour < b.start THEN 0 WHEN hour < b.boundary THEN leads \
                         WHEN hour > b.boundary THEN reached END), 0) AS due, \
                       coalesce(sum(reached_in_time) FILTER (WHERE hour >= b.start), 0) AS reached_in_time \
                       FROM lead_hours) AS h",
                    open = open_statuses_sql(),
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
                    ")::date) AS counted GROUP BY utm_source, referrer HAVING sum(leads) > 0 ORDER BY 3 DESC, reached DESC"
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
                    ")::date) AS counted GROUP BY operator HAVING sum(calls) > 0 ORDER BY operator"
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

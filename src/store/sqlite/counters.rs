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

/// Makes the counters' triggers from today's rules and fills the counters from the rows, unless
/// the database says it has both for these very rules already (so once after migration 0016, and
/// again only if a rule changes).
pub(super) fn keep_counters(conn: &mut Connection) -> rusqlite::Result<()> {
    let rules = Rules::now();
    let kept: Option<String> = conn
        .query_row("SELECT value FROM zayavka_meta WHERE key = ?1", [RULES_KEY], |row| row.get(0))
        .optional()?;
    if kept.as_deref() == Some(rules.fingerprint().as_str()) {
        return Ok(());
    }
    // Seconds at millions of leads (ADR 0052), before the server answers: said in the log.
    tracing::info!("counting the inbox's figures again from the leads (their rules changed)");
    let started = std::time::Instant::now();
    // The triggers go before the recount and come back after it: the recount writes each row it
    // corrects once, without a trigger running for it (at 2 M leads they made it take minutes).
    let tx = conn.transaction()?;
    tx.execute_batch(DROP_TRIGGERS)?;
    tx.execute_batch(&rules.refill())?;
    tx.execute_batch(&rules.triggers())?;
    tx.execute(
        "INSERT INTO zayavka_meta (key, value) VALUES (?1, ?2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![RULES_KEY, rules.fingerprint()],
    )?;
    tx.commit()?;
    tracing::info!(seconds = started.elapsed().as_secs_f64(), "the inbox's figures counted again");
    Ok(())
}

/// Drops the counters' triggers, those of today and of before.
const DROP_TRIGGERS: &str = "DROP TRIGGER IF EXISTS counters_lead_insert;
    DROP TRIGGER IF EXISTS counters_lead_update;
    DROP TRIGGER IF EXISTS counters_lead_delete;
    DROP TRIGGER IF EXISTS counters_lead_revised;
    DROP TRIGGER IF EXISTS counters_call_insert;
    DROP TRIGGER IF EXISTS counters_call_reached;
    DROP TRIGGER IF EXISTS counters_call_delete;
    DROP TRIGGER IF EXISTS counters_call_first;
    DROP TRIGGER IF EXISTS counters_call_moved;
    DROP TRIGGER IF EXISTS counters_call_gone;";

/// The rules the counters count by, as SQL (all of them decided in Rust).
struct Rules {
    promise_seconds: f64,
    open: String,
    reached: String,
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

    /// What the lead row `r` (`NEW`, `OLD` or a table) adds to the counters, and the names.
    fn figure_list(&self, r: &str) -> [(String, &'static str); 9] {
        let Rules { promise_seconds, open, .. } = self;
        let first = format!("({r}.repeat_of IS NULL AND {r}.held IS NULL)");
        [
            (format!("substr({r}.created_at, 1, 13)"), "hour"),
            (first.clone(), "leads"),
            (format!("({first} AND {r}.status IN ({open}))"), "open"),
            (on_the_clock_sql(r), "waiting"),
            (format!("({first} AND {r}.reached_at IS NOT NULL)"), "reached"),
            (
                format!(
                    "({first} AND coalesce((julianday({r}.reached_at) - julianday({r}.created_at)) * 86400.0 \
                     <= {promise_seconds}, 0))"
                ),
                "reached_in_time",
            ),
            (format!("({r}.held IS NOT NULL)"), "held"),
            (format!("coalesce({r}.utm_source, '')"), "utm_source"),
            (format!("coalesce({r}.referrer, '')"), "referrer"),
        ]
    }

    /// The figures of the lead row `r`, as named columns.
    fn figures(&self, r: &str) -> String {
        self.figure_list(r).map(|(figure, name)| format!("{figure} AS {name}")).join(", ")
    }

    /// Adds (`sign` "+") or takes away ("-") the lead row `r` from the counters, and raises its
    /// hour's revision (`store::promise`). The figures are written out in each statement: read
    /// from a subquery, SQLite ran it as a result of its own for every row (ADR 0054).
    fn count_lead(&self, r: &str, sign: &str) -> String {
        let [hour, leads, open, waiting, reached, reached_in_time, held, utm_source, referrer] =
            self.figure_list(r).map(|(figure, _)| figure);
        format!(
            "INSERT INTO lead_hours (hour, leads, open, waiting, reached, reached_in_time, held, revision) \
             SELECT {hour}, {sign}{leads}, {sign}{open}, {sign}{waiting}, {sign}{reached}, {sign}{reached_in_time}, \
             {sign}{held}, 1 \
             WHERE true \
             ON CONFLICT (hour) DO UPDATE SET leads = leads + excluded.leads, open = open + excluded.open, \
             waiting = waiting + excluded.waiting, reached = reached + excluded.reached, reached_in_time = reached_in_time + excluded.reached_in_time, \
             held = held + excluded.held, revision = revision + 1;
             INSERT INTO source_hours (hour, utm_source, referrer, leads, reached_in_time) \
             SELECT {hour}, {utm_source}, {referrer}, {sign}1, {sign}{reached_in_time} WHERE {leads} \
             ON CONFLICT (hour, utm_source, referrer) DO UPDATE SET leads = leads + excluded.leads, \
             reached_in_time = reached_in_time + excluded.reached_in_time;"
        )
    }

    /// The triggers that keep the counters (once those of before are dropped).
    fn triggers(&self) -> String {
        let Rules { promise_seconds, reached, .. } = self;
        let changed = ["created_at", "status", "held", "reached_at", "repeat_of", "utm_source", "referrer"];
        // Most changes (another unanswered call) change no figure: then nothing is written.
        let when = (self.figure_list("OLD").into_iter().zip(self.figure_list("NEW")))
            .map(|((old, _), (new, _))| format!("{old} IS NOT {new}"))
            .collect::<Vec<_>>()
            .join(" OR ");
        // A change the promise figures read (a first call) may move no counter: then only the
        // hour's revision is raised.
        let revised = PROMISE_COLUMNS.map(|column| format!("OLD.{column} IS NOT NEW.{column}")).join(" OR ");
        format!(
            "CREATE TRIGGER counters_lead_insert AFTER INSERT ON \"CRN\" BEGIN {add_new} END;
             CREATE TRIGGER counters_lead_update AFTER UPDATE OF {columns} ON \"CRN\" WHEN {when}
             BEGIN {take_old} {add_new} END;
             CREATE TRIGGER counters_lead_delete AFTER DELETE ON \"CRN\" BEGIN {take_old} END;
             CREATE TRIGGER counters_lead_revised AFTER UPDATE OF {promise_columns} ON \"CRN\" WHEN {revised}
             BEGIN
                 UPDATE lead_hours SET revision = revision + 1
                 WHERE hour IN (substr(OLD.created_at, 1, 13), substr(NEW.created_at, 1, 13));
             END;
             CREATE TRIGGER counters_call_insert AFTER INSERT ON call_attempts BEGIN
                 INSERT INTO operator_hours (hour, operator, calls, reached)
                 VALUES (substr(NEW.at, 1, 13), NEW.operator, 1, 0)
                 ON CONFLICT (hour, operator) DO UPDATE SET calls = calls + 1;
             END;
             CREATE TRIGGER counters_call_reached AFTER INSERT ON call_attempts WHEN NEW.outcome IN ({reached})
             BEGIN
                 UPDATE call_attempts SET counts_reached = 1 WHERE id = NEW.id
                   AND (julianday(NEW.at) - julianday((SELECT created_at FROM \"CRN\" WHERE id = NEW.lead_id)))
                       * 86400.0 <= {promise_seconds}
                   AND NOT EXISTS (SELECT 1 FROM call_attempts AS earlier WHERE earlier.lead_id = NEW.lead_id
                       AND earlier.operator = NEW.operator AND earlier.counts_reached = 1);
                 INSERT INTO operator_hours (hour, operator, calls, reached)
                 SELECT substr(NEW.at, 1, 13), NEW.operator, 0, 1
                 WHERE (SELECT counts_reached FROM call_attempts WHERE id = NEW.id) = 1
                 ON CONFLICT (hour, operator) DO UPDATE SET reached = reached + 1;
             END;
             CREATE TRIGGER counters_call_delete AFTER DELETE ON call_attempts BEGIN
                 UPDATE operator_hours SET calls = calls - 1, reached = reached - OLD.counts_reached
                 WHERE hour = substr(OLD.at, 1, 13) AND operator = OLD.operator;
             END;
             CREATE TRIGGER counters_call_first AFTER INSERT ON call_attempts BEGIN
                 UPDATE \"CRN\" SET first_call_at = NEW.at, first_call_by = NEW.operator
                 WHERE id = NEW.lead_id AND (first_call_at IS NULL OR first_call_at > NEW.at);
             END;
             CREATE TRIGGER counters_call_moved AFTER UPDATE OF at, operator, lead_id ON call_attempts BEGIN
                 {first_of_old} {first_of_new}
             END;
             CREATE TRIGGER counters_call_gone AFTER DELETE ON call_attempts BEGIN {first_of_old} END;",
            columns = changed.join(", "),
            promise_columns = PROMISE_COLUMNS.join(", "),
            add_new = self.count_lead("NEW", "+"),
            take_old = self.count_lead("OLD", "-"),
            first_of_old = first_call_again("id = OLD.lead_id"),
            first_of_new = first_call_again("id = NEW.lead_id"),
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
            "UPDATE \"CRN\" SET reached_at = r.at
                 FROM (SELECT a.lead_id, a.at FROM call_attempts AS a JOIN (SELECT min(id) AS id
                       FROM call_attempts WHERE outcome IN ({reached}) GROUP BY lead_id) AS f ON f.id = a.id) AS r
                 WHERE \"CRN\".id = r.lead_id AND (\"CRN\".reached_at IS NULL OR \"CRN\".reached_at > r.at);
             UPDATE lead_hours SET leads = 0, open = 0, waiting = 0, reached = 0, reached_in_time = 0, held = 0,
                 revision = revision + 1;
             DELETE FROM source_hours; DELETE FROM operator_hours;
             INSERT INTO lead_hours (hour, leads, open, waiting, reached, reached_in_time, held)
             SELECT hour, sum(leads), sum(open), sum(waiting), sum(reached), sum(reached_in_time), sum(held)
             FROM (SELECT {figures} FROM \"CRN\") WHERE true GROUP BY hour
             ON CONFLICT (hour) DO UPDATE SET leads = excluded.leads, open = excluded.open,
                 waiting = excluded.waiting, reached = excluded.reached, reached_in_time = excluded.reached_in_time, held = excluded.held;
             INSERT INTO source_hours (hour, utm_source, referrer, leads, reached_in_time)
             SELECT hour, utm_source, referrer, count(*), sum(reached_in_time)
             FROM (SELECT {figures} FROM \"CRN\") WHERE leads GROUP BY hour, utm_source, referrer;
             WITH counting AS (
                 SELECT min(a.id) AS id FROM call_attempts AS a JOIN \"CRN\" AS l ON l.id = a.lead_id
                 WHERE a.outcome IN ({reached})
                   AND (julianday(a.at) - julianday(l.created_at)) * 86400.0 <= {promise_seconds}
                 GROUP BY a.lead_id, a.operator)
             UPDATE call_attempts SET counts_reached = (id IN (SELECT id FROM counting))
             WHERE counts_reached <> (id IN (SELECT id FROM counting));
             INSERT INTO operator_hours (hour, operator, calls, reached)
             SELECT substr(at, 1, 13), operator, count(*), sum(counts_reached) FROM call_attempts
             GROUP BY 1, 2;
             {first_calls}",
            figures = self.figures("\"CRN\""),
            first_calls = first_call_again("true")
        )
    }
}

/// Sets the first call of the leads `which` picks from their calls again: a lead's (`id = …`) when
/// a call moved or went, also by hand, and every lead's (`true`) in the recount. Only a lead whose
/// first call differs is written.
fn first_call_again(which: &str) -> String {
    let first = "(SELECT at, operator FROM call_attempts WHERE lead_id = \"CRN\".id ORDER BY at, id LIMIT 1)";
    format!(
        "UPDATE \"CRN\" SET (first_call_at, first_call_by) = {first} \
         WHERE {which} AND (first_call_at, first_call_by) IS NOT {first};"
    )
}

/// The hour of `at` as the counters key it (`YYYY-MM-DDTHH`, UTC), which is also the text every
/// time of that hour starts with.
pub(super) fn hour(at: jiff::Timestamp) -> String {
    text(at)[..13].to_owned()
}

/// `YYYY-MM-DD` (UTC), as `source_days` and `operator_days` have it.
fn day(at: jiff::Timestamp) -> String {
    text(at)[..10].to_owned()
}

impl SqliteStore {
    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        self.read(move |conn| {
            // Whole hours from the counters; the hour holding `overdue_before` from its rows.
            let boundary = hour(at.overdue_before);
            let after_boundary = hour(at.overdue_before + jiff::SignedDuration::from_hours(1));
            let start = hour(at.window_start);
            let first = "repeat_of IS NULL AND held IS NULL";
            let (held, open, overdue, due, reached_in_time) = conn
                .prepare_cached(&format!(
                    "SELECT h.held, h.open, \
                     h.overdue + (SELECT count(*) FROM \"CRN\" WHERE created_at >= :boundary \
                       AND created_at < :before AND {waiting}), \
                     h.due + (SELECT count(*) FROM \"CRN\" WHERE created_at >= max(:boundary, :start) \
                       AND created_at < :after_boundary AND {first} \
                       AND (created_at < :before OR reached_at IS NOT NULL)), \
                     h.reached_in_time \
                     FROM (SELECT coalesce(sum(held), 0) AS held, coalesce(sum(open), 0) AS open, \
                       coalesce(sum(CASE WHEN hour < :boundary THEN waiting END), 0) AS overdue, \
                       coalesce(sum(CASE WHEN hour < :start THEN 0 WHEN hour < :boundary THEN leads \
                         WHEN hour > :boundary THEN reached END), 0) AS due, \
                       coalesce(sum(CASE WHEN hour >= :start THEN reached_in_time END), 0) AS reached_in_time \
                       FROM lead_hours) AS h",
                    waiting = on_the_clock_sql("\"CRN\"")
                ))?
                .query_row(
                    rusqlite::named_params! {
                        ":boundary": boundary,
                        ":after_boundary": after_boundary,
                        ":before": text(at.overdue_before),
                        ":start": start,
                    },
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
                )?;
            let per_hour = conn
                .prepare_cached("SELECT hour, leads FROM lead_hours WHERE hour >= ?1 AND leads > 0 ORDER BY hour")?
                .query_map([&start], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(Counts { held, open, overdue, due, reached_in_time, per_hour })
        })
        .await
    }

    pub async fn source_counts(&self, at: CountsAt) -> Result<Vec<SourceCount>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                // The window's hours before its first whole day, then whole days (ADR 0039).
                "SELECT nullif(utm_source, ''), nullif(referrer, ''), sum(leads), sum(reached_in_time) AS reached \
                 FROM (SELECT utm_source, referrer, leads, reached_in_time FROM source_hours WHERE hour >= ?1 AND hour < ?2 \
                 UNION ALL SELECT utm_source, referrer, leads, reached_in_time FROM source_days WHERE day >= ?2) \
                 GROUP BY utm_source, referrer HAVING sum(leads) > 0 \
                 ORDER BY sum(leads) DESC, reached DESC, utm_source, referrer",
            )?;
            let rows = stmt.query_map([hour(at.window_start), day(crate::store::inbox::first_whole_day(at.window_start))], |row| {
                Ok(SourceCount {
                    utm_source: row.get(0)?,
                    referrer: row.get(1)?,
                    leads: row.get(2)?,
                    reached: row.get(3)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn operator_counts(&self, since: jiff::Timestamp) -> Result<Vec<OperatorCount>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT operator, sum(calls), sum(reached) \
                 FROM (SELECT operator, calls, reached FROM operator_hours WHERE hour >= ?1 AND hour < ?2 \
                 UNION ALL SELECT operator, calls, reached FROM operator_days WHERE day >= ?2) \
                 GROUP BY operator HAVING sum(calls) > 0 ORDER BY operator",
            )?;
            let rows = stmt
                .query_map([hour(since), day(crate::store::inbox::first_whole_day(since))], |row| {
                    Ok(OperatorCount { email: row.get(0)?, calls: row.get(1)?, reached: row.get(2)? })
                })?;
            rows.collect()
        })
        .await
    }
}

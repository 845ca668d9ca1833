//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the figures.

use std::collections::BTreeSet;

use rusqlite::types::Value;

use super::*;
use crate::inbox::Outcome;
use crate::store::{CallLogged, Holder, NewAttempt};

/// The columns `record_from` reads.
impl SqliteStore {
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let text = query.name_pattern.as_deref().and_then(crate::store::search::like_part);
            let text_trigrams = text.as_deref().map(trigrams::trigrams).unwrap_or_default();
            if query.phone.is_some() || text_trigrams.is_empty() {
                let (sql, values) = list_sql(&query, None, query.limit);
                let mut stmt = conn.prepare_cached(&sql)?;
                let rows = stmt.query_map(rusqlite::params_from_iter(values), record_from)?;
                return rows.collect();
            }
            // A text with a word inside no name's word finds nothing (ADR 0076). Else the name
            // index's parts newest first, each read for the ids of its matches until the page is
            // full, then the page's leads, in one snapshot: no part is dropped between the list of
            // parts and its read. The first part is asked as it is: a search mostly finds its page
            // there. Past it, only the parts whose trigrams allow the text (ADR 0075). Only the
            // ids come from each part: a statement that reads a lead's record costs a fifth of a
            // millisecond to start, even when it finds nothing.
            let snapshot = conn.unchecked_transaction()?;
            if name_words::held_by_no_name(&snapshot, text.as_deref().unwrap_or_default())? {
                return Ok(Vec::new());
            }
            let mut found: Vec<i64> = Vec::new();
            if let Some(&first) = names::parts_below(&snapshot, query.before_id)?.first()
                && !ids_from_part(&snapshot, &query, &text_trigrams, first, &mut found)?
            {
                for part in names::parts_to_ask(&snapshot, Some(first * names::PART_IDS), &text_trigrams)? {
                    if ids_from_part(&snapshot, &query, &text_trigrams, part, &mut found)? {
                        break;
                    }
                }
            }
            leads_with_ids(&snapshot, RECORD_COLUMNS, found, record_from)
        })
        .await
    }

    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            // `next_call_at` is set only on open leads of the call list (held leads, repeats and
            // closed leads have none); their index in the order of calling gives a page of the
            // leads due after reading about a page (those due later are passed over).
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" INDEXED BY \"CRN_call_order\" \
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

    pub async fn lead_records(&self, ids: Vec<i64>) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| leads_with_ids(conn, RECORD_COLUMNS, ids, record_from)).await
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

    pub async fn add_attempts(
        &self,
        calls: Vec<NewAttempt>,
        now: jiff::Timestamp,
    ) -> Result<Vec<CallLogged>, StoreError> {
        let now = text(now);
        self.write(move |conn| calls.into_iter().map(|call| add_attempt(conn, call, &now)).collect()).await
    }
}

/// Logs one call (`Store::add_attempt`).
fn add_attempt(conn: &Connection, call: NewAttempt, now: &str) -> rusqlite::Result<CallLogged> {
    let NewAttempt { lead_id, operator, outcome, note, plan, request_key, trail } = call;
    // Read in the writer's transaction: a request sent again while its first was still waiting
    // for the writer finds the call the first logged.
    if let Some(key) = &request_key {
        let logged = conn
            .prepare_cached(
                "SELECT lead_id = ?3 AND outcome = ?4 AND note = ?5 FROM call_attempts \
                 WHERE request_key = ?1 AND operator = ?2",
            )?
            .query_row(params![key, operator, lead_id, outcome.as_str(), note], |row| row.get::<_, bool>(0))
            .optional()?;
        if let Some(same) = logged {
            return Ok(if same { CallLogged::Before } else { CallLogged::KeyTaken });
        }
    }
    // Cached statements: each fires the counters' triggers, whose programs are costly to prepare.
    // Only a lead of the call list is called: not a held one (released first), nor a repeat
    // (its calls go on the person's first lead).
    let callable = conn
        .prepare_cached("SELECT 1 FROM \"CRN\" WHERE id = ?1 AND held IS NULL AND repeat_of IS NULL")?
        .query_row([lead_id], |_| Ok(()))
        .optional()?;
    if callable.is_none() {
        return Ok(CallLogged::NotCallable);
    }
    execute_cached(
        conn,
        "INSERT INTO call_attempts (lead_id, at, operator, outcome, note, request_key) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![lead_id, now, operator, outcome.as_str(), note, request_key],
    )?;
    let unanswered: i64 = conn
        .prepare_cached("SELECT count(*) FROM call_attempts WHERE lead_id = ?1 AND outcome = ?2")?
        .query_row(params![lead_id, Outcome::NoAnswer.as_str()], |row| row.get(0))?;
    execute_cached(
        conn,
        "UPDATE \"CRN\" SET status = ?2, \
         reached_at = CASE WHEN ?3 AND reached_at IS NULL THEN ?4 ELSE reached_at END, \
         next_call_at = ?5, call_back = ?5 IS NOT NULL, retries_used_up = ?6 \
         WHERE id = ?1",
        params![
            lead_id,
            outcome.status_after(unanswered).name(),
            outcome.reached(),
            now,
            plan.next_call_at(outcome, unanswered).map(text),
            plan.retries_used_up(outcome, unanswered)
        ],
    )?;
    // The caller's own claim ends with their call; a lead handed to them (no end) stays.
    execute_cached(
        conn,
        "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL WHERE id = ?1 \
         AND claimed_until IS NOT NULL AND claimed_by = (SELECT id FROM operators WHERE email = ?2)",
        params![lead_id, operator],
    )?;
    super::audit::append(conn, &trail, now)?;
    Ok(CallLogged::Logged)
}

/// `Connection::execute` with the statement kept prepared.
fn execute_cached(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// Adds the ids of `part`'s leads that `query` finds to `found`, as many as the page has room for;
/// whether the page is full. The part is asked for the names holding the trigrams
/// `names::trigrams_to_ask` picks of the text's; the LIKE decides.
fn ids_from_part(
    conn: &Connection,
    query: &LeadQuery,
    text_trigrams: &BTreeSet<String>,
    part: i64,
    found: &mut Vec<i64>,
) -> rusqlite::Result<bool> {
    let left = query.limit.saturating_sub(u32::try_from(found.len()).unwrap_or(u32::MAX));
    if left > 0
        && let Some(asked) = names::trigrams_to_ask(conn, part, text_trigrams)?
    {
        let (sql, values) = list_sql(query, Some((part, trigrams::match_expression(&asked))), left);
        let mut stmt = conn.prepare_cached(&sql)?;
        let ids = stmt.query_map(rusqlite::params_from_iter(values), |row| row.get(0))?;
        found.extend(ids.collect::<Result<Vec<i64>, _>>()?);
    }
    Ok(found.len() >= usize::try_from(query.limit).unwrap_or(usize::MAX))
}

/// The list's query for this shape of `query`, with only the conditions it asks for written out,
/// so that the planner reads the index made for them (a condition switched off by a parameter
/// hides its index): the leads to call, an operator's leads to call, the held leads, the overdue
/// leads from the cut-off down, the phone indexes' ranges, or a part of the trigram index of names
/// (`names_part`, with what FTS5 is asked there), newest first, stopping at the page's end. From a
/// part it reads the ids only.
fn list_sql(query: &LeadQuery, names_part: Option<(i64, String)>, limit: u32) -> (String, Vec<Value>) {
    let mut values = Vec::new();
    let mut bind = |value: Value| {
        values.push(value);
        format!("?{}", values.len())
    };
    let mut conditions = vec!["\"CRN\".repeat_of IS NULL".to_owned()];
    if query.held {
        conditions.push("\"CRN\".held IS NOT NULL".into());
    } else {
        conditions.push("\"CRN\".held IS NULL".into());
        if query.open_only {
            // The same leads as the open statuses (kept so by every write): the index of leads to call.
            conditions.push("\"CRN\".next_call_at IS NOT NULL".into());
        }
    }
    if query.open_only {
        conditions.push(format!("\"CRN\".status IN ({})", open_statuses_sql()));
    }
    if let Some(before) = query.overdue_before {
        conditions.push(format!("\"CRN\".created_at < {}", bind(Value::Text(text(before)))));
        conditions.push("\"CRN\".reached_at IS NULL".into());
    }
    match query.holder {
        Holder::Anyone => {}
        Holder::Operator { id, now } => conditions.push(format!(
            "\"CRN\".claimed_by = {} AND (\"CRN\".claimed_until IS NULL OR \"CRN\".claimed_until > {})",
            bind(Value::Integer(id)),
            bind(Value::Text(text(now)))
        )),
        Holder::Nobody { now } => conditions.push(format!(
            "(\"CRN\".claimed_by IS NULL OR \"CRN\".claimed_until <= {})",
            bind(Value::Text(text(now)))
        )),
    }
    if let Some(pattern) = &query.name_pattern {
        conditions.push(format!(
            "zayavka_fold(\"CRN\".name) LIKE {} ESCAPE '\\'",
            bind(Value::Text(pattern.clone()))
        ));
    }
    let by_sending = query.overdue_before.is_some()
        && query.open_only
        && !query.held
        && query.phone.is_none()
        && names_part.is_none();
    // Where the page is read from, in its order, and the id that pages it. A phone search reads
    // the found numbers first (the ranges of the reversed number's index for its end, of the
    // number's for its start); a name's part of three characters or more takes its candidates
    // from the trigram index, newest first (the LIKE above still decides); the overdue leads are
    // read by time of sending from the cut-off down; the other lists by id.
    let (from, order, id) = if let Some(phone) = &query.phone {
        let (end, start) = crate::store::search::phone_ranges(phone);
        let mut found = vec![ids_in_each_month(
            "CRN_month_phone_reversed",
            &format!(
                "phone_reversed >= {} AND phone_reversed < {}",
                bind(Value::Text(end.0)),
                bind(Value::Text(end.1))
            ),
        )];
        if let Some((from, to)) = start {
            found.push(ids_in_each_month(
                "CRN_month_phone",
                &format!(
                    "phone_e164 >= {} AND phone_e164 < {}",
                    bind(Value::Text(from)),
                    bind(Value::Text(to))
                ),
            ));
        }
        // CROSS JOIN keeps that order: the found numbers first, then their leads.
        let from = format!(
            "({LEAD_MONTHS} {}) AS found CROSS JOIN \"CRN\" ON \"CRN\".id = found.found_id",
            found.join(" UNION ")
        );
        (from, "\"CRN\".id DESC".to_owned(), "\"CRN\".id".to_owned())
    } else if let Some((part, asked)) = &names_part {
        let names = names::table(*part);
        conditions.push(format!("{names} MATCH {}", bind(Value::Text(asked.clone()))));
        (
            format!("{names} JOIN \"CRN\" ON \"CRN\".id = {names}.rowid"),
            format!("{names}.rowid DESC"),
            format!("{names}.rowid"),
        )
    } else if by_sending {
        (
            "\"CRN\" INDEXED BY \"CRN_to_call_sent\"".to_owned(),
            "\"CRN\".created_at DESC, \"CRN\".id DESC".to_owned(),
            "\"CRN\".id".to_owned(),
        )
    } else if matches!(query.holder, Holder::Operator { .. }) && !query.held && query.open_only {
        // Without statistics SQLite may take the index of every lead ever handed to the operator.
        (
            "\"CRN\" INDEXED BY \"CRN_to_call_by\"".to_owned(),
            "\"CRN\".id DESC".to_owned(),
            "\"CRN\".id".to_owned(),
        )
    } else {
        ("\"CRN\"".to_owned(), "\"CRN\".id DESC".to_owned(), "\"CRN\".id".to_owned())
    };
    if let Some(before_id) = query.before_id {
        let before_id = bind(Value::Integer(before_id));
        conditions.push(if by_sending {
            // Below the last lead's place in the order of sending.
            format!("(\"CRN\".created_at, \"CRN\".id) < (SELECT created_at, id FROM \"CRN\" WHERE id = {before_id})")
        } else {
            format!("{id} < {before_id}")
        });
    }
    let limit = bind(Value::Integer(limit.into()));
    let conditions = conditions.join(" AND ");
    let sql = if names_part.is_some() {
        format!("SELECT {id} FROM {from} WHERE {conditions} ORDER BY {order} LIMIT {limit}")
    } else if query.phone.is_none() {
        format!("SELECT {RECORD_COLUMNS} FROM {from} WHERE {conditions} ORDER BY {order} LIMIT {limit}")
    } else {
        // The page's ids first: the found numbers have columns of the same names as the leads.
        format!(
            "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id IN \
             (SELECT {id} FROM {from} WHERE {conditions} ORDER BY {order} LIMIT {limit}) ORDER BY id DESC"
        )
    };
    (sql, values)
}

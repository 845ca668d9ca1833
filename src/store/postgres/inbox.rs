//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the figures.

use std::collections::{BTreeMap, HashMap};

use tokio_postgres::types::ToSql;

use super::*;
use crate::inbox::Outcome;
use crate::store::{CallLogged, Holder, NewAttempt};

impl PostgresStore {
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        match listed_pieces_to_read(&client, &query).await? {
            Some(pieces) => listed_leads(&client, &query, &pieces).await,
            None => leads_of(&client, &query, None).await,
        }
    }

    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        // `next_call_at` is set only on open leads of the call list (held leads, repeats and
        // closed leads have none); their index in the order of calling gives a page of the
        // leads due after reading about a page (those due later are passed over).
        let rows = client
            .query(
                &format!(
                    "SELECT {RECORD_COLUMNS} FROM \"CRN\" \
                     WHERE next_call_at IS NOT NULL AND next_call_at <= to_timestamp($1) \
                     ORDER BY call_back DESC, CASE WHEN call_back THEN next_call_at ELSE created_at END, id \
                     LIMIT $2"
                ),
                &[&seconds(now), &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(&format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id = $1"), &[&id])
            .await
            .map_err(unavailable)?;
        Ok(row.as_ref().map(record_from))
    }

    pub async fn lead_records(&self, ids: Vec<i64>) -> Result<Vec<LeadRecord>, StoreError> {
        let rows = leads_with_ids(&*self.client().await?, RECORD_COLUMNS, &ids).await?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE repeat_of = $1 ORDER BY id"),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT id, ",
                    text_time!("at"),
                    ", operator, outcome, note FROM call_attempts WHERE lead_id = $1 ORDER BY id"
                ),
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| Attempt {
                id: row.get(0),
                at: row.get(1),
                operator: row.get(2),
                outcome: row.get(3),
                note: row.get(4),
            })
            .collect())
    }

    pub async fn add_attempts(
        &self,
        calls: Vec<NewAttempt>,
        now: jiff::Timestamp,
    ) -> Result<Vec<CallLogged>, StoreError> {
        let now = seconds(now);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The locks keep two operators' calls from counting the same unanswered calls; taken in id
        // order, so two batches never wait for each other in a circle.
        let mut ids: Vec<i64> = calls.iter().map(|call| call.lead_id).collect();
        ids.sort_unstable();
        ids.dedup();
        // With each lead, who holds it for a time (a take), whose call ends the claim. Only a lead
        // of the call list is called: not a held one (released first), nor a repeat (its calls go
        // on the person's first lead).
        let found: HashMap<i64, Option<String>> = tx
            .query(
                "SELECT l.id, o.email FROM \"CRN\" AS l \
                 LEFT JOIN operators AS o ON o.id = l.claimed_by AND l.claimed_until IS NOT NULL \
                 WHERE l.id = ANY($1) AND l.held IS NULL AND l.repeat_of IS NULL ORDER BY l.id FOR UPDATE OF l",
                &[&ids],
            )
            .await
            .map_err(unavailable)?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        // The calls logged before under these requests' keys (ADR 0084), read under the leads'
        // locks: a request sent again while its first was running waits for it, then finds its call.
        let keys: Vec<&str> = calls.iter().filter_map(|call| call.request_key.as_deref()).collect();
        let mut keyed: HashMap<(String, String), (i64, String, String)> = HashMap::new();
        if !keys.is_empty() {
            let rows = tx
                .query(
                    "SELECT request_key, operator, lead_id, outcome, note FROM call_attempts \
                     WHERE request_key = ANY($1)",
                    &[&keys],
                )
                .await
                .map_err(unavailable)?;
            for row in rows {
                keyed.insert((row.get(0), row.get(1)), (row.get(2), row.get(3), row.get(4)));
            }
        }
        let mut logged = Vec::with_capacity(calls.len());
        let mut to_log = Vec::with_capacity(calls.len());
        for call in calls {
            let key = call.request_key.clone().map(|key| (key, call.operator.clone()));
            logged.push(match key.as_ref().and_then(|key| keyed.get(key)) {
                Some((lead_id, outcome, note)) => {
                    let same =
                        *lead_id == call.lead_id && outcome == call.outcome.as_str() && *note == call.note;
                    if same { CallLogged::Before } else { CallLogged::KeyTaken }
                }
                None if !found.contains_key(&call.lead_id) => CallLogged::NotCallable,
                None => {
                    if let Some(key) = key {
                        keyed
                            .insert(key, (call.lead_id, call.outcome.as_str().to_owned(), call.note.clone()));
                    }
                    to_log.push(call);
                    CallLogged::Logged
                }
            });
        }
        let calls = to_log;
        if calls.is_empty() {
            // Ended here, not by the drop, which only queues the rollback: until the connection's
            // task sends it, the transaction keeps its locks (a test's schema waited 10 s for them).
            tx.rollback().await.map_err(unavailable)?;
            return Ok(logged);
        }
        // Each lead's unanswered calls before these (read under the locks).
        let mut unanswered: HashMap<i64, i64> = tx
            .query(
                "SELECT lead_id, count(*) FROM call_attempts WHERE lead_id = ANY($1) \
                 AND outcome = $2 GROUP BY lead_id",
                &[&ids, &Outcome::NoAnswer.as_str()],
            )
            .await
            .map_err(unavailable)?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        // Each lead written once, as its calls one after the other would leave it: the status and
        // next call of its last call (which counted every unanswered one), reached if one reached,
        // its first call of these, who made it, and its claim ended if its holder called (a lead
        // handed to them, with no end, stays theirs). In id order, as the locks were taken.
        let mut last: BTreeMap<i64, (&NewAttempt, bool, &str, bool)> = BTreeMap::new();
        for call in &calls {
            *unanswered.entry(call.lead_id).or_default() += i64::from(call.outcome == Outcome::NoAnswer);
            let earlier = last.get(&call.lead_id);
            let reached = earlier.is_some_and(|(_, reached, ..)| *reached) || call.outcome.reached();
            let first_by = earlier.map_or(call.operator.as_str(), |(_, _, first_by, _)| first_by);
            let holder = found.get(&call.lead_id).and_then(Option::as_deref);
            let release =
                earlier.is_some_and(|(.., release)| *release) || holder == Some(call.operator.as_str());
            last.insert(call.lead_id, (call, reached, first_by, release));
        }
        let (mut ids, mut statuses, mut reached, mut next_calls, mut used_up, mut first_by, mut releases) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (id, (call, any_reached, first, release)) in last {
            let unanswered = unanswered.get(&id).copied().unwrap_or(0);
            ids.push(id);
            statuses.push(call.outcome.status_after(unanswered).name());
            reached.push(any_reached);
            next_calls.push(call.plan.next_call_at(call.outcome, unanswered).map(seconds));
            used_up.push(call.plan.retries_used_up(call.outcome, unanswered));
            first_by.push(first);
            releases.push(release);
        }
        // Before the calls are inserted: the lead then already holds its first call (the earliest
        // by time, then id, as the counters' trigger keeps it), so the trigger does not write
        // each lead a second time.
        tx.execute(
            "UPDATE \"CRN\" AS l SET status = v.status, \
             reached_at = CASE WHEN v.reached AND l.reached_at IS NULL THEN to_timestamp($2) ELSE l.reached_at END, \
             next_call_at = to_timestamp(v.next), \
             call_back = v.next IS NOT NULL, \
             retries_used_up = v.used_up, \
             first_call_at = CASE WHEN l.first_call_at IS NULL OR l.first_call_at > to_timestamp($2) \
               THEN to_timestamp($2) ELSE l.first_call_at END, \
             first_call_by = CASE WHEN l.first_call_at IS NULL OR l.first_call_at > to_timestamp($2) \
               THEN v.first_by ELSE l.first_call_by END, \
             claimed_by = CASE WHEN v.release THEN NULL ELSE l.claimed_by END, \
             claimed_until = CASE WHEN v.release THEN NULL ELSE l.claimed_until END \
             FROM unnest($1::bigint[], $3::text[], $4::bool[], $5::float8[], $6::bool[], $7::text[], $8::bool[]) \
               AS v(id, status, reached, next, used_up, first_by, release) \
             WHERE l.id = v.id",
            &[&ids, &now, &statuses, &reached, &next_calls, &used_up, &first_by, &releases],
        )
        .await
        .map_err(unavailable)?;
        // In the batch's order: the counters' trigger counts a lead's first call that reached
        // the person by its id.
        let leads: Vec<i64> = calls.iter().map(|call| call.lead_id).collect();
        let operators: Vec<&str> = calls.iter().map(|call| call.operator.as_str()).collect();
        let outcomes: Vec<&str> = calls.iter().map(|call| call.outcome.as_str()).collect();
        let notes: Vec<&str> = calls.iter().map(|call| call.note.as_str()).collect();
        let keys: Vec<Option<&str>> = calls.iter().map(|call| call.request_key.as_deref()).collect();
        tx.execute(
            "INSERT INTO call_attempts (lead_id, at, operator, outcome, note, request_key) \
             SELECT id, to_timestamp($2), operator, outcome, note, request_key \
             FROM unnest($1::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY \
               AS c(id, operator, outcome, note, request_key, n) ORDER BY n",
            &[&leads, &now, &operators, &outcomes, &notes, &keys],
        )
        .await
        .map_err(unavailable)?;
        let trails: Vec<&AuditEntry> = calls.iter().map(|call| &call.trail).collect();
        super::audit::append(&*tx, &trails, now).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(logged)
    }
}

/// The pieces of names whose lists of leads a name search reads (ADR 0078): those holding its text
/// (`listed_piece_part`), none when no name holds it. `None` when it reads the leads table:
/// no piece of three letters or more, the overdue order, or more than `MOST_LISTS` pieces.
async fn listed_pieces_to_read(
    client: &tokio_postgres::Client,
    query: &LeadQuery,
) -> Result<Option<Vec<String>>, StoreError> {
    let Some(pattern) = query.name_pattern.as_deref().filter(|_| !by_sending(query)) else {
        return Ok(None);
    };
    let text = crate::store::search::like_part(pattern).unwrap_or_default();
    let Some(part) = crate::store::search::listed_piece_part(&text) else {
        return Ok(None);
    };
    let inside = format!("%{}%", crate::inbox::escape_like(&part));
    let holding = name_words::listed_pieces_holding(client, &inside).await?;
    Ok((holding.len() <= name_words::MOST_LISTS).then_some(holding))
}

/// A name search's page from the lists of leads of `pieces`, newest first (ADR 0078). Each list
/// gives its newest leads below the page's start, two pages' worth (some are repeats, held or
/// another's); the leads down to where every list gave all it holds are checked against the
/// search, newest first, and if the page is not full the lists go on from there, twice as many at
/// a time.
///
/// PostgreSQL merges the lists itself only after sorting every lead of each: it plans no Merge
/// Append of their backward scans under `UNION ALL` (256 ms for the 48 lists holding "ковал" at
/// 2 M leads, against 2.9 ms from the leads table).
async fn listed_leads(
    client: &tokio_postgres::Client,
    query: &LeadQuery,
    pieces: &[String],
) -> Result<Vec<LeadRecord>, StoreError> {
    let mut found = Vec::new();
    let (mut below, mut each) = (query.before_id.unwrap_or(i64::MAX), 2 * i64::from(query.limit));
    while !pieces.is_empty() && found.len() < query.limit as usize {
        let (newest, read_down_to) = newest_listed(client, pieces, below, each).await?;
        if !newest.is_empty() {
            let rest = query.limit - found.len() as u32;
            let page = LeadQuery { before_id: None, limit: rest, ..query.clone() };
            found.extend(leads_of(client, &page, Some(newest)).await?);
        }
        match read_down_to {
            Some(lowest) => (below, each) = (lowest, each * 2),
            None => break,
        }
    }
    Ok(found)
}

/// The leads listed under `pieces` below `below`, at most `each` from each list, newest first and
/// each once, down to the lowest lead from which every list gave all it holds; and that lead,
/// unless every list gave all it holds.
async fn newest_listed(
    client: &tokio_postgres::Client,
    pieces: &[String],
    below: i64,
    each: i64,
) -> Result<(Vec<i64>, Option<i64>), StoreError> {
    let lists: Vec<String> = (0..pieces.len())
        .map(|n| {
            format!(
                "(SELECT {n} AS list, lead_id FROM name_piece_leads WHERE piece = ${}::text AND lead_id < $1 \
                 ORDER BY lead_id DESC LIMIT $2)",
                n + 3
            )
        })
        .collect();
    let mut values: Vec<&(dyn ToSql + Sync)> = vec![&below, &each];
    values.extend(pieces.iter().map(|piece| piece as &(dyn ToSql + Sync)));
    let rows = client.query(&lists.join(" UNION ALL "), &values).await.map_err(unavailable)?;
    let mut lists: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
    for row in &rows {
        lists.entry(row.get(0)).or_default().push(row.get(1));
    }
    // A list that gave `each` may hold more below its lowest: only above that is every lead seen.
    let read_down_to = lists
        .values()
        .filter(|ids| ids.len() as i64 == each)
        .filter_map(|ids| ids.iter().min().copied())
        .max();
    let mut newest: Vec<i64> =
        lists.into_values().flatten().filter(|id| *id >= read_down_to.unwrap_or(0)).collect();
    newest.sort_unstable_by(|a, b| b.cmp(a));
    newest.dedup();
    Ok((newest, read_down_to))
}

/// A page of the leads `query` finds, from those with the ids `among` if given.
async fn leads_of(
    client: &tokio_postgres::Client,
    query: &LeadQuery,
    among: Option<Vec<i64>>,
) -> Result<Vec<LeadRecord>, StoreError> {
    let (sql, values) = list_sql(query, among);
    let values: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| &**v as &(dyn ToSql + Sync)).collect();
    let rows = client.query(&sql, &values).await.map_err(unavailable)?;
    Ok(rows.iter().map(record_from).collect())
}

/// Overdue: the leads to call by time of sending, from the cut-off down.
fn by_sending(query: &LeadQuery) -> bool {
    query.overdue_before.is_some() && query.open_only && !query.held
}

/// The list's query for this shape of `query`, with only the conditions it asks for written out,
/// so that the planner reads the index made for them (a condition switched off by a parameter
/// hides its index): the leads to call, an operator's leads to call, the held leads, the overdue
/// leads from the cut-off down, the phone indexes' ranges, or the trigram index of names, newest
/// first, stopping at the page's end; or, `among` given, the key at those leads.
fn list_sql(query: &LeadQuery, among: Option<Vec<i64>>) -> (String, Vec<Box<dyn ToSql + Sync + Send>>) {
    let mut values: Vec<Box<dyn ToSql + Sync + Send>> = Vec::new();
    let mut bind = |value: Box<dyn ToSql + Sync + Send>| {
        values.push(value);
        format!("${}", values.len())
    };
    let mut conditions = vec!["repeat_of IS NULL".to_owned()];
    if query.held {
        conditions.push("held IS NOT NULL".into());
    } else {
        conditions.push("held IS NULL".into());
        if query.open_only {
            // The same leads as the open statuses (kept so by every write): the index of leads to call.
            conditions.push("next_call_at IS NOT NULL".into());
        }
    }
    // Overdue: the next page starts below the last lead's place in the order of sending. The open
    // statuses are left out there: they are the leads to call (every write keeps them so), and
    // with them the planner guesses too few rows and sorts every open lead instead of reading the
    // index from the cut-off.
    let by_sending = by_sending(query);
    if query.open_only && !by_sending {
        conditions.push(format!("status IN ({})", open_statuses_sql()));
    }
    if let Some(before) = query.overdue_before {
        conditions.push(format!("created_at < to_timestamp({}::float8)", bind(Box::new(seconds(before)))));
        conditions.push("reached_at IS NULL".into());
    }
    match query.holder {
        Holder::Anyone => {}
        Holder::Operator { id, now } => conditions.push(format!(
            "claimed_by = {}::bigint AND (claimed_until IS NULL OR claimed_until > to_timestamp({}::float8))",
            bind(Box::new(id)),
            bind(Box::new(seconds(now)))
        )),
        Holder::Nobody { now } => conditions.push(format!(
            "(claimed_by IS NULL OR claimed_until <= to_timestamp({}::float8))",
            bind(Box::new(seconds(now)))
        )),
    }
    if let Some(pattern) = &query.name_pattern {
        // A text with a word inside no name's word, or two words in a row inside no name's two,
        // finds nothing (ADR 0076, 0077), said by the words of names before any lead is read: the
        // trigram index would read the lists of each of the text's trigrams, however common. Leads
        // read from the lists of name pieces need no such check: each is checked below.
        let text = crate::store::search::like_part(pattern).unwrap_or_default();
        if among.is_none() {
            for piece in crate::store::search::pieces_to_look_up(&text) {
                let inside = bind(Box::new(format!("%{}%", crate::inbox::escape_like(&piece))));
                conditions.push(name_words::some_name_holds(&inside));
            }
        }
        let folded = "translate(lower(name), 'ʼ’`', repeat(chr(39), 3))";
        conditions.push(if among.is_some() {
            // Checked on each lead read from the lists, in a form the trigram index does not
            // answer: otherwise the planner may read it, with every holder of the text.
            format!("strpos({folded}, {}::text) > 0", bind(Box::new(text)))
        } else {
            // As the trigram index of names has it.
            format!("{folded} LIKE {}::text ESCAPE '\\'", bind(Box::new(pattern.clone())))
        });
    }
    // The numbers a phone search finds: ranges, in byte order, of the reversed number's index
    // (its end) and of the number's (its start).
    if let Some(phone) = &query.phone {
        let (end, start) = crate::store::search::phone_ranges(phone);
        let mut found = vec![format!(
            "SELECT id FROM \"CRN\" WHERE reverse(phone_e164) COLLATE \"C\" >= {}::text \
             AND reverse(phone_e164) COLLATE \"C\" < {}::text",
            bind(Box::new(end.0)),
            bind(Box::new(end.1))
        )];
        if let Some((from, to)) = start {
            found.push(format!(
                "SELECT id FROM \"CRN\" WHERE phone_e164 COLLATE \"C\" >= {}::text AND phone_e164 COLLATE \"C\" < {}::text",
                bind(Box::new(from)),
                bind(Box::new(to))
            ));
        }
        conditions.push(format!("id IN ({})", found.join(" UNION ALL ")));
    }
    if let Some(before_id) = query.before_id {
        let before_id = bind(Box::new(before_id));
        conditions.push(if by_sending {
            format!("(created_at, id) < (SELECT created_at, id FROM \"CRN\" WHERE id = {before_id}::bigint)")
        } else {
            format!("id < {before_id}::bigint")
        });
    }
    if let Some(among) = among {
        conditions.push(format!("id = ANY({}::bigint[])", bind(Box::new(among))));
    }
    let order = if by_sending { "created_at DESC, id DESC" } else { "id DESC" };
    let limit = bind(Box::new(i64::from(query.limit)));
    let sql = format!(
        "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE {} ORDER BY {order} LIMIT {limit}",
        conditions.join(" AND ")
    );
    (sql, values)
}

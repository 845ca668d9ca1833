//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the figures.

use tokio_postgres::types::ToSql;

use super::*;
use crate::store::{Holder, PromiseLead};

impl PostgresStore {
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let (sql, values) = list_sql(&query);
        let values: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| &**v as &(dyn ToSql + Sync)).collect();
        let rows = client.query(&sql, &values).await.map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
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

    pub async fn promise_leads(
        &self,
        since: jiff::Timestamp,
        until: jiff::Timestamp,
    ) -> Result<Vec<PromiseLead>, StoreError> {
        let client = self.client().await?;
        // The window's leads by the index on `created_at`; each one's first call by the index of
        // its calls.
        let rows = client
            .query(
                concat!(
                    "SELECT ",
                    text_time!("l.created_at"),
                    ", l.utm_source, l.referrer, ",
                    text_time!("first.at"),
                    ", first.operator, ",
                    text_time!("l.reached_at"),
                    " FROM \"CRN\" AS l LEFT JOIN LATERAL \
                     (SELECT at, operator FROM call_attempts WHERE lead_id = l.id ORDER BY at, id LIMIT 1) AS first \
                     ON true \
                     WHERE l.created_at >= to_timestamp($1) AND l.created_at < to_timestamp($2) \
                     AND l.repeat_of IS NULL AND l.held IS NULL"
                ),
                &[&seconds(since), &seconds(until)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| PromiseLead {
                created_at: row.get(0),
                utm_source: row.get(1),
                referrer: row.get(2),
                first_attempt_at: row.get(3),
                first_attempt_by: row.get(4),
                reached_at: row.get(5),
            })
            .collect())
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

    pub async fn add_attempt(
        &self,
        lead_id: i64,
        operator: String,
        outcome: Outcome,
        note: String,
        plan: CallPlan,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The lock keeps two operators' calls from counting the same unanswered calls.
        let exists = tx
            .query_opt("SELECT 1 FROM \"CRN\" WHERE id = $1 FOR UPDATE", &[&lead_id])
            .await
            .map_err(unavailable)?;
        if exists.is_none() {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO call_attempts (lead_id, at, operator, outcome, note) \
             VALUES ($1, to_timestamp($2), $3, $4, $5)",
            &[&lead_id, &seconds(now), &operator, &outcome.as_str(), &note],
        )
        .await
        .map_err(unavailable)?;
        let unanswered: i64 = tx
            .query_one(
                "SELECT count(*) FROM call_attempts WHERE lead_id = $1 AND outcome = 'no_answer'",
                &[&lead_id],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        // Only a lead of the call list is due for calls: not a held one, nor a repeat.
        let next_call_at = plan.next_call_at(outcome, unanswered).map(seconds);
        tx.execute(
            "UPDATE \"CRN\" SET status = $2, \
             reached_at = CASE WHEN $3 AND reached_at IS NULL THEN to_timestamp($5) ELSE reached_at END, \
             next_call_at = CASE WHEN held IS NULL AND repeat_of IS NULL THEN to_timestamp($4) END, \
             call_back = $4::float8 IS NOT NULL WHERE id = $1",
            &[
                &lead_id,
                &outcome.status_after(unanswered).name(),
                &outcome.reached(),
                &next_call_at,
                &seconds(now),
            ],
        )
        .await
        .map_err(unavailable)?;
        // The caller's own claim ends with their call; a lead handed to them (no end) stays.
        tx.execute(
            "UPDATE \"CRN\" SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 \
             AND claimed_until IS NOT NULL AND claimed_by = (SELECT id FROM operators WHERE email = $2)",
            &[&lead_id, &operator],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }
}

/// The list's query for this shape of `query`, with only the conditions it asks for written out,
/// so that the planner reads the index made for them (a condition switched off by a parameter
/// hides its index): the leads to call, an operator's leads to call, the held leads, the overdue
/// leads from the cut-off down, the phone indexes' ranges, or the trigram index of names, newest
/// first, stopping at the page's end.
fn list_sql(query: &LeadQuery) -> (String, Vec<Box<dyn ToSql + Sync + Send>>) {
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
    // Overdue: the leads to call by time of sending, from the cut-off down; the next page starts
    // below the last lead's place in that order. The open statuses are left out there: they are
    // the leads to call (every write keeps them so), and with them the planner guesses too few
    // rows and sorts every open lead instead of reading the index from the cut-off.
    let by_sending = query.created_before.is_some() && query.open_only && !query.held;
    if query.open_only && !by_sending {
        conditions.push(format!("status IN ({})", open_statuses_sql()));
    }
    if let Some(before) = query.created_before {
        conditions.push(format!("created_at < to_timestamp({}::float8)", bind(Box::new(seconds(before)))));
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
    // As the trigram index of names has it.
    if let Some(pattern) = &query.name_pattern {
        conditions.push(format!(
            "translate(lower(name), 'ʼ’`', repeat(chr(39), 3)) LIKE {}::text ESCAPE '\\'",
            bind(Box::new(pattern.clone()))
        ));
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
    let order = if by_sending { "created_at DESC, id DESC" } else { "id DESC" };
    let limit = bind(Box::new(i64::from(query.limit)));
    let sql = format!(
        "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE {} ORDER BY {order} LIMIT {limit}",
        conditions.join(" AND ")
    );
    (sql, values)
}

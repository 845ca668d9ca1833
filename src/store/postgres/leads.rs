//! The visitor's leads: the insert (with its idempotency record and outbox rows), the pages of an
//! export, erasure, retention and release from quarantine.

use std::collections::HashSet;

use super::name_words::{Fold, Folds};
use super::*;
use crate::store::ExportedLead;

/// Most leads one batch writes: one transaction, its statements sent in one flight, one commit
/// (one WAL flush) for them all.
const BATCH_LEADS: usize = 64;
/// Batches written at once, each on a pooled connection of its own: while one waits for its
/// commit's flush, the others fill the next.
pub(super) const BATCH_WRITERS: usize = 4;
/// The longest a batch may take, and then all of its requests written again one by one: a
/// connection that stalls must not hold a writer, and the requests behind it, for longer. Above
/// `LOCK_WAIT`, below the request's own time limit.
const BATCH_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

/// The insert of many leads, one statement for all (ADR 0050): the rows come as arrays, one
/// element a lead, in the order the leads arrived. Each lead's duplicate lookup is its first part
/// and the outbox rows its last. A repeat's first lead was notified already and a held lead is
/// notified once released: neither gets a `new` row, and neither is due for a call; a lead of the
/// call list is due at once. A repeat tells whoever holds its first lead, if open, that the person
/// wrote again (once per lead), here rather than after the answer, so that a repeat's answer costs
/// no more writes than a first lead's. The lookup sees only rows stored before the
/// statement: a phone twice among the leads is written in two statements (`runs`). A number is
/// compared in byte order (`COLLATE "C"`), so that its one index, the phone search's, serves it
/// (ADR 0055).
///
/// The ids are drawn in the order the rows are inserted, which is the leads' order (`ORDER BY
/// n`), so the answers, in id order, are in the leads' order too, and the k-th new id is the
/// k-th lead's (its channels: `$16` names the lead of each channel in `$17`).
static INSERT_LEADS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        concat!(
            "WITH input AS ( \
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
         $7::float8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], \
         $14::text[], $15::float8[]) WITH ORDINALITY \
         AS l(name, phone, phone_e164, confirmation, comment, policy_version, window_secs, held, \
           utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, at, n)), \
     looked_up AS ( \
       SELECT input.*, {first_lead} AS first FROM input), \
     new AS ( \
       INSERT INTO \"CRN\" \
       (name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held, \
        utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, created_at, next_call_at) \
       SELECT name, phone, phone_e164, confirmation, comment, policy_version, first, held, \
         utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, to_timestamp(at), \
         CASE WHEN held IS NULL AND first IS NULL THEN to_timestamp(at) END \
       FROM looked_up ORDER BY n \
       RETURNING id, created_at, name, phone, confirmation, comment, repeat_of, held), \
     numbered AS (SELECT new.*, row_number() OVER (ORDER BY id) AS n FROM new), \
     queued AS ( \
       INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
       SELECT numbered.id, '{new}', channel.name, numbered.created_at, numbered.created_at \
       FROM numbered JOIN unnest($16::int8[], $17::text[]) AS channel(n, name) USING (n) \
       WHERE numbered.repeat_of IS NULL AND numbered.held IS NULL), \
     told AS ( \
       INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
       SELECT first.id, '{wrote_again}', channel.name, numbered.created_at, numbered.created_at \
       FROM numbered JOIN unnest($16::int8[], $17::text[]) AS channel(n, name) USING (n) \
       JOIN \"CRN\" AS first ON first.id = numbered.repeat_of WHERE {told} \
       ON CONFLICT (lead_id, event, channel) DO NOTHING) \
     SELECT id, ",
            text_time!("created_at"),
            ", name, phone, confirmation, comment, repeat_of FROM new ORDER BY id"
        ),
        new = Event::New.name(),
        wrote_again = Event::WroteAgain.name(),
        first_lead = open_first_lead("input.phone_e164", "to_timestamp(input.at)", "input.window_secs"),
        told = holder_is_told("first", "numbered.created_at"),
    )
});

/// The id of the person's open first lead of the call list that a lead with the number `phone`,
/// sent at `at`, is a repeat of: the newest sent within `window_secs` (NULL: no window, never a
/// repeat). Asked by an insert for each lead and by a release (ADR 0081, 0085).
fn open_first_lead(phone: &str, at: &str, window_secs: &str) -> String {
    format!(
        "(SELECT first.id FROM \"CRN\" AS first WHERE {window_secs} IS NOT NULL \
          AND first.phone_e164 COLLATE \"C\" = {phone} AND first.repeat_of IS NULL AND first.held IS NULL \
          AND first.status IN ({open}) \
          AND first.created_at >= {at} - make_interval(secs => {window_secs}) \
          ORDER BY first.id DESC LIMIT 1)",
        open = open_statuses_sql()
    )
}

/// Whether whoever holds the first lead `first` (an alias) at `at` is told the person wrote again:
/// the lead is open and someone has it (handed to them, or taken and not run out), once per lead.
fn holder_is_told(first: &str, at: &str) -> String {
    format!(
        "{first}.status IN ({open}) AND {first}.claimed_by IS NOT NULL \
         AND ({first}.claimed_until IS NULL OR {first}.claimed_until > {at})",
        open = open_statuses_sql()
    )
}

/// Two instances taking the same phone at once: a lock on each phone, held until commit, makes the
/// second see the first's row. Taken in one order (of the keys) so that two batches never wait
/// for each other's locks in a circle.
const LOCK_PHONES: &str = "SELECT pg_advisory_xact_lock(key) FROM \
     (SELECT DISTINCT hashtext(phone) AS key FROM unnest($1::text[]) AS phone ORDER BY key) AS keys";

/// Leads waiting for a batch writer, and where their answer goes.
pub(super) struct InsertJob {
    leads: Vec<NewLead>,
    context: InsertContext,
    now: jiff::Timestamp,
    reply: oneshot::Sender<Result<Vec<Stored>, StoreError>>,
}

/// The batch writers' shared end of the queue: one writer at a time takes what waits.
pub(super) type InsertQueue = Arc<tokio::sync::Mutex<mpsc::Receiver<InsertJob>>>;

impl PostgresStore {
    /// Inserts with an `Idempotency-Key` (an API client's) are written on their own; the rest wait
    /// for a batch writer, which writes the leads of many requests in one transaction.
    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: InsertContext,
        idempotency: Option<Idempotency>,
        now: jiff::Timestamp,
    ) -> Result<Vec<Stored>, StoreError> {
        if idempotency.is_some() {
            return insert_alone(&self.pool, &self.folds, &leads, &context, idempotency.as_ref(), now).await;
        }
        let queue = self.inserts.lock().expect("inserts lock").clone().ok_or(StoreError::Closed)?;
        let (reply, answer) = oneshot::channel();
        queue.send(InsertJob { leads, context, now, reply }).await.map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }
}

/// One batch writer: takes every insert waiting (up to `BATCH_LEADS` leads) and writes them in one
/// transaction. Ends when the store closes and the queue is empty.
pub(super) async fn write_batches(pool: Pool, folds: Arc<Folds>, queue: InsertQueue) {
    loop {
        let mut batch = Vec::new();
        {
            let mut jobs = queue.lock().await;
            let Some(first) = jobs.recv().await else { return };
            let mut leads = first.leads.len();
            batch.push(first);
            while leads < BATCH_LEADS {
                let Ok(job) = jobs.try_recv() else { break };
                leads += job.leads.len();
                batch.push(job);
            }
        }
        // A request cut off while it waited (its client was told it failed) is not written.
        batch.retain(|job| !job.reply.is_closed());
        if batch.is_empty() {
            continue;
        }
        // In a task of its own: a batch that panics (a bug) drops its replies, so its requests are
        // told it failed, and this writer goes on with the next batch. The panic's message is not
        // logged: it could quote a lead.
        if tokio::spawn(answer_batch(pool.clone(), folds.clone(), batch)).await.is_err() {
            tracing::error!("a batch of inserts failed with a panic");
        }
    }
}

/// Writes one batch, answers each of its requests, then folds the words of the names stored.
async fn answer_batch(pool: Pool, folds: Arc<Folds>, batch: Vec<InsertJob>) {
    write_and_answer(&pool, batch).await;
    folds.fold(Fold::UnlessBusy).await;
}

/// Writes one batch in one transaction, or its requests one by one if the database refused a row.
async fn write_and_answer(pool: &Pool, batch: Vec<InsertJob>) {
    let deadline = tokio::time::Instant::now() + BATCH_TIME_LIMIT;
    match on_connection(pool, deadline, async |client| write_batch(client, &batch).await).await {
        Ok(stored) => {
            for (job, stored) in batch.into_iter().zip(stored) {
                let _ = job.reply.send(Ok(stored));
            }
        }
        // The database refused a row (or chose this batch to end a deadlock) and nothing was
        // committed: each request is written on its own, so that one that fails fails alone. A
        // batch of one request ended by a deadlock is written once more, as a visitor would send
        // it again: the transaction it waited for could go on.
        Err(BatchError::Refused(e)) if batch.len() > 1 || deadlocked(&e) => {
            // Through `unavailable`: the error's DETAIL may quote a row.
            let reason = unavailable(e);
            tracing::warn!(error = %reason, requests = batch.len(), "a batch of inserts was refused; writing them one by one");
            let deadline = tokio::time::Instant::now() + BATCH_TIME_LIMIT;
            for job in batch.into_iter().filter(|job| !job.reply.is_closed()) {
                let (leads, context, now) = (&job.leads, &job.context, job.now);
                let alone = on_connection(pool, deadline, async |client| {
                    write_alone(client, leads, context, None, now).await
                });
                let _ = job.reply.send(alone.await);
            }
        }
        // No connection, a connection lost or stalled, the database shutting down, a lock not
        // granted in time, a failed commit (whose outcome is not known): as for a lone insert,
        // each caller is told it failed and may send again.
        Err(error) => {
            let e = match error {
                BatchError::Refused(e) => unavailable(e),
                BatchError::Failed(e) => e,
            };
            for job in batch {
                let _ = job.reply.send(Err(e.clone()));
            }
        }
    }
}

enum BatchError {
    /// Before the commit, the database refused a row (its data or a constraint: SQLSTATE classes
    /// 22 and 23) or ended a deadlock with this batch: nothing was written, and written one by one
    /// the other requests may well be stored.
    Refused(tokio_postgres::Error),
    /// Anything else, the commit included.
    Failed(StoreError),
}

impl From<tokio_postgres::Error> for BatchError {
    fn from(e: tokio_postgres::Error) -> BatchError {
        BatchError::Failed(unavailable(e))
    }
}

impl From<StoreError> for BatchError {
    fn from(e: StoreError) -> BatchError {
        BatchError::Failed(e)
    }
}

/// Runs `write` on a pooled connection until `deadline`. A connection that has not answered by
/// then is closed, not pooled again: it may be stalled, or in the middle of a transaction.
async fn on_connection<T, E: From<StoreError>>(
    pool: &Pool,
    deadline: tokio::time::Instant,
    write: impl AsyncFnOnce(&mut deadpool_postgres::Object) -> Result<T, E>,
) -> Result<T, E> {
    let mut client = pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))?;
    match tokio::time::timeout_at(deadline, write(&mut client)).await {
        Ok(written) => written,
        Err(_) => {
            drop(deadpool_postgres::Object::take(client));
            Err(no_answer().into())
        }
    }
}

/// Writes the batch in one transaction: BEGIN, its leads (`write_leads`), COMMIT.
async fn write_batch(
    client: &mut deadpool_postgres::Object,
    batch: &[InsertJob],
) -> Result<Vec<Vec<Stored>>, BatchError> {
    let refused = |e: tokio_postgres::Error| match e.code().map(|code| code.code()) {
        Some(code) if code.starts_with("22") || code.starts_with("23") || deadlocked(&e) => {
            BatchError::Refused(e)
        }
        _ => BatchError::from(e),
    };
    let tx = client.transaction().await?;
    let values: Vec<LeadValues> = batch
        .iter()
        .flat_map(|job| job.leads.iter().map(|lead| LeadValues::of(lead, &job.context, job.now)))
        .collect();
    let rows = write_leads(&tx, &values).await.map_err(refused)?;
    // The answers are read before the commit: should reading them fail, nothing is stored.
    let mut rows = rows.iter();
    let stored = batch
        .iter()
        .map(|job| job.leads.iter().zip(&mut rows).map(|(_, row)| stored_from(row)).collect())
        .collect();
    tx.commit().await?;
    Ok(stored)
}

/// The database ended a deadlock by rolling this transaction back.
fn deadlocked(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&tokio_postgres::error::SqlState::T_R_DEADLOCK_DETECTED)
}

fn no_answer() -> StoreError {
    StoreError::Unavailable(format!("PostgreSQL did not answer within {} s", BATCH_TIME_LIMIT.as_secs()))
}

/// Writes one request's leads in a transaction of their own: an insert with an `Idempotency-Key`.
async fn insert_alone(
    pool: &Pool,
    folds: &Folds,
    leads: &[NewLead],
    context: &InsertContext,
    idempotency: Option<&Idempotency>,
    now: jiff::Timestamp,
) -> Result<Vec<Stored>, StoreError> {
    let mut client = pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))?;
    let stored = write_alone(&mut client, leads, context, idempotency, now).await;
    drop(client);
    folds.fold(Fold::UnlessBusy).await;
    stored
}

/// One request's leads in a transaction of their own: an insert with an `Idempotency-Key`, or a
/// batch's request written again on its own.
async fn write_alone(
    client: &mut deadpool_postgres::Object,
    leads: &[NewLead],
    context: &InsertContext,
    idempotency: Option<&Idempotency>,
    now: jiff::Timestamp,
) -> Result<Vec<Stored>, StoreError> {
    let tx = client.transaction().await.map_err(unavailable)?;
    if let Some(idempotency) = idempotency {
        // Instances share no memory: the key is claimed with a lock held until this commit.
        // One that cannot take it, or takes it only after another request recorded the key,
        // stores nothing and says so. Two statements: the record is read with a snapshot
        // taken after the lock, which sees a commit that released it.
        let locked: bool = tx
            .query_one(
                "SELECT pg_try_advisory_xact_lock(hashtextextended('Idempotency-Key ' || $1, 0))",
                &[&idempotency.key],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        let recorded = locked
            && tx
                .query_opt(
                    "SELECT 1 FROM idempotency_keys WHERE key = $1 \
                     AND created_at >= to_timestamp($3) - make_interval(secs => $2)",
                    &[&idempotency.key, &(IDEMPOTENCY_WINDOW.as_secs_f64()), &seconds(now)],
                )
                .await
                .map_err(unavailable)?
                .is_some();
        if !locked || recorded {
            return Err(StoreError::IdempotencyKeyTaken);
        }
    }
    let values: Vec<LeadValues> = leads.iter().map(|lead| LeadValues::of(lead, context, now)).collect();
    let stored: Vec<Stored> =
        write_leads(&tx, &values).await.map_err(unavailable)?.iter().map(stored_from).collect();
    if let Some(idempotency) = idempotency {
        let ids: Vec<i64> = stored.iter().map(|row| row.lead.id).collect();
        tx.execute(
            "INSERT INTO idempotency_keys (key, fingerprint, lead_ids, created_at) \
             VALUES ($1, $2, $3, to_timestamp($4)) ON CONFLICT (key) DO NOTHING",
            &[&idempotency.key, &idempotency.fingerprint, &ids, &seconds(now)],
        )
        .await
        .map_err(unavailable)?;
    }
    tx.commit().await.map_err(unavailable)?;
    Ok(stored)
}

/// Locks the leads' phones and inserts the leads, all sent in one flight (tokio-postgres pipelines
/// queries polled together, in the order first polled). PostgreSQL runs them in that order: the
/// inserts after the locks are taken, so their snapshots see every row committed before, and each
/// sees the rows of those before it. The rows come back in the leads' order.
async fn write_leads(
    tx: &deadpool_postgres::Transaction<'_>,
    values: &[LeadValues<'_>],
) -> Result<Vec<Row>, tokio_postgres::Error> {
    let lock = tx.prepare_cached(LOCK_PHONES).await?;
    let insert = tx.prepare_cached(&INSERT_LEADS).await?;
    let phones: Vec<&str> = values.iter().filter(|v| v.window.is_some()).map(|v| v.phone).collect();
    let columns: Vec<LeadColumns> = runs(values).map(LeadColumns::of).collect();
    let params: Vec<_> = columns.iter().map(LeadColumns::params).collect();
    let inserts = futures_util::future::try_join_all(params.iter().map(|params| tx.query(&insert, params)));
    let lock_params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&phones];
    // Biased: should the locks fail, their error is the one reported, not an insert's "current
    // transaction is aborted" that follows from it.
    let (_, rows) = tokio::try_join!(biased; tx.execute(&lock, &lock_params), inserts)?;
    Ok(rows.into_iter().flatten().collect())
}

/// The leads cut into runs, one statement each, in their order: a run ends before a phone it
/// already holds, so the lead that sends it again is looked up in a later statement, which sees
/// the first and stores a repeat. Ids stay in the leads' order.
fn runs<'v, 'a>(values: &'v [LeadValues<'a>]) -> impl Iterator<Item = &'v [LeadValues<'a>]> {
    let mut rest = values;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut phones = HashSet::new();
        let end = rest
            .iter()
            .position(|value| value.window.is_some() && !phones.insert(value.phone))
            .unwrap_or(rest.len());
        let (run, after) = rest.split_at(end);
        rest = after;
        Some(run)
    })
}

/// One lead's values.
struct LeadValues<'a> {
    lead: &'a NewLead,
    phone: &'a str,
    policy_version: &'a str,
    /// The duplicate window in seconds; none for a held lead, which stands alone: it must not make
    /// a person's real lead its repeat.
    window: Option<f64>,
    held: Option<String>,
    source: [Option<&'a str>; 6],
    channels: Vec<&'static str>,
    /// When the lead arrived, in seconds since 1970.
    now: f64,
}

impl<'a> LeadValues<'a> {
    fn of(lead: &'a NewLead, context: &'a InsertContext, now: jiff::Timestamp) -> LeadValues<'a> {
        let held = held_text(&lead.held);
        LeadValues {
            lead,
            phone: &lead.phone_e164,
            policy_version: &context.policy_version,
            window: context.duplicate_window.map(|w| w.as_secs_f64()).filter(|_| held.is_none()),
            held,
            source: lead.attribution.values(),
            channels: channel_names(&context.channels),
            now: seconds(now),
        }
    }
}

/// The parameters of `INSERT_LEADS` for some leads: a column of each value, one element a lead.
struct LeadColumns<'a> {
    text: [Vec<Option<&'a str>>; 13],
    window: Vec<Option<f64>>,
    now: Vec<f64>,
    /// Each channel's lead (its place among these leads, from 1) and name.
    channel_leads: Vec<i64>,
    channel_names: Vec<&'static str>,
}

impl<'a> LeadColumns<'a> {
    fn of(values: &'a [LeadValues<'a>]) -> LeadColumns<'a> {
        let mut columns = LeadColumns {
            text: Default::default(),
            window: Vec::with_capacity(values.len()),
            now: Vec::with_capacity(values.len()),
            channel_leads: Vec::new(),
            channel_names: Vec::new(),
        };
        for (n, value) in (1..).zip(values) {
            let lead = value.lead;
            let [utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer] = value.source;
            let text = [
                Some(lead.name.as_str()),
                Some(&lead.phone),
                Some(value.phone),
                Some(&lead.confirmation),
                lead.comment.as_deref(),
                Some(value.policy_version),
                value.held.as_deref(),
                utm_source,
                utm_medium,
                utm_campaign,
                utm_content,
                utm_term,
                referrer,
            ];
            for (column, value) in columns.text.iter_mut().zip(text) {
                column.push(value);
            }
            columns.window.push(value.window);
            columns.now.push(value.now);
            for &channel in &value.channels {
                columns.channel_leads.push(n);
                columns.channel_names.push(channel);
            }
        }
        columns
    }

    fn params(&self) -> [&(dyn tokio_postgres::types::ToSql + Sync); 17] {
        // The texts in `INSERT_LEADS`'s order, the window (`$7`) between the policy and `held`.
        let t = &self.text;
        [
            &t[0],
            &t[1],
            &t[2],
            &t[3],
            &t[4],
            &t[5],
            &self.window,
            &t[6],
            &t[7],
            &t[8],
            &t[9],
            &t[10],
            &t[11],
            &t[12],
            &self.now,
            &self.channel_leads,
            &self.channel_names,
        ]
    }
}

fn stored_from(row: &Row) -> Stored {
    Stored { lead: lead_from(row), repeat_of: row.get(6) }
}

impl PostgresStore {
    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT fingerprint, lead_ids FROM idempotency_keys \
                 WHERE key = $1 AND created_at >= to_timestamp($2)",
                &[&key, &(since.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let purged = client
            .execute(
                "DELETE FROM idempotency_keys WHERE created_at < to_timestamp($1)",
                &[&(before.as_millisecond() as f64 / 1000.0)],
            )
            .await
            .map_err(unavailable)?;
        Ok(purged as usize)
    }

    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        let rows = leads_with_ids(&*self.client().await?, LEAD_COLUMNS, &ids).await?;
        Ok(rows.iter().map(lead_from).collect())
    }

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after_id, &i64::from(limit)],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows.iter().map(record_from).collect())
    }

    pub async fn export_span(&self) -> Result<Option<(i64, i64)>, StoreError> {
        let client = self.client().await?;
        let row = client.query_one("SELECT min(id), max(id) FROM \"CRN\"", &[]).await.map_err(unavailable)?;
        Ok(row.get::<_, Option<i64>>(0).zip(row.get::<_, Option<i64>>(1)))
    }

    pub async fn export_page(&self, after_id: i64, through_id: i64) -> Result<Vec<ExportedLead>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                concat!(
                    "SELECT id, ",
                    text_time!("created_at"),
                    ", name, phone, confirmation, comment, status, ",
                    text_time!("reached_at"),
                    ", policy_version, repeat_of, held, utm_source, utm_medium, utm_campaign, utm_content, \
                     utm_term, referrer, ",
                    text_time!("first_call_at"),
                    " FROM \"CRN\" WHERE id > $1 AND id <= $2 ORDER BY id"
                ),
                &[&after_id, &through_id],
            )
            .await
            .map_err(unavailable)?;
        Ok(rows
            .iter()
            .map(|row| ExportedLead {
                id: row.get(0),
                created_at: row.get(1),
                name: row.get(2),
                phone: row.get(3),
                confirmation: row.get(4),
                comment: row.get(5),
                status: status_of(row.get(6)),
                reached_at: row.get(7),
                policy_version: row.get(8),
                repeat_of: row.get(9),
                held: held_codes(row.get(10)),
                attribution: Attribution::from_values([
                    row.get(11),
                    row.get(12),
                    row.get(13),
                    row.get(14),
                    row.get(15),
                    row.get(16),
                ]),
                first_attempt_at: row.get(17),
            })
            .collect())
    }

    pub async fn erase_phone(&self, phone_e164: String) -> Result<usize, StoreError> {
        // In byte order: the number's one index (ADR 0055).
        self.delete_leads("phone_e164 COLLATE \"C\" = $1", &phone_e164).await
    }

    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("created_at < to_timestamp($1)", &seconds(before)).await
    }

    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("held IS NOT NULL AND created_at < to_timestamp($1)", &seconds(before)).await
    }

    /// PostgreSQL's own log is recycled by its checkpoints; nothing to do here.
    pub async fn scrub_log(&self) -> Result<(), StoreError> {
        Ok(())
    }

    pub async fn release(
        &self,
        id: i64,
        channels: std::sync::Arc<[Channel]>,
        duplicate_window: Option<std::time::Duration>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // The phone's lock, as an insert takes it (`LOCK_PHONES`): a lead of the person stored
        // meanwhile is seen here, or sees this one released.
        tx.execute("SELECT pg_advisory_xact_lock(hashtext(phone_e164)) FROM \"CRN\" WHERE id = $1", &[&id])
            .await
            .map_err(unavailable)?;
        // The person's open lead of the call list, as a lead sent now would find it: the released
        // one is its repeat, not a second lead to call the same person (ADR 0085).
        let window_secs = duplicate_window.map(|window| window.as_secs_f64());
        let released = tx
            .query_opt(
                &format!(
                    "WITH held AS (SELECT id, phone_e164 FROM \"CRN\" WHERE id = $1 AND held IS NOT NULL FOR UPDATE), \
                     first AS (SELECT {first_lead} AS id FROM held) \
                     UPDATE \"CRN\" AS l SET held = NULL, call_back = false, \
                       repeat_of = coalesce(l.repeat_of, first.id), \
                       next_call_at = CASE WHEN l.repeat_of IS NULL AND first.id IS NULL AND l.status IN ({open}) \
                       THEN to_timestamp($2) END \
                     FROM held, first WHERE l.id = held.id RETURNING first.id",
                    first_lead = open_first_lead("held.phone_e164", "to_timestamp($2)", "$3::float8"),
                    open = open_statuses_sql()
                ),
                &[&id, &seconds(now), &window_secs],
            )
            .await
            .map_err(unavailable)?;
        let Some(released) = released else {
            tx.rollback().await.map_err(unavailable)?;
            return Ok(false);
        };
        super::audit::append(&*tx, &[&trail], seconds(now)).await?;
        let channels = channel_names(&channels);
        if let Some(first) = released.get::<_, Option<i64>>(0) {
            tx.execute(
                &format!(
                    "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                     SELECT id, $4, unnest($2::text[]), to_timestamp($3), to_timestamp($3) FROM \"CRN\" AS first \
                     WHERE id = $1 AND {} ON CONFLICT (lead_id, event, channel) DO NOTHING",
                    holder_is_told("first", "to_timestamp($3)")
                ),
                &[&first, &channels, &seconds(now), &Event::WroteAgain.name()],
            )
            .await
            .map_err(unavailable)?;
            tx.commit().await.map_err(unavailable)?;
            return Ok(true);
        }
        tx.execute(
            "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
             SELECT $1, $4, unnest($2::text[]), to_timestamp($3), to_timestamp($3) \
             ON CONFLICT (lead_id, event, channel) DO NOTHING",
            &[&id, &channels, &seconds(now), &Event::New.name()],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(true)
    }

    /// Deletes the leads `condition` picks and the repeats that name them, their calls and
    /// notifications (by cascade) and the idempotency records that name them, `DELETE_BATCH` leads
    /// per statement: each batch commits on its own, so no lock is held long and inserts go on
    /// between batches (ADR 0029). No transaction is left open between round trips either (the
    /// hourly purge runs in the background, and one held open while the task waits would block
    /// anyone altering those tables meanwhile). A lead is locked as it is picked (`FOR UPDATE`): one
    /// being changed meanwhile (a held lead released) is then checked again as it changed, where
    /// the delete alone took it by its id, whatever it had become. Returns how many leads went.
    async fn delete_leads(
        &self,
        condition: &str,
        value: &(dyn tokio_postgres::types::ToSql + Sync),
    ) -> Result<usize, StoreError> {
        let batch = format!(
            "WITH picked AS (SELECT id FROM \"CRN\" WHERE {condition} LIMIT $2 FOR UPDATE), \
             gone AS (DELETE FROM \"CRN\" WHERE id IN (SELECT id FROM picked \
               UNION SELECT later.id FROM \"CRN\" AS later JOIN picked ON later.repeat_of = picked.id) \
               RETURNING id), \
             forgotten AS (DELETE FROM idempotency_keys \
               WHERE lead_ids && (SELECT coalesce(array_agg(id), '{{}}') FROM gone)) \
             SELECT (SELECT count(*) FROM picked), (SELECT count(*) FROM gone)"
        );
        let mut deleted = 0;
        loop {
            let client = self.client().await?;
            let row = client.query_one(&batch, &[value, &DELETE_BATCH]).await.map_err(unavailable)?;
            drop(client);
            self.folds.fold(Fold::Waiting).await;
            let (picked, gone): (i64, i64) = (row.get(0), row.get(1));
            deleted += gone as usize;
            if picked < DELETE_BATCH {
                return Ok(deleted);
            }
        }
    }
}

/// Leads one statement deletes at most (with their repeats).
const DELETE_BATCH: i64 = 1000;

fn lead_from(row: &Row) -> Lead {
    Lead {
        id: row.get(0),
        created_at: row.get(1),
        name: row.get(2),
        phone: row.get(3),
        confirmation: row.get(4),
        comment: row.get(5),
    }
}

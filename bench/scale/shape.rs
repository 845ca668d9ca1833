//! A year of leads in realistic shape, written through the store's own paths (`Store::insert` and
//! `Store::add_attempts` in batches, `Store::hand_to`, `Store::take`), then spread over the year:
//! the store stamps every write with its clock, so the times are moved afterwards, lead by lead,
//! each by its own shift (its calls, reach and next call move with it). On SQLite the clock already
//! runs through the year as the leads are written, so the move is a small one and the file is laid
//! out as a year of arrivals lays it out. On PostgreSQL a writer a core, each a store with a clock
//! of its own, fill side by side. Shared by the `fill` example and the growth smoke test
//! (tests/scale.rs).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::{StreamExt, stream};
use jiff::{SignedDuration, Timestamp};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use zayavka::abuse::Signal;
use zayavka::application::Actor;
use zayavka::clock::{Clock, ClockHand};
use zayavka::config::DatabaseUrl;
use zayavka::inbox::{CallPlan, Outcome};
use zayavka::lead::{Attribution, MAX_LEADS_PER_REQUEST, NewLead};
use zayavka::store::{AuditEntry, CallLogged, EntryOf, InsertContext, NewAttempt, Store};
use zayavka::team::{Action, Role};

/// How many leads, over how many days before now.
#[derive(Debug, Clone)]
pub struct Shape {
    pub leads: usize,
    pub days: i64,
    pub seed: u64,
    /// Stop after the inserts: no calls, no year (`bench/parts.sh`).
    pub leads_only: bool,
}

/// The operators the fill makes (and the reads sign in as).
pub const OPERATORS: [&str; 6] = [
    "olena@bench.test",
    "petro@bench.test",
    "iryna@bench.test",
    "taras@bench.test",
    "oksana@bench.test",
    "andrii@bench.test",
];
pub const ADMIN: &str = "admin@bench.test";

/// What the fill did and how long each step took.
#[derive(Debug, Default)]
pub struct Filled {
    pub leads: usize,
    pub repeats: usize,
    pub held: usize,
    pub calls: usize,
    pub handed: usize,
    pub taken: usize,
    pub insert_time: Duration,
    /// The process's CPU time over the inserts (the store and its engine, no HTTP).
    pub insert_cpu: Duration,
    pub call_time: Duration,
    pub spread_time: Duration,
}

const FIRST_NAMES: [&str; 24] = [
    "Олена",
    "Петро",
    "Ірина",
    "Тарас",
    "Оксана",
    "Андрій",
    "Наталія",
    "Олександр",
    "Марія",
    "Дмитро",
    "Юлія",
    "Сергій",
    "Катерина",
    "Богдан",
    "Світлана",
    "Василь",
    "Галина",
    "Микола",
    "Тетяна",
    "Ярослав",
    "Людмила",
    "Іван",
    "Анастасія",
    "Роман",
];
const LAST_NAMES: [&str; 24] = [
    "Шевченко",
    "Коваленко",
    "Бондаренко",
    "Ткаченко",
    "Кравченко",
    "Олійник",
    "Шевчук",
    "Поліщук",
    "Мельник",
    "Бойко",
    "Ковальчук",
    "Савченко",
    "Руденко",
    "Мороз",
    "Лисенко",
    "Марченко",
    "Павленко",
    "Гончаренко",
    "Кузьменко",
    "Климченко",
    "Петренко",
    "О'Коннор",
    "Гаврилюк",
    "Литвиненко",
];
/// Ukrainian mobile operators' codes.
const MOBILE_CODES: [&str; 12] = ["50", "63", "66", "67", "68", "73", "93", "95", "96", "97", "98", "99"];
const SOURCES: [(Option<&str>, Option<&str>); 6] = [
    (None, None),
    (Some("google"), Some("www.google.com")),
    (Some("facebook"), Some("m.facebook.com")),
    (Some("instagram"), Some("l.instagram.com")),
    (Some("tiktok"), None),
    (None, Some("www.google.com")),
];

/// Fills an empty database at `url` (opened and closed here) with `shape`.
pub async fn fill(url: &DatabaseUrl, shape: &Shape) -> anyhow::Result<Filled> {
    let mut filled = Filled::default();
    let mut rng = StdRng::seed_from_u64(shape.seed);
    let now = Timestamp::now();
    let year =
        Year { start: now - SignedDuration::from_hours(24 * shape.days), end: now, leads: shape.leads };
    let writers = Writer::for_engine(url, now).await?;
    let store = &writers[0].leads;
    let mut operator_ids = Vec::new();
    let added = || -> EntryOf<Role> {
        Box::new(|role| by(ADMIN).did(Action::AddedOperator, None, Some(role.name().into())))
    };
    store.add_operator(ADMIN.into(), "not a password hash".into(), Some(Role::Admin), added()).await?;
    for email in OPERATORS {
        store.add_operator(email.into(), "not a password hash".into(), Some(Role::Operator), added()).await?;
        operator_ids.push(store.operator(email.into()).await?.expect("just added").id);
    }

    // The leads, as many to a request as the API takes, many requests in flight: the writer takes
    // several in one commit, and each stays a small write (ADR 0045). A number always goes through
    // the same writer, so that a person who sends again is found as a repeat. On SQLite each
    // request is stamped where its leads will stand in the year.
    let (started, cpu_before) = (Instant::now(), cpu_time()?);
    let context = InsertContext {
        channels: Arc::from(Vec::new()),
        policy_version: Arc::from("bench"),
        duplicate_window: Some(Duration::from_secs(24 * 3600)),
    };
    let mut recent_phones: Vec<(String, String)> = Vec::new();
    let mut leads = Vec::with_capacity(shape.leads);
    for _ in 0..shape.leads {
        let lead = new_lead(&mut rng, &mut recent_phones);
        let number: usize = lead.phone_e164[lead.phone_e164.len() - 4..].parse()?;
        leads.push((number % writers.len(), [lead]));
    }
    let requests = per_writer(leads, writers.len(), MAX_LEADS_PER_REQUEST);
    let in_year_order = matches!(url, DatabaseUrl::Sqlite(_));
    // PostgreSQL's statistics of the leads while they grow, taken each time they are a tenth more,
    // as autovacuum would: with none, this machine's PostgreSQL (autovacuum off) planned the
    // inserts' statements as scans of every lead, and a 2 M fill slowed to 15,000 leads a minute
    // by 0.9 M (bench/RESULTS.md, 3 Dec 19:14).
    let (stored_so_far, next_analysis) = (&AtomicUsize::new(0), &AtomicUsize::new(10_000));
    let results: Vec<_> = stream::iter(requests.into_iter().enumerate())
        .map(|(n, (writer, leads))| {
            let sent = in_year_order.then(|| year.at(n * MAX_LEADS_PER_REQUEST));
            let (store, context) = (writers[writer].store_at(&writers[writer].leads, sent), context.clone());
            async move {
                let held: Vec<bool> = leads.iter().map(|lead| !lead.held.is_empty()).collect();
                let stored = store.insert(leads, &context, None).await?;
                let so_far = stored_so_far.fetch_add(stored.len(), Ordering::Relaxed) + stored.len();
                let due = next_analysis.load(Ordering::Relaxed);
                if so_far >= due
                    && next_analysis
                        .compare_exchange(due, so_far + so_far / 10, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    spread::analyze(url).await?;
                }
                anyhow::Ok(stored.into_iter().zip(held).map(move |(s, held)| Row {
                    id: s.lead.id,
                    repeat: s.repeat_of.is_some(),
                    held,
                    writer,
                }))
            }
        })
        .buffer_unordered(256)
        .collect()
        .await;
    let mut rows: Vec<Row> = Vec::with_capacity(shape.leads);
    for result in results {
        rows.extend(result?);
    }
    rows.sort_unstable_by_key(|row| row.id);
    filled.leads = rows.len();
    filled.repeats = rows.iter().filter(|row| row.repeat).count();
    filled.held = rows.iter().filter(|row| row.held).count();
    filled.insert_time = started.elapsed();
    filled.insert_cpu = cpu_time()? - cpu_before;
    if shape.leads_only {
        close(&writers).await;
        return Ok(filled);
    }

    // Where each lead will stand in the year (by id, oldest first), and so what happened to it.
    let year = Year { leads: rows.len(), ..year };
    let started = Instant::now();
    let mut handed = Vec::new();
    let mut calls = Vec::new();
    for (rank, row) in rows.iter().enumerate() {
        if row.repeat || row.held {
            continue;
        }
        let sent = year.at(rank);
        let age = now.duration_since(sent);
        let operator = OPERATORS[rng.random_range(0..OPERATORS.len())];
        if rng.random_bool(0.1) {
            handed.push((row.id, operator_ids[rng.random_range(0..operator_ids.len())]));
        }
        calls.extend(calls_for(&mut rng, age).into_iter().map(|outcome| Call {
            writer: row.writer,
            lead_id: row.id,
            sent,
            operator,
            outcome,
        }));
    }
    filled.handed = handed.len();
    filled.calls = calls.len();
    // Leads handed to an operator with no end, while the calls are made: a handed lead stays its
    // holder's through any call (only a timed claim ends with its holder's call), so the order
    // changes nothing, and the cores the calls leave idle hand them.
    let handing = stream::iter(handed)
        .map(|(id, operator_id)| {
            let store = store.clone();
            async move { store.hand_to(id, Some(operator_id), entry(ADMIN, Action::HandedOver, id)).await }
        })
        .buffer_unordered(16)
        .collect::<Vec<Result<bool, _>>>();
    // The calls in batches through the store's batch path, a lead's calls in one batch and in
    // their order, each lead's by the writer that stored it. SQLite's writer takes many small
    // batches in one commit (ADR 0045); on PostgreSQL each writer's batches go one after the
    // other, as each holds the counters' rows of its hour until it commits, and the writers run
    // side by side.
    let (in_flight, leads_per_batch) =
        if matches!(url, DatabaseUrl::Sqlite(_)) { (64, 20) } else { (1, 1_000) };
    let lead_calls = calls
        .chunk_by(|a, b| a.lead_id == b.lead_id)
        .map(|of_lead| (of_lead[0].writer, of_lead.iter().copied()));
    let batches = per_writer(lead_calls, writers.len(), leads_per_batch);
    // In rounds, each a tenth of the calls made before it (10,000 at least): after each,
    // PostgreSQL's statistics are taken again in the background while the next round is made, as
    // its autovacuum would once a tenth of a table changed. Without them (this machine's
    // PostgreSQL runs with autovacuum off) the calls' trigger was planned for the nearly empty
    // `call_attempts` of the first batches, and at 600 k leads each batch of the last ones hashed
    // every call marked reached (200 ms a batch).
    let calling = async {
        let mut batches = batches.into_iter().peekable();
        let mut made = 0;
        let mut analysing: Option<tokio::task::JoinHandle<anyhow::Result<()>>> = None;
        while batches.peek().is_some() {
            let mut round: Vec<Vec<Vec<Call>>> = vec![Vec::new(); writers.len()];
            let mut in_round = 0;
            while let Some((writer, batch)) = batches.next_if(|_| in_round < (made / 10).max(10_000)) {
                in_round += batch.len();
                round[writer].push(batch);
            }
            let runs = round.into_iter().zip(&writers).map(|(batches, writer)| {
                stream::iter(batches)
                    .map(|batch: Vec<Call>| {
                        let made = in_year_order.then(|| batch[0].sent + CALLS_AFTER);
                        let store = writer.store_at(&writer.calls, made);
                        make_calls(store, batch)
                    })
                    .buffer_unordered(in_flight)
                    .collect::<Vec<Result<Vec<CallLogged>, _>>>()
            });
            for result in futures_util::future::join_all(runs).await.into_iter().flatten() {
                anyhow::ensure!(
                    result?.iter().all(|&logged| logged == CallLogged::Logged),
                    "a call to a lead not stored"
                );
            }
            made += in_round;
            // One at a time: the round before's first.
            if let Some(analysed) = analysing.take() {
                analysed.await??;
            }
            let url = url.clone();
            analysing = Some(tokio::spawn(async move { spread::analyze(&url).await }));
        }
        if let Some(analysed) = analysing {
            analysed.await??;
        }
        anyhow::Ok(())
    };
    let (handed, called) = tokio::join!(handing, calling);
    called?;
    for result in handed {
        result?;
    }
    filled.call_time = started.elapsed();
    close(&writers).await;

    // Spread over the year: each lead's times move by its own shift, its calls a little later.
    let started = Instant::now();
    let moves: Vec<(i64, Timestamp, SignedDuration)> =
        rows.iter().enumerate().map(|(rank, row)| (row.id, year.at(rank), call_delay(&mut rng))).collect();
    spread::spread(url, &moves).await?;
    filled.spread_time = started.elapsed();

    // Opened again (the counters are refilled from the moved rows): operators take a few of the
    // newest leads nobody has, as they do during a shift.
    let store = Store::open(url).await?;
    let query = zayavka::store::LeadQuery {
        name_pattern: None,
        phone: None,
        open_only: true,
        overdue_before: None,
        before_id: None,
        held: false,
        holder: zayavka::store::Holder::Nobody { now },
        limit: 60,
    };
    for (n, lead) in store.find_leads(query).await?.into_iter().enumerate() {
        let operator_id = operator_ids[n % operator_ids.len()];
        let now = Timestamp::now();
        let trail = entry(OPERATORS[n % OPERATORS.len()], Action::TookLead, lead.id);
        if store.take(lead.id, operator_id, now + SignedDuration::from_hours(2), now, trail).await? {
            filled.taken += 1;
        }
    }
    store.close().await;
    spread::vacuum(url).await?;
    Ok(filled)
}

/// `units` (a lead; a lead's calls), each with its writer, in batches of `per_batch` units: every
/// batch one writer's, the units in their order, each writer's last batch the rest.
fn per_writer<T, U: IntoIterator<Item = T>>(
    units: impl IntoIterator<Item = (usize, U)>,
    writers: usize,
    per_batch: usize,
) -> Vec<(usize, Vec<T>)> {
    let mut batches = Vec::new();
    let mut filling: Vec<(Vec<T>, usize)> = (0..writers).map(|_| (Vec::new(), 0)).collect();
    for (writer, unit) in units {
        let (batch, in_batch) = &mut filling[writer];
        batch.extend(unit);
        *in_batch += 1;
        if *in_batch == per_batch {
            batches.push((writer, std::mem::take(batch)));
            *in_batch = 0;
        }
    }
    let rests = filling.into_iter().map(|(batch, _)| batch).enumerate();
    batches.extend(rests.filter(|(_, batch)| !batch.is_empty()));
    batches
}

/// One batch of calls through the store's batch path, made at the time the store's clock tells.
async fn make_calls(store: Store, batch: Vec<Call>) -> Result<Vec<CallLogged>, zayavka::store::StoreError> {
    let now = store.clock().now();
    let plan = |outcome: Outcome| CallPlan {
        at_once: now,
        call_back_at: (outcome == Outcome::CallBack).then(|| now + SignedDuration::from_hours(20)),
        retries: vec![
            Some(now + SignedDuration::from_hours(2)),
            Some(now + SignedDuration::from_hours(20)),
            None,
        ],
    };
    let calls = batch
        .into_iter()
        .map(|Call { lead_id, operator, outcome, .. }| NewAttempt {
            lead_id,
            operator: operator.into(),
            outcome,
            note: String::new(),
            plan: plan(outcome),
            request_key: None,
            trail: entry(operator, Action::RecordedCall, lead_id),
        })
        .collect();
    store.add_attempts(calls).await
}

/// `name` as the trail names whoever made the fill's changes.
fn by(name: &str) -> Actor {
    Actor { name: name.into(), address: None }
}

/// The audit entry of `actor`'s change of lead `lead_id`, written with it as the inbox's is.
pub fn entry(actor: &str, action: Action, lead_id: i64) -> AuditEntry {
    by(actor).did(action, Some(lead_id), None)
}

/// A stored lead, as the calls and the spread need it.
struct Row {
    id: i64,
    repeat: bool,
    held: bool,
    /// The writer that stored it (an index into the fill's writers).
    writer: usize,
}

/// A call the fill makes.
#[derive(Clone, Copy)]
struct Call {
    /// The writer that stored the lead.
    writer: usize,
    lead_id: i64,
    /// When the lead was sent (its place in the year).
    sent: Timestamp,
    operator: &'static str,
    outcome: Outcome,
}

/// How long after its lead the fill makes a call (the spread then moves it 0–120 h later).
const CALLS_AFTER: SignedDuration = SignedDuration::from_mins(30);

/// The year the fill spreads its leads over: evenly from `start` to `end`, by id, oldest first.
#[derive(Clone, Copy)]
struct Year {
    start: Timestamp,
    end: Timestamp,
    leads: usize,
}

impl Year {
    /// When the lead of `rank` was sent.
    fn at(&self, rank: usize) -> Timestamp {
        let span = self.end.duration_since(self.start).as_secs_f64();
        self.start + SignedDuration::from_secs_f64(span * (rank as f64 + 0.5) / self.leads as f64)
    }
}

/// One of the fill's writers: a store of its own whose clock runs from a moment of its own, its
/// leads stamped from there and its calls half an hour later (the spread moves them all to their
/// place in the year afterwards), or, on SQLite, stamped where they stand in the year.
struct Writer {
    leads: Store,
    calls: Store,
    /// The hands of the two stores' clocks.
    hands: [ClockHand; 2],
    /// Where its clocks started, and when.
    at: Timestamp,
    started: Instant,
}

impl Writer {
    /// One writer on SQLite, which writes one commit at a time. On PostgreSQL one a core (more
    /// gave nothing on two cores), each from noon of a day of its own: the counters' rows one
    /// writes (its hour's, its day's) are never another's, so none waits for another's commit.
    async fn for_engine(url: &DatabaseUrl, now: Timestamp) -> anyhow::Result<Vec<Writer>> {
        let count = match url {
            DatabaseUrl::Sqlite(_) => 1,
            DatabaseUrl::Postgres(_) => std::thread::available_parallelism().map_or(2, |cores| cores.get()),
        };
        let midnight = now.to_zoned(jiff::tz::TimeZone::UTC).start_of_day()?.timestamp();
        let mut writers = Vec::new();
        for days_before in 1..=count {
            let at = midnight - SignedDuration::from_hours(24 * days_before as i64 - 12);
            let store = Store::open(url).await?;
            let (leads, calls) = (Clock::manual(at), Clock::manual(at));
            writers.push(Writer {
                leads: store.clone().with_clock(leads.0),
                calls: store.with_clock(calls.0),
                hands: [leads.1, calls.1],
                at,
                started: Instant::now(),
            });
        }
        Ok(writers)
    }

    /// `store` (its leads' or its calls') for a write made at `at`, on a clock of its own that
    /// stands there; or with no such time on its own clock, moved on.
    fn store_at(&self, store: &Store, at: Option<Timestamp>) -> Store {
        match at {
            Some(at) => store.clone().with_clock(Clock::manual(at).0),
            None => {
                self.tick();
                store.clone()
            }
        }
    }

    /// Moves the writer's clocks on as much as the real one since it started: equal times at
    /// every write made SQLite's fill a fifth slower (its time indexes hold each key once).
    fn tick(&self) {
        let elapsed = SignedDuration::try_from(self.started.elapsed()).expect("a fill's length");
        self.hands[0].set(self.at + elapsed);
        self.hands[1].set(self.at + elapsed + CALLS_AFTER);
    }
}

async fn close(writers: &[Writer]) {
    for writer in writers {
        writer.leads.close().await;
    }
}

/// The CPU time this process has used, user and system, from `/proc/self/stat` (in ticks of
/// 1/100 s, Linux's fixed `USER_HZ`).
fn cpu_time() -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |n: usize| fields.get(n).and_then(|field| field.parse::<u64>().ok());
    let (Some(user), Some(system)) = (ticks(11), ticks(12)) else {
        anyhow::bail!("/proc/self/stat has no CPU times: {stat}");
    };
    Ok(Duration::from_millis((user + system) * 10))
}

/// One visitor's lead: a new person, or now and then someone sending again.
fn new_lead(rng: &mut StdRng, recent: &mut Vec<(String, String)>) -> NewLead {
    let (name, e164) = if !recent.is_empty() && rng.random_bool(0.08) {
        recent[rng.random_range(0..recent.len())].clone()
    } else {
        let name = format!(
            "{} {}",
            FIRST_NAMES[rng.random_range(0..FIRST_NAMES.len())],
            LAST_NAMES[rng.random_range(0..LAST_NAMES.len())]
        );
        let code = MOBILE_CODES[rng.random_range(0..MOBILE_CODES.len())];
        let e164 = format!("+380{code}{:07}", rng.random_range(0..10_000_000));
        if recent.len() < 500 {
            recent.push((name.clone(), e164.clone()));
        } else {
            let slot = rng.random_range(0..recent.len());
            recent[slot] = (name.clone(), e164.clone());
        }
        (name, e164)
    };
    let digits = &e164[4..];
    let (utm_source, referrer) = SOURCES[rng.random_range(0..SOURCES.len())];
    NewLead {
        name,
        phone: format!("0{} {} {} {}", &digits[..2], &digits[2..5], &digits[5..7], &digits[7..]),
        phone_e164: e164,
        phone_in_plan: true,
        confirmation: "Так".into(),
        comment: rng.random_bool(0.3).then(|| "Передзвоніть після 18:00".to_owned()),
        held: if rng.random_bool(0.02) { vec![Signal::NoProof.code()] } else { Vec::new() },
        attribution: Attribution {
            utm_source: utm_source.map(str::to_owned),
            utm_medium: utm_source.map(|_| "cpc".to_owned()),
            utm_campaign: utm_source.map(|_| "vesna".to_owned()),
            utm_content: None,
            utm_term: None,
            referrer: referrer.map(str::to_owned),
        },
    }
}

/// The calls a lead of `age` has had: the last day's leads mostly none yet; older ones were
/// called until they answered, said no, or were given up on; a few are still being tried.
fn calls_for(rng: &mut StdRng, age: SignedDuration) -> Vec<Outcome> {
    if age < SignedDuration::from_hours(24) {
        return if rng.random_bool(0.3) { vec![Outcome::NoAnswer] } else { Vec::new() };
    }
    let unanswered = rng.random_range(0..3);
    let mut calls = vec![Outcome::NoAnswer; unanswered];
    let end = match rng.random_range(0..100) {
        0..45 => Some(Outcome::Interested),
        45..65 => Some(Outcome::NotInterested),
        65..75 => Some(Outcome::NotEligible),
        75..88 => Some(Outcome::Unreachable),
        88..94 => {
            calls.push(Outcome::CallBack);
            Some(Outcome::Interested)
        }
        // Still being tried.
        _ => None,
    };
    calls.extend(end);
    if calls.is_empty() {
        calls.push(Outcome::NoAnswer);
    }
    calls
}

/// How long after its sending a lead's calls start: most within the day, some late.
fn call_delay(rng: &mut StdRng) -> SignedDuration {
    let hours = match rng.random_range(0..100) {
        0..75 => rng.random_range(0.1..24.0),
        75..90 => rng.random_range(24.0..48.0),
        _ => rng.random_range(48.0..120.0),
    };
    SignedDuration::from_secs_f64(hours * 3600.0)
}

/// What the fill writes past the store, engine by engine: moving the stored times (the store has
/// no such write, and needs none), and PostgreSQL's upkeep that autovacuum would do.
mod spread {
    use super::*;

    /// Moves lead `id` to `at` (its `created_at`); its other times, its calls and its first call
    /// move as much, plus `delay`. The counters' triggers are taken away first and the rules' mark
    /// with them, so the next open makes them anew and counts the moved rows once.
    pub async fn spread(url: &DatabaseUrl, moves: &[(i64, Timestamp, SignedDuration)]) -> anyhow::Result<()> {
        match url {
            DatabaseUrl::Sqlite(path) => sqlite(path, moves),
            DatabaseUrl::Postgres(url) => postgres(url, moves).await,
        }
    }

    fn text(at: Timestamp) -> String {
        format!("{at:.6}")
    }

    fn sqlite(path: &std::path::Path, moves: &[(i64, Timestamp, SignedDuration)]) -> anyhow::Result<()> {
        let mut conn = rusqlite::Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        let tx = conn.transaction()?;
        tx.execute_batch(
            "DROP TRIGGER IF EXISTS counters_lead_insert; DROP TRIGGER IF EXISTS counters_lead_update; \
             DROP TRIGGER IF EXISTS counters_lead_delete; DROP TRIGGER IF EXISTS counters_call_insert; \
             DROP TRIGGER IF EXISTS counters_call_delete; DROP TRIGGER IF EXISTS counters_call_reached; \
             DROP TRIGGER IF EXISTS counters_call_moved; DROP TRIGGER IF EXISTS counters_lead_revised; \
             DELETE FROM zayavka_meta WHERE key = 'counters_rules';",
        )?;
        {
            let mut read = tx.prepare(
                "SELECT created_at, reached_at, next_call_at, claimed_until, first_call_at \
                 FROM \"CRN\" WHERE id = ?1",
            )?;
            let mut write = tx.prepare(
                "UPDATE \"CRN\" SET created_at = ?2, reached_at = ?3, next_call_at = ?4, claimed_until = ?5, \
                 first_call_at = ?6 WHERE id = ?1",
            )?;
            let mut calls = tx.prepare("SELECT id, at FROM call_attempts WHERE lead_id = ?1")?;
            let mut write_call = tx.prepare("UPDATE call_attempts SET at = ?2 WHERE id = ?1")?;
            for &(id, at, delay) in moves {
                let (created, reached, next, until, first_call): (
                    String,
                    Option<String>,
                    Option<String>,
                    Option<String>,
                    Option<String>,
                ) = read.query_row([id], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
                })?;
                let shift = at.duration_since(created.parse::<Timestamp>()?);
                let moved = |time: Option<String>| -> anyhow::Result<Option<String>> {
                    Ok(match time {
                        Some(time) => Some(text(time.parse::<Timestamp>()? + shift + delay)),
                        None => None,
                    })
                };
                // A lead never called stays due from its sending.
                let next = if reached.is_none() && next.as_deref() == Some(created.as_str()) {
                    Some(text(at))
                } else {
                    moved(next)?
                };
                write.execute(rusqlite::params![
                    id,
                    text(at),
                    moved(reached)?,
                    next,
                    moved(until)?,
                    moved(first_call)?
                ])?;
                let rows: Vec<(i64, String)> =
                    calls.query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?.collect::<Result<_, _>>()?;
                for (call, time) in rows {
                    write_call
                        .execute(rusqlite::params![call, text(time.parse::<Timestamp>()? + shift + delay)])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The triggers dropped in a commit of their own, then the moves in two connections side by
    /// side (each lead's rows are its own: nothing is locked twice), so both cores work.
    async fn postgres(url: &str, moves: &[(i64, Timestamp, SignedDuration)]) -> anyhow::Result<()> {
        let connect = || async {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            anyhow::Ok(client)
        };
        connect()
            .await?
            .batch_execute(
                "BEGIN; \
                 DROP TRIGGER IF EXISTS counters_lead_insert ON \"CRN\"; \
                 DROP TRIGGER IF EXISTS counters_lead_update ON \"CRN\"; \
                 DROP TRIGGER IF EXISTS counters_lead_delete ON \"CRN\"; \
                 DROP TRIGGER IF EXISTS counters_call_insert ON call_attempts; \
                 DROP TRIGGER IF EXISTS counters_call_delete ON call_attempts; \
                 DROP TRIGGER IF EXISTS counters_call_moved ON call_attempts; \
                 DROP TRIGGER IF EXISTS counters_lead_revised ON \"CRN\"; \
                 DELETE FROM zayavka_meta WHERE key = 'counters_rules'; COMMIT;",
            )
            .await?;
        let move_leads = async |half: &[(i64, Timestamp, SignedDuration)]| {
            let mut client = connect().await?;
            let tx = client.transaction().await?;
            for chunk in half.chunks(20_000) {
                let ids: Vec<i64> = chunk.iter().map(|m| m.0).collect();
                let ats: Vec<f64> = chunk.iter().map(|m| m.1.as_microsecond() as f64 / 1e6).collect();
                let delays: Vec<f64> = chunk.iter().map(|m| m.2.as_secs_f64()).collect();
                tx.execute(
                    "WITH m AS (SELECT c.id, to_timestamp(v.at) AS at, \
                         to_timestamp(v.at) - c.created_at + make_interval(secs => v.delay) AS later \
                       FROM unnest($1::bigint[], $2::float8[], $3::float8[]) AS v(id, at, delay) \
                       JOIN \"CRN\" AS c ON c.id = v.id), \
                     calls AS (UPDATE call_attempts AS a SET at = a.at + m.later FROM m WHERE a.lead_id = m.id) \
                     UPDATE \"CRN\" AS c SET created_at = m.at, reached_at = c.reached_at + m.later, \
                       next_call_at = CASE WHEN c.reached_at IS NULL AND c.next_call_at = c.created_at \
                         THEN m.at ELSE c.next_call_at + m.later END, \
                       claimed_until = c.claimed_until + m.later, first_call_at = c.first_call_at + m.later \
                     FROM m WHERE c.id = m.id",
                    &[&ids, &ats, &delays],
                )
                .await?;
            }
            tx.commit().await?;
            anyhow::Ok(())
        };
        let (first, second) = moves.split_at(moves.len() / 2);
        tokio::try_join!(move_leads(first), move_leads(second))?;
        // Statistics for the moved rows: with those of before the move, the reopen's first list
        // (the leads operators take) planned a scan that ran for minutes at 2 M.
        connect().await?.batch_execute("ANALYZE").await?;
        Ok(())
    }

    /// Takes PostgreSQL's statistics of the tables the calls write, as its autovacuum would.
    pub async fn analyze(url: &DatabaseUrl) -> anyhow::Result<()> {
        if let DatabaseUrl::Postgres(url) = url {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            client.batch_execute("ANALYZE call_attempts, \"CRN\"").await?;
        }
        Ok(())
    }

    /// Vacuums PostgreSQL's tables once the fill is done: the spread rewrote every lead, and until
    /// a vacuum a name search reads the trigram index's pending entries one by one (the growth
    /// test's "search name" was 1 ms at 5 k and 3.6 ms at 50 k without it). The counters' tables
    /// are written anew: the fill updates their rows of a few hours a year's worth of times in
    /// minutes, and without autovacuum (this machine's PostgreSQL runs with it off) each update
    /// that left its page grew the table. At 2 M `lead_hours` was 127 MB for 728 kB of rows, and
    /// the stats, which sum it, took 30–36 ms instead of 5–7 (bench/RESULTS.md, 28 Nov).
    pub async fn vacuum(url: &DatabaseUrl) -> anyhow::Result<()> {
        if let DatabaseUrl::Postgres(url) = url {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            client.batch_execute("VACUUM ANALYZE").await?;
            client
                .batch_execute(
                    "VACUUM (FULL, ANALYZE) lead_hours, source_hours, source_days, operator_hours, operator_days",
                )
                .await?;
        }
        Ok(())
    }
}

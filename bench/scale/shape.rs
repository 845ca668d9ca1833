//! A year of leads in realistic shape, written through the store's own paths (`Store::insert` and
//! `Store::add_attempts` in batches, `Store::hand_to`, `Store::take`), then spread over the year:
//! the store stamps every write with the clock, so the times are moved afterwards, lead by lead,
//! each by its own shift (its calls, reach and next call move with it). Shared by the `fill`
//! example and the growth smoke test (tests/scale.rs).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, stream};
use jiff::{SignedDuration, Timestamp};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use zayavka::abuse::Signal;
use zayavka::config::DatabaseUrl;
use zayavka::inbox::{CallPlan, Outcome};
use zayavka::lead::{Attribution, MAX_LEADS_PER_REQUEST, NewLead};
use zayavka::store::{InsertContext, NewAttempt, Store};
use zayavka::team::Role;

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
    let store = Store::open(url).await?;
    let mut operator_ids = Vec::new();
    store.add_operator(ADMIN.into(), "not a password hash".into(), Some(Role::Admin)).await?;
    for email in OPERATORS {
        store.add_operator(email.into(), "not a password hash".into(), Some(Role::Operator)).await?;
        operator_ids.push(store.operator(email.into()).await?.expect("just added").id);
    }

    // The leads, as many to a request as the API takes, many requests in flight: the writer takes
    // several in one commit, and each stays a small write (ADR 0045).
    let (started, cpu_before) = (Instant::now(), cpu_time()?);
    let context = InsertContext {
        channels: Arc::from(Vec::new()),
        policy_version: Arc::from("bench"),
        duplicate_window: Some(Duration::from_secs(24 * 3600)),
    };
    let mut recent_phones: Vec<(String, String)> = Vec::new();
    let mut requests = Vec::new();
    for chunk_start in (0..shape.leads).step_by(MAX_LEADS_PER_REQUEST) {
        let mut leads = Vec::new();
        for _ in chunk_start..(chunk_start + MAX_LEADS_PER_REQUEST).min(shape.leads) {
            leads.push(new_lead(&mut rng, &mut recent_phones));
        }
        requests.push(leads);
    }
    let results: Vec<_> = stream::iter(requests)
        .map(|leads| {
            let (store, context) = (store.clone(), context.clone());
            async move {
                let held: Vec<bool> = leads.iter().map(|lead| !lead.held.is_empty()).collect();
                let stored = store.insert(leads, &context, None).await?;
                anyhow::Ok(
                    stored.into_iter().zip(held).map(|(s, held)| (s.lead.id, s.repeat_of.is_some(), held)),
                )
            }
        })
        .buffer_unordered(256)
        .collect()
        .await;
    let mut rows: Vec<(i64, bool, bool)> = Vec::with_capacity(shape.leads);
    for result in results {
        rows.extend(result?);
    }
    rows.sort_unstable_by_key(|row| row.0);
    filled.leads = rows.len();
    filled.repeats = rows.iter().filter(|row| row.1).count();
    filled.held = rows.iter().filter(|row| row.2).count();
    filled.insert_time = started.elapsed();
    filled.insert_cpu = cpu_time()? - cpu_before;
    if shape.leads_only {
        store.close().await;
        return Ok(filled);
    }

    // Where each lead will stand in the year (by id, oldest first), and so what happened to it.
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * shape.days);
    let span = now.duration_since(start).as_secs_f64();
    let when =
        |rank: usize| start + SignedDuration::from_secs_f64(span * (rank as f64 + 0.5) / rows.len() as f64);
    let started = Instant::now();
    let mut handed = Vec::new();
    let mut calls = Vec::new();
    for (rank, &(id, repeat, held)) in rows.iter().enumerate() {
        if repeat || held {
            continue;
        }
        let age = now.duration_since(when(rank));
        let operator = OPERATORS[rng.random_range(0..OPERATORS.len())];
        if rng.random_bool(0.1) {
            handed.push((id, operator_ids[rng.random_range(0..operator_ids.len())]));
        }
        calls.extend(calls_for(&mut rng, age).into_iter().map(|outcome| (id, operator, outcome)));
    }
    filled.handed = handed.len();
    filled.calls = calls.len();
    let results: Vec<Result<bool, _>> = stream::iter(handed)
        .map(|(id, operator_id)| {
            let store = store.clone();
            async move { store.hand_to(id, Some(operator_id)).await }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    for result in results {
        result?;
    }
    // The calls in batches through the store's batch path, a lead's calls in one batch and in
    // their order. SQLite's writer takes many small batches in one commit (ADR 0045); PostgreSQL's
    // batches go one after the other, as each holds the counters' rows of its hour until it commits.
    let (in_flight, leads_per_batch) =
        if matches!(url, DatabaseUrl::Sqlite(_)) { (64, 20) } else { (1, 1_000) };
    let mut batches = Vec::new();
    for batch in calls.chunk_by(|a, b| a.0 == b.0).collect::<Vec<_>>().chunks(leads_per_batch) {
        batches.push(batch.concat());
    }
    // In rounds, each a tenth of the calls made before it (10,000 at least): between them
    // PostgreSQL's statistics are taken again, as its autovacuum would once a tenth of a table
    // changed. Without them (this machine's PostgreSQL runs with autovacuum off) the calls' trigger
    // was planned for the nearly empty `call_attempts` of the first batches, and at 600 k leads
    // each batch of the last ones hashed every call marked reached (200 ms a batch).
    let mut batches = batches.into_iter().peekable();
    let mut made = 0;
    while batches.peek().is_some() {
        let mut round = Vec::new();
        let mut in_round = 0;
        while let Some(batch) = batches.next_if(|_| in_round < (made / 10).max(10_000)) {
            in_round += batch.len();
            round.push(batch);
        }
        let results: Vec<Result<Vec<bool>, _>> = stream::iter(round)
            .map(|batch| {
                let store = store.clone();
                async move {
                    let now = Timestamp::now();
                    let plan = |outcome: Outcome| CallPlan {
                        now,
                        call_back_at: (outcome == Outcome::CallBack)
                            .then(|| now + SignedDuration::from_hours(20)),
                        retries: vec![
                            Some(now + SignedDuration::from_hours(2)),
                            Some(now + SignedDuration::from_hours(20)),
                            None,
                        ],
                    };
                    let calls = batch
                        .into_iter()
                        .map(|(lead_id, operator, outcome)| NewAttempt {
                            lead_id,
                            operator: operator.into(),
                            outcome,
                            note: String::new(),
                            plan: plan(outcome),
                        })
                        .collect();
                    store.add_attempts(calls).await
                }
            })
            .buffer_unordered(in_flight)
            .collect()
            .await;
        for result in results {
            anyhow::ensure!(result?.iter().all(|&added| added), "a call to a lead not stored");
        }
        made += in_round;
        spread::analyze(url).await?;
    }
    filled.call_time = started.elapsed();
    store.close().await;

    // Spread over the year: each lead's times move by its own shift, its calls a little later.
    let started = Instant::now();
    let moves: Vec<(i64, Timestamp, SignedDuration)> =
        rows.iter().enumerate().map(|(rank, &(id, _, _))| (id, when(rank), call_delay(&mut rng))).collect();
    spread::spread(url, &moves).await?;
    filled.spread_time = started.elapsed();

    // Opened again (the counters are refilled from the moved rows): operators take a few of the
    // newest leads nobody has, as they do during a shift.
    let store = Store::open(url).await?;
    let query = zayavka::store::LeadQuery {
        name_pattern: None,
        phone: None,
        open_only: true,
        created_before: None,
        before_id: None,
        held: false,
        holder: zayavka::store::Holder::Nobody { now },
        limit: 60,
    };
    for (n, lead) in store.find_leads(query).await?.into_iter().enumerate() {
        let operator_id = operator_ids[n % operator_ids.len()];
        let now = Timestamp::now();
        if store.take(lead.id, operator_id, now + SignedDuration::from_hours(2), now).await? {
            filled.taken += 1;
        }
    }
    store.close().await;
    spread::vacuum(url).await?;
    Ok(filled)
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

    async fn postgres(url: &str, moves: &[(i64, Timestamp, SignedDuration)]) -> anyhow::Result<()> {
        let (mut client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        let tx = client.transaction().await?;
        tx.batch_execute(
            "DROP TRIGGER IF EXISTS counters_lead_insert ON \"CRN\"; \
             DROP TRIGGER IF EXISTS counters_lead_update ON \"CRN\"; \
             DROP TRIGGER IF EXISTS counters_lead_delete ON \"CRN\"; \
             DROP TRIGGER IF EXISTS counters_call_insert ON call_attempts; \
             DROP TRIGGER IF EXISTS counters_call_delete ON call_attempts; \
             DROP TRIGGER IF EXISTS counters_call_moved ON call_attempts; \
             DROP TRIGGER IF EXISTS counters_lead_revised ON \"CRN\"; \
             DELETE FROM zayavka_meta WHERE key = 'counters_rules';",
        )
        .await?;
        for chunk in moves.chunks(20_000) {
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
        // Statistics for the moved rows: with those of before the move, the reopen's first list
        // (the leads operators take) planned a scan that ran for minutes at 2 M.
        client.batch_execute("ANALYZE").await?;
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

//! A year of leads in realistic shape, written through the store's own paths (`Store::insert` and
//! `Store::add_attempts` in batches, `Store::hand_to`, `Store::take`), each write at its moment of
//! the year: the store stamps every write with its clock, and the fill gives each a clock standing
//! at that moment. Shared by the `fill` example and the growth smoke test (tests/scale.rs).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, stream};
use jiff::{SignedDuration, Timestamp};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use zayavka::abuse::Signal;
use zayavka::clock::Clock;
use zayavka::config::DatabaseUrl;
use zayavka::inbox::{CallPlan, Outcome};
use zayavka::lead::{Attribution, NewLead};
use zayavka::store::{InsertContext, NewAttempt, Store};
use zayavka::team::Role;

/// How many leads, over how many days before now.
#[derive(Debug, Clone)]
pub struct Shape {
    pub leads: usize,
    pub days: i64,
    pub seed: u64,
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
    pub call_time: Duration,
    /// PostgreSQL's vacuum and the takes.
    pub finish_time: Duration,
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
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * shape.days);
    let span = now.duration_since(start);

    // The leads, one to a request as a visitor sends them, each at its own moment of the year (a
    // store on a clock standing there), many requests in flight: the writer takes several in one
    // commit, and each stays a small write (ADR 0045).
    let started = Instant::now();
    let context = InsertContext {
        channels: Arc::from(Vec::new()),
        policy_version: Arc::from("bench"),
        duplicate_window: Some(Duration::from_secs(24 * 3600)),
    };
    let mut people = People::default();
    let requests: Vec<(Timestamp, NewLead)> = (0..shape.leads)
        .map(|n| {
            let at = start + span.mul_f64((n as f64 + 0.5) / shape.leads as f64);
            (at, new_lead(&mut rng, &mut people))
        })
        .collect();
    let results: Vec<_> = stream::iter(requests)
        .map(|(at, lead)| {
            let (store, context) = (store.clone().with_clock(Clock::manual(at).0), context.clone());
            async move {
                let held = !lead.held.is_empty();
                let stored = store.insert(vec![lead], &context, None).await?;
                anyhow::Ok(stored.into_iter().map(move |s| Sent {
                    id: s.lead.id,
                    at,
                    repeat: s.repeat_of.is_some(),
                    held,
                }))
            }
        })
        .buffer_unordered(256)
        .collect()
        .await;
    let mut sent: Vec<Sent> = Vec::with_capacity(shape.leads);
    for result in results {
        sent.extend(result?);
    }
    sent.sort_unstable_by_key(|lead| lead.id);
    filled.leads = sent.len();
    filled.repeats = sent.iter().filter(|lead| lead.repeat).count();
    filled.held = sent.iter().filter(|lead| lead.held).count();
    filled.insert_time = started.elapsed();

    // What happened to each lead since, by its age: handed to someone now and then, and called
    // (a lead's calls at one moment after its sending, never after now).
    let started = Instant::now();
    let mut handed = Vec::new();
    let mut calls = Vec::new();
    for lead in sent.iter().filter(|lead| !lead.repeat && !lead.held) {
        let age = now.duration_since(lead.at);
        let operator = OPERATORS[rng.random_range(0..OPERATORS.len())];
        if rng.random_bool(0.1) {
            handed.push((lead.id, operator_ids[rng.random_range(0..operator_ids.len())]));
        }
        let mut delay = call_delay(&mut rng);
        if delay > age {
            delay = age.mul_f64(rng.random_range(0.0..1.0));
        }
        calls.extend(
            calls_for(&mut rng, age).into_iter().map(|outcome| (lead.at + delay, lead.id, operator, outcome)),
        );
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
    // The calls in the order they were made, in batches through the store's batch path, a lead's
    // calls in one batch and in their order. A batch is made at the time of its last call (a
    // store on a clock standing there), so its calls are stamped at most six hours late (at 2 M
    // leads a batch of PostgreSQL's spans about 4 h, of SQLite's 5 min; a smaller fill has fewer
    // leads in an hour, and a narrower span made its batches many and small). SQLite's writer
    // takes many small batches in one commit (ADR 0045); PostgreSQL's batches go one after the
    // other, as each holds the counters' rows of its hours until it commits.
    calls.sort_by_key(|call| call.0);
    let (in_flight, leads_per_batch) =
        if matches!(url, DatabaseUrl::Sqlite(_)) { (64, 20) } else { (1, 1_000) };
    let mut batches: Vec<Vec<(Timestamp, i64, &str, Outcome)>> = Vec::new();
    let mut leads_in_last = 0;
    for lead in calls.chunk_by(|a, b| a.1 == b.1) {
        match batches.last_mut() {
            Some(batch)
                if leads_in_last < leads_per_batch
                    && lead[0].0.duration_since(batch[0].0) < SignedDuration::from_hours(6) =>
            {
                batch.extend_from_slice(lead);
                leads_in_last += 1;
            }
            _ => {
                batches.push(lead.to_vec());
                leads_in_last = 1;
            }
        }
    }
    let results: Vec<Result<Vec<bool>, _>> = stream::iter(batches)
        .map(|batch| {
            let made = batch.last().expect("a batch has a call").0;
            let store = store.clone().with_clock(Clock::manual(made).0);
            async move {
                let plan = |outcome: Outcome| CallPlan {
                    now: made,
                    call_back_at: (outcome == Outcome::CallBack)
                        .then(|| made + SignedDuration::from_hours(20)),
                    retries: vec![
                        Some(made + SignedDuration::from_hours(2)),
                        Some(made + SignedDuration::from_hours(20)),
                        None,
                    ],
                };
                let calls = batch
                    .into_iter()
                    .map(|(_, lead_id, operator, outcome)| NewAttempt {
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
    filled.call_time = started.elapsed();

    // PostgreSQL's statistics and trigram index brought up to date, as autovacuum would in time:
    // until then a name search reads the index's pending entries one by one. Then operators
    // take a few of the newest leads nobody has, as they do during a shift.
    let started = Instant::now();
    vacuum(url).await?;
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
    filled.finish_time = started.elapsed();
    Ok(filled)
}

/// A stored lead as the fill goes on with it.
struct Sent {
    id: i64,
    at: Timestamp,
    repeat: bool,
    held: bool,
}

/// People who sent a lead lately, some of whom send again.
#[derive(Default)]
struct People {
    /// Up to 500, any of whom may send again.
    recent: Vec<(String, String)>,
    /// The last 512 to send, not yet among `recent`: a lead sent again while the person's last is
    /// still in flight (256 are) would share its write, which is a double click, not a person
    /// coming back (and on PostgreSQL a second statement in the batch's transaction, ADR 0053).
    arriving: std::collections::VecDeque<(String, String)>,
}

/// One visitor's lead: a new person, or now and then someone sending again.
fn new_lead(rng: &mut StdRng, people: &mut People) -> NewLead {
    let People { recent, arriving } = people;
    let person = if !recent.is_empty() && rng.random_bool(0.08) {
        recent.swap_remove(rng.random_range(0..recent.len()))
    } else {
        let name = format!(
            "{} {}",
            FIRST_NAMES[rng.random_range(0..FIRST_NAMES.len())],
            LAST_NAMES[rng.random_range(0..LAST_NAMES.len())]
        );
        let code = MOBILE_CODES[rng.random_range(0..MOBILE_CODES.len())];
        (name, format!("+380{code}{:07}", rng.random_range(0..10_000_000)))
    };
    arriving.push_back(person.clone());
    if arriving.len() > 512 {
        let person = arriving.pop_front().expect("not empty");
        if recent.len() < 500 {
            recent.push(person);
        } else {
            let slot = rng.random_range(0..recent.len());
            recent[slot] = person;
        }
    }
    let (name, e164) = person;
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

/// Vacuums and analyses PostgreSQL's tables (SQLite needs neither).
async fn vacuum(url: &DatabaseUrl) -> anyhow::Result<()> {
    if let DatabaseUrl::Postgres(url) = url {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        client.batch_execute("VACUUM ANALYZE").await?;
    }
    Ok(())
}

//! The store's work behind each operator request of the inbox, timed: the same calls, with the
//! same arguments, the handlers in src/http make (their HTTP, session and audit work is apart and
//! does not grow with the table). Shared by the `scale` example and tests/scale.rs.

use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use zayavka::application::figures::{FiguresError, Viewer};
use zayavka::inbox::{CallPlan, Outcome, PROMISE, Search};
use zayavka::store::{CountsAt, Holder, LeadQuery, NewAttempt, Store};
use zayavka::team::Action;

use super::shape::{OPERATORS, entry};

/// The days the inbox's stats show (`STATS_DAYS` of the stats handler).
const STATS_DAYS: i64 = 30;

/// One request's median over the runs.
#[derive(Debug, Clone)]
pub struct Timed {
    pub request: &'static str,
    pub median: Duration,
}

/// The list's page as the inbox asks for it (a page of 50, read as 51).
fn list(filter: &str, operator_id: i64, now: Timestamp, q: &str, before_id: Option<i64>) -> LeadQuery {
    let (open_only, overdue_before, held, holder) = match filter {
        "open" => (true, None, false, Holder::Anyone),
        "overdue" => (true, Some(now - PROMISE), false, Holder::Anyone),
        "mine" => (true, None, false, Holder::Operator { id: operator_id, now }),
        "free" => (true, None, false, Holder::Nobody { now }),
        "held" => (false, None, true, Holder::Anyone),
        _ => (false, None, false, Holder::Anyone),
    };
    let (name_pattern, phone) = Search::parse(q).patterns();
    LeadQuery { name_pattern, phone, open_only, overdue_before, before_id, held, holder, limit: 51 }
}

/// The stats' window, as the handlers make it: the last `STATS_DAYS` days in Kyiv.
fn window(now: Timestamp) -> CountsAt {
    let zone = zayavka::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(STATS_DAYS - 1);
    let start = first_day.to_zoned(zone).expect("a day in Kyiv").timestamp();
    CountsAt { overdue_before: now - PROMISE, window_start: start }
}

/// Times each operator request `runs` times (after one untimed run) and gives the medians.
pub async fn measure(store: &Store, runs: usize) -> anyhow::Result<Vec<Timed>> {
    let operator = store.operator(OPERATORS[0].into()).await?.expect("the fill's operator").id;
    let now = Timestamp::now();
    let newest = store.find_leads(list("all", operator, now, "", None)).await?;
    let some = newest.first().expect("a filled database").clone();
    let deep = newest.last().map(|lead| lead.id / 2);
    // A stored number's tail (as operators type it) and start, and a name part, that are there;
    // and ones that are not.
    let phone_tail = some.phone_e164[6..].to_owned();
    let phone_start = format!("0{}", &some.phone_e164[4..10]);
    let mut timed = Vec::new();
    for filter in ["all", "open", "free", "mine", "overdue", "held"] {
        let name = Box::leak(format!("list {filter}").into_boxed_str());
        timed.push(
            time(name, runs, || async {
                store.find_leads(list(filter, operator, now, "", None)).await.map(drop)
            })
            .await?,
        );
    }
    timed.push(
        time("list all, a page deep", runs, || async {
            store.find_leads(list("all", operator, now, "", deep)).await.map(drop)
        })
        .await?,
    );
    timed.push(
        time("list due (call next)", runs, || async { store.due_leads(now, 51).await.map(drop) }).await?,
    );
    // The scan's share of "call next": the call-backs whose time came, each told once (the untimed
    // run tells the fill's; the timed ones find the index range empty, as most scans do).
    let channels: std::sync::Arc<[zayavka::notice::Channel]> =
        std::sync::Arc::from([zayavka::notice::Channel::Webhook]);
    timed.push(
        time("call-backs due (scan)", runs, || async {
            store
                .queue_call_backs(channels.clone(), now - SignedDuration::from_hours(24), now)
                .await
                .map(drop)
        })
        .await?,
    );
    for (request, q) in [
        ("search phone (found)", phone_tail.as_str()),
        ("search phone (start)", phone_start.as_str()),
        ("search phone (none)", "0501111111"),
        ("search name (found)", "ковал"),
        ("search name (none)", "ґжьфщ"),
        // Each of its trigrams is in many names (Шевченко, Коваленко), the whole in none.
        ("search name (none, its trigrams common)", "шевченкова"),
        // A whole name, and the same typed surname first: each word in many names, in that order
        // in none.
        ("search name (found, a whole name)", "тарас шевченко"),
        ("search name (none, surname first)", "шевченко тарас"),
        // A word's end and the next word: as rare as the whole name, its long word in many pairs.
        ("search name (found, a word's end and the next)", "ас шевченко"),
    ] {
        timed.push(
            time(request, runs, || async {
                store.find_leads(list("all", operator, now, q, None)).await.map(drop)
            })
            .await?,
        );
    }
    timed.push(
        time("one lead", runs, || async {
            store.lead(some.id).await?;
            store.attempts(some.id).await?;
            store.repeats(some.id).await.map(drop)
        })
        .await?,
    );
    timed.push(
        time("stats", runs, || async {
            store.counts(window(now)).await?;
            store.outbox_queues().await.map(drop)
        })
        .await?,
    );
    timed.push(
        time("stats/breakdown", runs, || async {
            let at = window(now);
            store.source_counts(at).await?;
            store.operator_counts(at.window_start).await?;
            store.accounts().await.map(drop)
        })
        .await?,
    );
    // The store keeps the hours it has read (ADR 0051): nothing changed since...
    timed.push(time("stats/promise", runs, || promise(store, now)).await?);
    // ...and as an inbox refreshing every minute finds it: the team has called ten leads since,
    // sent in ten hours of the month (ids about four hours apart at 2 M), each read again.
    let mut spaced = (1..).map(|k| some.id - 997 * k);
    let mut ten_calls = || {
        let ids: Vec<i64> = spaced.by_ref().take(10).collect();
        async move {
            for id in ids {
                store.add_attempt(no_answer(id, OPERATORS[1], None)).await?;
            }
            Ok(())
        }
    };
    timed.push(
        time_after("stats/promise, 10 calls since", runs, &mut ten_calls, || {
            promise(store, Timestamp::now())
        })
        .await?,
    );
    // The writes, each on a lead of its own: the newest leads nobody has.
    let free = store
        .find_leads(LeadQuery { limit: (2 * runs + 2) as u32, ..list("free", operator, now, "", None) })
        .await?;
    let mut to_take = free.iter().map(|lead| lead.id).take(runs + 1);
    timed.push(
        time("take", runs, || {
            let id = to_take.next().expect("enough free leads");
            async move {
                let now = Timestamp::now();
                let trail = entry(OPERATORS[0], Action::TookLead, id);
                store.take(id, operator, now + SignedDuration::from_hours(1), now, trail).await.map(drop)
            }
        })
        .await?,
    );
    let mut to_call = free.iter().map(|lead| lead.id).skip(runs + 1);
    timed.push(
        time("recording a call", runs, || call(store, to_call.next().expect("enough free leads"))).await?,
    );
    // As the desk goes: a call to a lead its caller took (just above), which ends the claim.
    let mut taken = free.iter().map(|lead| lead.id).take(runs + 1);
    timed.push(
        time("recording a call to a lead one took", runs, || {
            call(store, taken.next().expect("the leads taken above"))
        })
        .await?,
    );
    Ok(timed)
}

/// The fill's first operator records that lead `id` did not answer, to be tried again in two hours.
async fn call(store: &Store, id: i64) -> Result<(), zayavka::store::StoreError> {
    let retry = Timestamp::now() + SignedDuration::from_hours(2);
    store.add_attempt(no_answer(id, OPERATORS[0], Some(retry))).await.map(drop)
}

/// `operator`'s call to lead `id` that nobody answered, tried again at `retry` (`None`: the cadence
/// is used up).
fn no_answer(id: i64, operator: &str, retry: Option<Timestamp>) -> NewAttempt {
    let now = Timestamp::now();
    let plan = CallPlan { at_once: now, call_back_at: None, retries: vec![retry] };
    let (outcome, note) = (Outcome::NoAnswer, String::new());
    let trail = entry(operator, Action::RecordedCall, id);
    NewAttempt { lead_id: id, operator: operator.into(), outcome, note, plan, request_key: None, trail }
}

/// The promise figures at `now`, as the handler asks for them.
pub async fn promise(store: &Store, now: Timestamp) -> Result<(), zayavka::store::StoreError> {
    let figures = zayavka::application::figures::promise(store, now, Viewer::Everyone).await;
    figures.map(drop).map_err(|e| match e {
        FiguresError::Store(e) => e,
        FiguresError::Window(e) => zayavka::store::StoreError::Unavailable(e.to_string()),
    })
}

/// The median of `runs` runs of `request`, after one untimed run.
async fn time<F, Fut>(request: &'static str, runs: usize, run: F) -> anyhow::Result<Timed>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), zayavka::store::StoreError>>,
{
    time_after(request, runs, || async { Ok(()) }, run).await
}

/// The median of `runs` runs of `request`, after one untimed run, each run after an untimed
/// `setup`.
async fn time_after<S, SetUp, F, Fut>(
    request: &'static str,
    runs: usize,
    mut setup: S,
    mut run: F,
) -> anyhow::Result<Timed>
where
    S: FnMut() -> SetUp,
    SetUp: std::future::Future<Output = Result<(), zayavka::store::StoreError>>,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), zayavka::store::StoreError>>,
{
    setup().await?;
    run().await?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        setup().await?;
        let started = Instant::now();
        run().await?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(Timed { request, median: times[runs / 2] })
}

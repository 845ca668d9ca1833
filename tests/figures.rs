//! How the 48-hour promise is kept (`application::figures`, `GET /admin/api/stats/promise`,
//! `zayavka leads figures`): the waits for the first call and for the call that reached the
//! person, and the share reached in time, overall, per operator and per source. Runs on SQLite,
//! and on PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres: both must give the very same numbers.

use crate::common;

use axum::http::StatusCode;
use common::TestDatabase;
use common::inbox::{PASSWORD, signed_in};
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use zayavka::application::figures::{self, ReadAhead, Viewer};
use zayavka::clock::{Clock, ClockHand};
use zayavka::config::DatabaseUrl;
use zayavka::inbox::{CallPlan, Outcome};
use zayavka::lead::{Attribution, NewLead};
use zayavka::store::{CallLogged, InsertContext, NewAttempt, Store};
use zayavka::team::Action;

const OLENA: &str = "olena@example.org";
const PETRO: &str = "petro@example.org";

/// Now, to the microsecond both engines keep.
fn now() -> Timestamp {
    Timestamp::from_microsecond(Timestamp::now().as_microsecond()).unwrap()
}

fn minutes(n: i64) -> SignedDuration {
    SignedDuration::from_mins(n)
}

fn days(n: i64) -> SignedDuration {
    SignedDuration::from_hours(24 * n)
}

/// A time as an SQL literal of the test's engine.
fn literal(database: &TestDatabase, at: Timestamp) -> String {
    match database.settings_url() {
        DatabaseUrl::Postgres(_) => format!("'{at:.6}'::timestamptz"),
        DatabaseUrl::Sqlite(_) => format!("'{at:.6}'"),
    }
}

fn person(phone: &str, utm_source: Option<&str>, referrer: Option<&str>, held: bool) -> NewLead {
    NewLead {
        name: "Ганна Мельник".into(),
        phone: phone.into(),
        phone_e164: phone.into(),
        phone_in_plan: true,
        confirmation: "Так".into(),
        comment: None,
        held: if held { vec!["no_proof"] } else { Vec::new() },
        attribution: Attribution {
            utm_source: utm_source.map(Into::into),
            referrer: referrer.map(Into::into),
            ..Attribution::default()
        },
    }
}

/// The scene the numbers below are worked out from, `now` being its present:
///
/// | lead | sent        | source         | first call          | reached          |
/// |------|-------------|----------------|---------------------|------------------|
/// | A    | 10 days ago | google         | Olena, +30 min      | Petro, +120 min  |
/// | B    | 9 days ago  | google         | Olena, +10 min      | that call        |
/// | C    | 8 days ago  | none           | Petro, +60 min      | never            |
/// | D    | 7 days ago  | l.facebook.com | Petro, +50 h        | that call        |
/// | E    | 1 hour ago  | none           | nobody yet          | (not yet due)    |
///
/// And three that do not count: a held lead, a repeat of B, a lead of 40 days ago.
async fn scene(store: &Store, clock: &ClockHand, database: &TestDatabase, now: Timestamp) {
    let context = InsertContext {
        channels: Vec::new().into(),
        policy_version: "policy-1".into(),
        // Long enough to hold B's repeat after B was moved back.
        duplicate_window: Some(std::time::Duration::from_secs(60 * 24 * 3600)),
    };
    let add = async |lead: NewLead, sent: Timestamp| {
        let id = store.insert(vec![lead], &context, None).await.unwrap()[0].lead.id;
        let sent = literal(database, sent);
        database.execute(&format!("UPDATE \"CRN\" SET created_at = {sent} WHERE id = {id}")).await;
        id
    };
    // A call `after` the lead was sent, logged at that time (a call that reaches sets `reached_at`
    // then too).
    let call = async |id: i64, operator: &str, outcome: Outcome, after: SignedDuration| {
        let sent = store.lead(id).await.unwrap().unwrap().created_at.parse::<Timestamp>().unwrap();
        clock.set(sent + after);
        let plan = CallPlan { at_once: sent + after, call_back_at: None, retries: vec![None] };
        let call = NewAttempt {
            lead_id: id,
            operator: operator.into(),
            outcome,
            note: String::new(),
            plan,
            request_key: None,
            trail: common::trail(operator, Action::RecordedCall, id),
        };
        assert_eq!(store.add_attempt(call).await.unwrap(), CallLogged::Logged);
    };
    let a = add(person("+380671110001", Some("google"), None, false), now - days(10)).await;
    let b = add(person("+380671110002", Some("google"), None, false), now - days(9)).await;
    let c = add(person("+380671110003", None, None, false), now - days(8)).await;
    let d = add(person("+380671110004", None, Some("l.facebook.com"), false), now - days(7)).await;
    add(person("+380671110005", None, None, false), now - minutes(60)).await;
    add(person("+380671110006", Some("google"), None, true), now - days(2)).await;
    let old = add(person("+380671110007", Some("google"), None, false), now - days(40)).await;
    let repeat =
        store.insert(vec![person("+380671110002", None, None, false)], &context, None).await.unwrap();
    assert_eq!(repeat[0].repeat_of, Some(b));

    call(a, OLENA, Outcome::NoAnswer, minutes(30)).await;
    call(a, PETRO, Outcome::Interested, minutes(120)).await;
    call(b, OLENA, Outcome::Interested, minutes(10)).await;
    call(c, PETRO, Outcome::NoAnswer, minutes(60)).await;
    call(d, PETRO, Outcome::NotEligible, SignedDuration::from_hours(50)).await;
    call(old, OLENA, Outcome::Interested, minutes(5)).await;
    clock.set(now);
}

/// The scene in a database of its own, and a store of it whose clock stands at the scene's
/// present, which comes third.
async fn scene_in_new_database() -> (TestDatabase, Store, Timestamp) {
    let database = TestDatabase::new().await;
    let now = now();
    let (clock, hand) = Clock::manual(now);
    let store = Store::open(&database.settings_url()).await.unwrap().with_clock(clock);
    scene(&store, &hand, &database, now).await;
    (database, store, now)
}

fn row(value: &Value, key: &str, name: Value) -> Value {
    let rows = value[key].as_array().unwrap();
    rows.iter().find(|row| row[key.trim_start_matches("by_")] == name).cloned().unwrap_or(Value::Null)
}

/// The figures of the scene, as the JSON answer gives them.
fn expected() -> Value {
    let row =
        |leads, attempted, first: [Value; 2], reached, reach: [Value; 2], due, in_time, share: Value| {
            json!({
                "leads": leads, "attempted": attempted,
                "first_attempt_median_minutes": first[0], "first_attempt_p90_minutes": first[1],
                "reached": reached, "reach_median_minutes": reach[0], "reach_p90_minutes": reach[1],
                "due": due, "reached_in_time": in_time, "reached_in_time_share": share,
            })
        };
    let none = || [Value::Null, Value::Null];
    let mut olena = row(2, 2, [json!(20), json!(28)], 2, [json!(65), json!(109)], 2, 2, json!(1.0));
    let mut petro = row(2, 2, [json!(1530), json!(2706)], 1, [json!(3000), json!(3000)], 2, 0, json!(0.0));
    let mut nobody = row(1, 0, none(), 0, none(), 0, 0, Value::Null);
    let mut google = row(2, 2, [json!(20), json!(28)], 2, [json!(65), json!(109)], 2, 2, json!(1.0));
    let mut direct = row(2, 1, [json!(60), json!(60)], 0, none(), 1, 0, json!(0.0));
    let mut facebook = row(1, 1, [json!(3000), json!(3000)], 1, [json!(3000), json!(3000)], 1, 0, json!(0.0));
    for (row, key, name) in [
        (&mut olena, "operator", json!(OLENA)),
        (&mut petro, "operator", json!(PETRO)),
        (&mut nobody, "operator", Value::Null),
        (&mut google, "source", json!("google")),
        (&mut direct, "source", Value::Null),
        (&mut facebook, "source", json!("l.facebook.com")),
    ] {
        row[key] = name;
    }
    json!({
        // First calls after 10, 30, 60 and 3000 minutes; reaching calls after 10, 120 and 3000.
        "overall": row(5, 4, [json!(45), json!(2118)], 3, [json!(120), json!(2424)], 4, 2, json!(0.5)),
        "by_operator": [olena, petro, nobody],
        "by_source": [google, direct, facebook],
    })
}

#[tokio::test]
async fn the_promise_figures_per_operator_and_per_source() {
    let (_database, store, now) = scene_in_new_database().await;

    let figures = figures::promise(&store, now, Viewer::Everyone).await.unwrap();
    assert_eq!(figures.until, now);
    assert_eq!(figures.since, figures::window_start(now).unwrap());
    // Whole days in Kyiv, today's part included (give or take a change of clocks).
    let length = now.duration_since(figures.since);
    let hour = SignedDuration::from_hours(1);
    assert!(length > days(29) - hour && length <= days(30) + hour, "{}", figures.since);
    let answer = json!({
        "overall": figures.overall,
        "by_operator": figures.by_operator,
        "by_source": figures.by_source,
    });
    assert_eq!(answer, expected());

    // An operator sees only their own row; the totals and the sources stay the team's.
    let petro = figures::promise(&store, now, Viewer::Operator(PETRO)).await.unwrap();
    assert_eq!(json!(petro.by_operator), json!([expected()["by_operator"][1]]));
    assert_eq!(petro.overall, figures.overall);
    assert_eq!(petro.by_source, figures.by_source);

    // Two days on, E's 48 hours are over: it counts in the share, unreached.
    let later = figures::promise(&store, now + days(2), Viewer::Everyone).await.unwrap();
    assert_eq!((later.overall.due, later.overall.reached_in_time), (5, 2));
    store.close().await;
}

/// The store keeps the hours of leads it has read and reads again only those that changed (ADR
/// 0051): a first call that moves no other figure, and a call deleted by hand beside the store,
/// show in the next figures all the same.
#[tokio::test]
async fn the_figures_kept_between_requests_follow_each_change_of_a_lead() {
    let (database, store, now) = scene_in_new_database().await;
    let before = figures::promise(&store, now, Viewer::Everyone).await.unwrap();
    let overall = &before.overall;
    assert_eq!((overall.leads, overall.attempted, overall.first_attempt_median_minutes), (5, 4, Some(45)));

    // E, sent an hour ago, is called for the first time, and nobody answers.
    let e = common::newest_leads(&store, false, 10)
        .await
        .into_iter()
        .find(|lead| lead.phone_e164 == "+380671110005")
        .unwrap()
        .id;
    let plan = CallPlan { at_once: now, call_back_at: None, retries: vec![None] };
    let call = NewAttempt {
        lead_id: e,
        operator: OLENA.into(),
        outcome: Outcome::NoAnswer,
        note: String::new(),
        plan,
        request_key: None,
        trail: common::trail(OLENA, Action::RecordedCall, e),
    };
    assert_eq!(store.add_attempt(call).await.unwrap(), CallLogged::Logged);
    let called = figures::promise(&store, now, Viewer::Everyone).await.unwrap();
    assert_eq!((called.overall.attempted, called.overall.first_attempt_median_minutes), (5, Some(60)));
    let olena = called.by_operator.iter().find(|row| row.operator.as_deref() == Some(OLENA)).unwrap();
    assert_eq!(olena.figures.leads, 3);
    assert!(called.by_operator.iter().all(|row| row.operator.is_some()), "{:?}", called.by_operator);

    // Its call is deleted by hand: E waits for its first call again.
    database.execute(&format!("DELETE FROM call_attempts WHERE lead_id = {e}")).await;
    assert_eq!(figures::promise(&store, now, Viewer::Everyone).await.unwrap(), before);
    store.close().await;
}

#[tokio::test]
async fn the_inbox_answers_the_figures_and_the_export_says_when_each_lead_was_first_called() {
    let app = common::test_app().await;
    for (email, role) in [(OLENA, "admin"), (PETRO, "operator")] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        let role = zayavka::team::Role::from_name(role);
        common::add_account(&app.state.store, email, hash, role).await;
    }
    assert_eq!(app.get("/admin/api/stats/promise").await.status, StatusCode::UNAUTHORIZED);
    let (olena, petro) = (signed_in(&app, OLENA).await, signed_in(&app, PETRO).await);
    let now = app.state.clock.now();
    scene(&app.state.store, &app.clock, &app.database, now).await;

    let answer = olena.get(&app, "/admin/api/stats/promise").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let answer = answer.json();
    assert_eq!(answer["promise_hours"], 48);
    let since: Timestamp = answer["since"].as_str().unwrap().parse().unwrap();
    let until: Timestamp = answer["until"].as_str().unwrap().parse().unwrap();
    assert!(until == now && until.duration_since(since) <= days(30) + SignedDuration::from_hours(1));
    for key in ["overall", "by_operator", "by_source"] {
        assert_eq!(answer[key], expected()[key], "{key}");
    }

    let own = petro.get(&app, "/admin/api/stats/promise").await.json();
    assert_eq!(own["by_operator"], json!([row(&answer, "by_operator", json!(PETRO))]));

    // The export's last column: when each lead was first called.
    let csv = olena.get(&app, "/admin/api/export.csv").await.text();
    let mut lines = csv.trim_start_matches('\u{FEFF}').lines();
    assert!(lines.next().unwrap().ends_with(",referrer,first_attempt_at"));
    let first_calls: Vec<Option<Timestamp>> =
        lines.map(|line| line.rsplit(',').next().unwrap().parse().ok()).collect();
    let a_sent = now - days(10);
    assert_eq!(first_calls[0], Some(a_sent + minutes(30)), "A: Olena's unanswered call, not Petro's");
    assert_eq!(first_calls[4], None, "E: not called yet");
}

#[tokio::test]
async fn the_command_line_prints_the_same_figures_as_a_table() {
    let (database, store, _) = scene_in_new_database().await;
    store.close().await;
    let output = common::zayavka()
        .args(["leads", "figures"])
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .output()
        .await
        .unwrap();
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let line = |group: &str| {
        let line =
            table.lines().find(|line| line.starts_with(group)).unwrap_or_else(|| panic!("{group}: {table}"));
        line.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert!(table.lines().nth(1).unwrap().contains("within 48 h"), "{table}");
    assert_eq!(line("all "), "all 5 4 45 / 2118 min 3 120 / 2424 min 2 of 4 (50%)");
    assert_eq!(
        line("operator olena"),
        format!("operator {OLENA} 2 2 20 / 28 min 2 65 / 109 min 2 of 2 (100%)")
    );
    assert_eq!(line("operator (not"), "operator (not called yet) 1 0 - 0 - -");
    assert_eq!(line("source (direct)"), "source (direct) 2 1 60 / 60 min 0 - 0 of 1 (0%)");
    // Under it, the inbox's totals (`GET /admin/api/stats`), from the same use case.
    assert_eq!(line("Now:"), "Now: 2 open, 1 of them overdue; 1 held for review", "{table}");
}

/// A server reads the month ahead as it starts (ADR 0056): a store opened again on the same
/// database, as after a restart, reads the window's five leads (not the held one, the repeat or
/// the one of 40 days ago), and its first figures are those the first store counted on request.
/// A month of more leads than the most it may hold is left to its first request.
#[tokio::test]
async fn the_month_read_ahead_at_a_start_gives_the_same_figures() {
    let (database, store, now) = scene_in_new_database().await;
    let asked = figures::promise(&store, now, Viewer::Everyone).await.unwrap();
    store.close().await;

    for (most, expected) in [(100, ReadAhead::Read(5)), (4, ReadAhead::TooMany(5))] {
        let (clock, _hand) = Clock::manual(now);
        let restarted = Store::open(&database.settings_url()).await.unwrap().with_clock(clock);
        assert_eq!(figures::read_ahead(&restarted, now, most).await.unwrap(), expected);
        assert_eq!(figures::promise(&restarted, now, Viewer::Everyone).await.unwrap(), asked);
        restarted.close().await;
    }
}

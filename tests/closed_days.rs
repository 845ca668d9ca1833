//! The days off admins keep in the inbox (docs/admin-api.md, "Closed days"), on top of
//! ZAYAVKA_CLOSED_DAYS: every user of the calendar follows them (a no-answer's retry, the at-risk
//! mark, the escalation's quiet time), only admins change them, and every change is in the audit
//! trail, the same from the inbox as from `zayavka admin closed-days`. Times the effect depends on
//! are passed in (`now`); the days themselves are counted from today in Kyiv. Runs on SQLite, and
//! on PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use jiff::civil::Date;
use jiff::{Span, Timestamp};
use serde_json::{Value, json};
use zayavka::application::Actor;
use zayavka::application::leads::{Call, record_call};
use zayavka::notice::operators_zone;

const ADMIN: &str = "admin@example.org";
const OPERATOR: &str = "operator@example.org";

async fn team(adjust: impl FnOnce(&mut zayavka::config::Settings)) -> (TestApp, SignedIn, SignedIn) {
    let app = common::test_app_without_chores(|s| {
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        adjust(s);
    })
    .await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, ADMIN, hash.clone(), None).await;
    common::add_account(&app.state.store, OPERATOR, hash, Some(zayavka::team::Role::Operator)).await;
    let admin = signed_in(&app, ADMIN).await;
    let operator = signed_in(&app, OPERATOR).await;
    (app, admin, operator)
}

fn today() -> Date {
    Timestamp::now().to_zoned(operators_zone()).date()
}

fn days_from_today(days: i64) -> Date {
    today().checked_add(Span::new().days(days)).unwrap()
}

/// `time` (HH:MM) on `day`, Kyiv.
fn kyiv(day: Date, time: &str) -> Timestamp {
    day.to_datetime(time.parse().unwrap()).to_zoned(operators_zone()).unwrap().timestamp()
}

async fn close(app: &TestApp, admin: &SignedIn, day: Date) -> common::Answer {
    admin.post(app, "/admin/api/closed-days", json!({ "day": day.to_string(), "note": "Свято" })).await
}

async fn submit(app: &TestApp, phone: &str) -> i64 {
    let body = json!({ "name": "Ганна Мельник", "phone": phone, "confirmation": "Так" });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

async fn lead(app: &TestApp, who: &SignedIn, id: i64) -> Value {
    let answer = who.get(app, &format!("/admin/api/leads/{id}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()["lead"].clone()
}

/// An unanswered call to lead `id` at `now`, through the use case the inbox calls; when the lead
/// is to be tried again.
async fn no_answer_at(app: &TestApp, id: i64, now: Timestamp) -> Timestamp {
    let services = app.state.services();
    let actor = Actor { name: OPERATOR.into(), address: None };
    let call = Call {
        outcome: Some("no_answer".into()),
        note: String::new(),
        call_back_at: None,
        request_key: None,
    };
    record_call(services, id, call, &actor, now).await.unwrap();
    let record = app.state.store.lead(id).await.unwrap().unwrap();
    record.next_call_at.expect("a retry").parse().unwrap()
}

#[tokio::test]
async fn a_day_closed_in_the_inbox_is_skipped_by_a_retry_until_it_is_opened_again() {
    let (app, admin, _) = team(|_| {}).await;
    let closed = days_from_today(2);
    assert_eq!(close(&app, &admin, closed).await.status, StatusCode::CREATED);

    // No working hours: every hour of an open day counts. An unanswered call at 23:00 the evening
    // before: two hours later is in the closed day, so the retry comes the morning after it.
    let evening = kyiv(days_from_today(1), "23:00");
    let first = submit(&app, "067 000 01 01").await;
    let after = closed.tomorrow().unwrap();
    assert_eq!(no_answer_at(&app, first, evening).await, kyiv(after, "01:00"));

    let removed = admin.delete(&app, &format!("/admin/api/closed-days/{closed}")).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT, "{}", removed.text());
    let second = submit(&app, "067 000 01 02").await;
    assert_eq!(no_answer_at(&app, second, evening).await, kyiv(closed, "01:00"), "open again");
}

/// A retry set before its day was closed moves to the team's first minute after the closure; a
/// time the person asked for stays where they put it, and a lead due already stays due.
#[tokio::test]
async fn closing_a_day_moves_the_retries_already_set_on_it() {
    let (app, admin, operator) = team(|_| {}).await;
    let closed = days_after_clock(&app, 2);
    // No working hours: an unanswered call at 23:00 the evening before is tried again two hours
    // later, in the day not yet closed.
    let retried = submit(&app, "067 000 01 03").await;
    let evening = kyiv(closed.yesterday().unwrap(), "23:00");
    assert_eq!(no_answer_at(&app, retried, evening).await, kyiv(closed, "01:00"));
    let asked = submit(&app, "067 000 01 04").await;
    let body = json!({ "outcome": "call_back", "call_back_at": kyiv(closed, "11:00").to_string() });
    let called = operator.post(&app, &format!("/admin/api/leads/{asked}/attempts"), body).await;
    assert_eq!(called.status, StatusCode::CREATED, "{}", called.text());
    // Come the day itself, a lead arrives at 00:30 (due at once); the day is closed at 00:31.
    app.clock.set(kyiv(closed, "00:30"));
    let waiting = submit(&app, "067 000 01 05").await;
    app.clock.set(kyiv(closed, "00:31"));

    assert_eq!(close(&app, &admin, closed).await.status, StatusCode::CREATED);
    let next_call_at = |lead: Value| lead["next_call_at"].as_str().unwrap().parse::<Timestamp>().unwrap();
    assert_eq!(next_call_at(lead(&app, &admin, retried).await), kyiv(closed.tomorrow().unwrap(), "00:00"));
    assert_eq!(next_call_at(lead(&app, &admin, asked).await), kyiv(closed, "11:00"), "the person asked");
    assert_eq!(next_call_at(lead(&app, &admin, waiting).await), kyiv(closed, "00:30"), "due already");
}

#[tokio::test]
async fn a_lead_due_in_days_closed_in_the_inbox_is_marked_at_risk_and_unmarked_when_they_open() {
    let (app, admin, operator) = team(|_| {}).await;
    let id = submit(&app, "067 000 02 01").await;
    assert_eq!(lead(&app, &operator, id).await["at_risk"], false);
    // Its 48 hours end the day after tomorrow (or, across a change of clocks, just around it).
    let days = [days_from_today(1), days_from_today(2)];
    for day in days {
        assert_eq!(close(&app, &admin, day).await.status, StatusCode::CREATED);
    }
    assert_eq!(lead(&app, &operator, id).await["at_risk"], true);
    let listed = operator.get(&app, "/admin/api/leads?filter=due").await.json();
    assert_eq!(listed["leads"][0]["at_risk"], true);

    for day in days {
        let removed = admin.delete(&app, &format!("/admin/api/closed-days/{day}")).await;
        assert_eq!(removed.status, StatusCode::NO_CONTENT);
    }
    assert_eq!(lead(&app, &operator, id).await["at_risk"], false);
}

/// A webhook nobody answers: the scans queue their notices for it, and nothing is sent (no chores).
fn webhook_to_nobody(s: &mut zayavka::config::Settings) {
    s.notify.webhook = Some(zayavka::config::Webhook { url: "http://127.0.0.1:9/hook".into(), secret: None });
}

#[tokio::test]
async fn nobody_is_reported_as_forgotten_on_a_day_closed_in_the_inbox() {
    let (app, admin, _) = team(webhook_to_nobody).await;
    submit(&app, "067 000 03 01").await;
    app.clock.advance_hours(25);
    let today = app.state.clock.now().to_zoned(operators_zone()).date();
    assert_eq!(close(&app, &admin, today).await.status, StatusCode::CREATED);
    let escalate = || zayavka::notify::escalate(&app.state.store, &app.state.settings, app.state.clock.now());
    assert_eq!(escalate().await.unwrap(), 0, "nobody works today: the admins hear of it tomorrow");
    admin.delete(&app, &format!("/admin/api/closed-days/{today}")).await;
    assert_eq!(escalate().await.unwrap(), 1);
}

/// `days` after the test clock's day, Kyiv.
fn days_after_clock(app: &TestApp, days: i64) -> Date {
    let today = app.state.clock.now().to_zoned(operators_zone()).date();
    today.checked_add(Span::new().days(days)).unwrap()
}

#[tokio::test]
async fn a_lead_whose_time_came_in_a_week_closed_in_the_inbox_is_reported_when_the_team_is_back() {
    let (app, admin, _) = team(webhook_to_nobody).await;
    submit(&app, "067 000 03 02").await;
    // The six days after the lead's are closed: its 24 hours to escalation and its 48 hours end
    // inside them, and the scans look back over them only if they read all six.
    for days in 1..=6 {
        let added = close(&app, &admin, days_after_clock(&app, days)).await;
        assert_eq!(added.status, StatusCode::CREATED, "{}", added.text());
    }
    app.clock.set(kyiv(days_after_clock(&app, 7), "09:00"));
    let escalated = zayavka::notify::escalate(&app.state.store, &app.state.settings, app.state.clock.now());
    assert_eq!(escalated.await.unwrap(), 1, "the admins hear of it the morning the team is back");
}

#[tokio::test]
async fn a_call_back_time_asked_for_on_days_closed_in_the_inbox_is_told_when_the_team_is_back() {
    let (app, admin, operator) = team(webhook_to_nobody).await;
    let id = submit(&app, "067 000 03 03").await;
    let (first, second) = (days_after_clock(&app, 2), days_after_clock(&app, 3));
    for day in [first, second] {
        assert_eq!(close(&app, &admin, day).await.status, StatusCode::CREATED);
    }
    // The person asked to be called on the first day off, at 11:00.
    let asked = json!({ "outcome": "call_back", "call_back_at": kyiv(first, "11:00").to_string() });
    let called = operator.post(&app, &format!("/admin/api/leads/{id}/attempts"), asked).await;
    assert_eq!(called.status, StatusCode::CREATED, "{}", called.text());

    // Nobody is told on the days off; the morning after them, the team is.
    app.clock.set(kyiv(first, "12:00"));
    let tell =
        || zayavka::notify::tell_call_backs(&app.state.store, &app.state.settings, app.state.clock.now());
    assert_eq!(tell().await.unwrap(), 0, "nobody works today");
    app.clock.set(kyiv(second.tomorrow().unwrap(), "09:00"));
    assert_eq!(tell().await.unwrap(), 1, "told when the team is back, 46 hours after the time");
}

#[tokio::test]
async fn everyone_sees_the_list_only_admins_change_it_and_the_answers_say_what_is_wrong() {
    let settings_day = days_from_today(10);
    let (app, admin, operator) = team(|s| {
        s.closed_days = zayavka::calendar::ClosedDays::parse(&format!("2020-01-01,{settings_day}")).unwrap();
    })
    .await;
    let inbox_day = days_from_today(3);
    let added = close(&app, &admin, inbox_day).await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text());
    assert_eq!(added.json()["source"], "inbox");
    assert_eq!(added.json()["added_by"], ADMIN);

    // An operator reads the list, the settings' days from today on among it, but changes nothing.
    let list = operator.get(&app, "/admin/api/closed-days").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text());
    let list = list.json();
    assert_eq!(list["today"], today().to_string());
    let days: Vec<(Value, Value, Value, bool)> = list["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["day"].clone(), d["source"].clone(), d["note"].clone(), d["added_at"].is_string()))
        .collect();
    assert_eq!(
        days,
        [
            (json!(inbox_day.to_string()), json!("inbox"), json!("Свято"), true),
            (json!(settings_day.to_string()), json!("settings"), Value::Null, false),
        ]
    );
    let refused =
        operator.post(&app, "/admin/api/closed-days", json!({ "day": days_from_today(4).to_string() })).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let refused = operator.delete(&app, &format!("/admin/api/closed-days/{inbox_day}")).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    // A change without the session's CSRF token is refused too.
    let forged = SignedIn { cookie: admin.cookie.clone(), csrf: "forged".into() };
    assert_eq!(
        forged.delete(&app, &format!("/admin/api/closed-days/{inbox_day}")).await.status,
        StatusCode::FORBIDDEN
    );

    // Wrong days, in Ukrainian.
    for (day, says) in [
        ("31.12.2026", "РРРР-ММ-ДД"),
        ("2026-02-30", "РРРР-ММ-ДД"),
        (&days_from_today(-1).to_string()[..], "минув"),
        (&days_from_today(400).to_string()[..], "на рік"),
    ] {
        let answer = admin.post(&app, "/admin/api/closed-days", json!({ "day": day })).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{day}");
        assert!(answer.json()["error"].as_str().unwrap().contains(says), "{day}: {}", answer.text());
    }
    let long_note = json!({ "day": days_from_today(4).to_string(), "note": "д".repeat(101) });
    let answer = admin.post(&app, "/admin/api/closed-days", long_note).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(answer.json()["error"].as_str().unwrap().contains("100 символів"), "{}", answer.text());
    // A day closed already is not an error, and not a second entry.
    let again = close(&app, &admin, inbox_day).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    let again = close(&app, &admin, settings_day).await;
    assert_eq!((again.status, again.json()["source"].clone()), (StatusCode::OK, json!("settings")));
    // The settings' days are changed in the settings; a day not on the list is not there.
    let in_settings = admin.delete(&app, &format!("/admin/api/closed-days/{settings_day}")).await;
    assert_eq!(in_settings.status, StatusCode::CONFLICT);
    assert!(in_settings.json()["error"].as_str().unwrap().contains("ZAYAVKA_CLOSED_DAYS"));
    let missing = admin.delete(&app, &format!("/admin/api/closed-days/{}", days_from_today(5))).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(admin.delete(&app, "/admin/api/closed-days/someday").await.status, StatusCode::BAD_REQUEST);

    let trail = admin.audit(&app).await;
    let changes: Vec<&Value> =
        trail.iter().filter(|e| e["action"].as_str().unwrap().ends_with("closed_day")).collect();
    assert_eq!(changes.len(), 1, "one change, by the admin: {changes:?}");
}

/// Adding and removing are one use case each: from the command line they leave the same entries
/// in the trail as from the inbox, bar who and from where.
#[tokio::test]
async fn the_command_line_and_the_inbox_close_and_open_days_alike() {
    let (app, admin, _) = team(|_| {}).await;
    let (first, second) = (days_from_today(6), days_from_today(7));
    let cli = |args: Vec<String>| {
        let mut command = common::zayavka();
        command.args(args).env("ZAYAVKA_DATABASE_URL", &app.database.url).env("USER", "ops");
        async move { command.output().await.unwrap() }
    };
    let args = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();

    assert_eq!(close(&app, &admin, first).await.status, StatusCode::CREATED);
    let added = cli(args(&["admin", "closed-days", "add", &second.to_string(), "--note", "Переїзд"])).await;
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let listed = cli(args(&["admin", "closed-days", "list"])).await;
    let text = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(text.contains(&format!("{second}  inbox     Переїзд  added by command line (ops)")), "{text}");
    assert!(text.contains(&first.to_string()), "{text}");
    let past = cli(args(&["admin", "closed-days", "add", &days_from_today(-1).to_string()])).await;
    assert!(!past.status.success() && String::from_utf8_lossy(&past.stderr).contains("has passed"));

    let removed = cli(args(&["admin", "closed-days", "remove", &first.to_string()])).await;
    assert!(removed.status.success(), "{}", String::from_utf8_lossy(&removed.stderr));
    let removed = admin.delete(&app, &format!("/admin/api/closed-days/{second}")).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    let gone = cli(args(&["admin", "closed-days", "remove", &first.to_string()])).await;
    assert!(!gone.status.success() && String::from_utf8_lossy(&gone.stderr).contains("not on the list"));

    let trail = admin.audit(&app).await;
    let entries = |action: &str| -> Vec<(Value, Value, Value, Value)> {
        trail
            .iter()
            .filter(|entry| entry["action"] == action)
            .map(|e| (e["actor"].clone(), e["address"].clone(), e["lead_id"].clone(), e["detail"].clone()))
            .collect()
    };
    let inbox = (json!(ADMIN), json!("203.0.113.7"));
    let command_line = (json!("command line (ops)"), Value::Null);
    assert_eq!(
        entries("added_closed_day"),
        [
            (command_line.0.clone(), command_line.1.clone(), Value::Null, json!(second.to_string())),
            (inbox.0.clone(), inbox.1.clone(), Value::Null, json!(first.to_string())),
        ]
    );
    assert_eq!(
        entries("removed_closed_day"),
        [
            (inbox.0, inbox.1, Value::Null, json!(second.to_string())),
            (command_line.0, command_line.1, Value::Null, json!(first.to_string())),
        ]
    );
}

//! The call desk (docs/admin-api.md, "The call desk"): every lead answer says when the lead is to
//! be called (`next_call_at`), `filter=due` lists the calls to make now in their order, an
//! unanswered call schedules the next try by `ZAYAVKA_RETRY_CADENCE` (never on a closed day), and
//! "Передзвонити о …" sets the time the person asked for. Runs on SQLite, and on PostgreSQL with
//! ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use jiff::Timestamp;
use serde_json::{Value, json};

const OPERATOR: &str = "olena@example.org";

async fn desk(adjust: impl FnOnce(&mut zayavka::config::Settings)) -> (TestApp, SignedIn) {
    let app = common::test_app_with(adjust).await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, OPERATOR, hash, None).await;
    let operator = signed_in(&app, OPERATOR).await;
    (app, operator)
}

/// Moves the app's clock a minute past `at`, as if a call-back's time had come.
fn come_due(app: &TestApp, at: Timestamp) {
    app.clock.advance(at.duration_since(app.state.clock.now()) + jiff::SignedDuration::from_mins(1));
}

async fn submit(app: &TestApp, phone: &str) -> i64 {
    submit_saying(app, phone, "Після 18:00").await
}

async fn submit_saying(app: &TestApp, phone: &str, comment: &str) -> i64 {
    let body = json!({ "name": "Ганна Мельник", "phone": phone, "confirmation": "Так", "comment": comment });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

async fn lead(app: &TestApp, operator: &SignedIn, id: i64) -> Value {
    let answer = operator.get(app, &format!("/admin/api/leads/{id}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()["lead"].clone()
}

async fn due(app: &TestApp, operator: &SignedIn) -> Vec<i64> {
    let answer = operator.get(app, "/admin/api/leads?filter=due").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let leads = answer.json()["leads"].as_array().unwrap().clone();
    assert!(leads.iter().all(|l| l["next_call_at"].is_string()), "{leads:?}");
    leads.iter().map(|l| l["id"].as_i64().unwrap()).collect()
}

async fn call(app: &TestApp, operator: &SignedIn, id: i64, body: Value) -> common::Answer {
    operator.post(app, &format!("/admin/api/leads/{id}/attempts"), body).await
}

fn next_call_at(lead: &Value) -> Option<Timestamp> {
    lead["next_call_at"].as_str().map(|at| at.parse().unwrap())
}

fn kyiv_date(at: Timestamp) -> jiff::civil::Date {
    at.to_zoned(zayavka::notice::operators_zone()).date()
}

#[tokio::test]
async fn a_lead_of_the_call_list_is_due_at_once_and_a_held_one_once_released() {
    let (app, operator) = desk(|s| s.hold_without_proof = true).await;
    let before = app.state.clock.now();
    // Without a page-load proof the lead is held: nothing to call yet.
    let held = submit(&app, "067 000 01 01").await;
    assert_eq!(lead(&app, &operator, held).await["next_call_at"], Value::Null);
    assert!(due(&app, &operator).await.is_empty());
    // Nobody calls it before it is released, not even for a call-back (the inbox offers none).
    let tomorrow = app.state.clock.now() + jiff::SignedDuration::from_hours(24);
    let asked = json!({ "outcome": "no_answer", "call_back_at": tomorrow.to_string() });
    let refused = call(&app, &operator, held, asked).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text());
    assert!(refused.json()["error"].as_str().unwrap().contains("на перевірці"), "{}", refused.text());
    assert_eq!(lead(&app, &operator, held).await["status"], "new");
    let released = operator.post(&app, &format!("/admin/api/leads/{held}/release"), json!({})).await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text());
    let at = next_call_at(&released.json()["lead"]).expect("due once in the call list");
    assert!(before <= at && at <= app.state.clock.now(), "{at}");
    assert_eq!(due(&app, &operator).await, [held]);
    // Every list answer carries it too.
    let all = operator.get(&app, "/admin/api/leads?filter=all").await.json();
    assert!(all["leads"][0]["next_call_at"].is_string(), "{all}");
}

#[tokio::test]
async fn call_backs_that_came_due_come_first_then_the_nearest_deadline() {
    let (app, operator) = desk(|_| {}).await;
    let oldest = submit(&app, "067 000 02 01").await;
    let repeat = submit(&app, "067 000 02 01").await;
    app.clock.advance_hours(30);
    let newer = submit(&app, "067 000 02 02").await;
    app.clock.advance_hours(10);
    let asked_earlier = submit(&app, "067 000 02 03").await;
    let asked_later = submit(&app, "067 000 02 04").await;

    // Two people asked to be called at a time still to come; the one asked later, sooner.
    let in_minutes = |minutes: i64| {
        let at = app.state.clock.now() + jiff::SignedDuration::from_mins(minutes);
        Timestamp::from_second(at.as_second()).unwrap().to_string()
    };
    for (id, at) in [(asked_earlier, in_minutes(120)), (asked_later, in_minutes(95))] {
        let asked = call(&app, &operator, id, json!({ "outcome": "call_back", "call_back_at": at })).await;
        assert_eq!(asked.status, StatusCode::CREATED, "{}", asked.text());
        assert_eq!(next_call_at(&asked.json()["lead"]), Some(at.parse().unwrap()), "exactly that time");
    }
    assert_eq!(due(&app, &operator).await, [oldest, newer], "not before their time; a repeat is not a call");
    assert_eq!(lead(&app, &operator, repeat).await["next_call_at"], Value::Null);
    // A repeat's calls go on the person's first lead.
    let on_the_repeat = call(&app, &operator, repeat, json!({ "outcome": "no_answer" })).await;
    assert_eq!(on_the_repeat.status, StatusCode::CONFLICT, "{}", on_the_repeat.text());
    assert!(on_the_repeat.json()["error"].as_str().unwrap().contains("першій заявці"));

    // Their times come (the later-asked one's first): they lead the list, earliest first.
    app.clock.advance_minutes(125);
    assert_eq!(due(&app, &operator).await, [asked_later, asked_earlier, oldest, newer]);

    // A call that reaches the person closes the lead: nothing left to schedule.
    let reached = call(&app, &operator, oldest, json!({ "outcome": "interested" })).await;
    assert_eq!(reached.json()["lead"]["next_call_at"], Value::Null);
    assert_eq!(due(&app, &operator).await, [asked_later, asked_earlier, newer]);
}

/// A desk closed today (Kyiv), with this retry cadence, and today's date.
async fn desk_closed_today(cadence: &str) -> (TestApp, SignedIn, jiff::civil::Date) {
    let today = kyiv_date(Timestamp::now());
    let cadence = zayavka::calendar::Cadence::parse(cadence).unwrap();
    let (app, operator) = desk(move |s| {
        s.closed_days = zayavka::calendar::ClosedDays::parse(&today.to_string()).unwrap();
        s.retry_cadence = cadence;
    })
    .await;
    (app, operator, today)
}

#[tokio::test]
async fn an_unanswered_call_is_tried_again_by_the_cadence_never_on_a_closed_day() {
    let (app, operator, today) = desk_closed_today("2h,morning").await;
    let id = submit(&app, "067 000 03 01").await;

    // Today is closed: two working hours are counted from tomorrow's midnight (no working hours).
    let first = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text());
    let at = next_call_at(&first.json()["lead"]).unwrap();
    let local = at.to_zoned(zayavka::notice::operators_zone());
    assert_eq!((local.date(), local.hour()), (today.tomorrow().unwrap(), 2), "{local}");
    assert!(due(&app, &operator).await.is_empty(), "not due before its time");

    // Its time comes; unanswered again: the next working morning, 09:00 (tomorrow's).
    come_due(&app, at);
    assert_eq!(due(&app, &operator).await, [id]);
    let second = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await;
    let local = next_call_at(&second.json()["lead"]).unwrap().to_zoned(zayavka::notice::operators_zone());
    assert_eq!((local.date(), local.hour(), local.minute()), (today.tomorrow().unwrap(), 9, 0), "{local}");

    // The cadence is used up: due again at once, the team working, for a person to decide (never
    // closed by itself).
    come_due(&app, next_call_at(&second.json()["lead"]).unwrap());
    let third = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await.json();
    assert_eq!(third["lead"]["status"], "attempt_3");
    assert!(next_call_at(&third["lead"]).unwrap() <= app.state.clock.now());
    assert_eq!(due(&app, &operator).await, [id]);
}

#[tokio::test]
async fn the_cadence_used_up_on_a_closed_day_waits_for_the_team() {
    let (app, operator, today) = desk_closed_today("2h").await;
    let id = submit(&app, "067 000 03 02").await;
    let first = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text());
    // Unanswered again the same (closed) day: no step is left, so the lead is due when the team
    // is back, tomorrow's first minute (no working hours), not at once.
    let second = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await.json();
    let midnight = today.tomorrow().unwrap().to_zoned(zayavka::notice::operators_zone()).unwrap().timestamp();
    assert_eq!(next_call_at(&second["lead"]), Some(midnight), "{second}");
    assert!(due(&app, &operator).await.is_empty(), "not on the closed day");
}

#[tokio::test]
async fn a_lead_whose_retries_are_used_up_says_so_in_every_answer_until_a_time_is_agreed() {
    let cadence = zayavka::calendar::Cadence::parse("1h").unwrap();
    let (app, operator) = desk(move |s| s.retry_cadence = cadence).await;
    let id = submit(&app, "067 000 03 03").await;
    let used_up = |lead: &Value| lead["retries_used_up"].as_bool().unwrap();

    let first = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await.json();
    assert!(!used_up(&first["lead"]), "one step of the cadence is left: {first}");
    come_due(&app, next_call_at(&first["lead"]).unwrap());

    // No step left: every answer says so, the list of calls due too (what the desk shows after a
    // reload), not only the answer to the call.
    let second = call(&app, &operator, id, json!({ "outcome": "no_answer" })).await.json();
    assert!(used_up(&second["lead"]), "{second}");
    assert!(used_up(&lead(&app, &operator, id).await));
    let at = next_call_at(&second["lead"]).unwrap();
    if at > app.state.clock.now() {
        come_due(&app, at); // the team's next working minute
    }
    let listed = operator.get(&app, "/admin/api/leads?filter=due").await.json();
    assert_eq!(listed["leads"][0]["id"], id, "{listed}");
    assert!(used_up(&listed["leads"][0]), "{listed}");

    // The person is reached and asks for a time: that is no retry.
    let tomorrow = (app.state.clock.now() + jiff::SignedDuration::from_hours(24)).to_string();
    let asked = call(&app, &operator, id, json!({ "call_back_at": tomorrow })).await;
    assert_eq!(asked.status, StatusCode::CREATED, "{}", asked.text());
    assert!(!used_up(&asked.json()["lead"]));
    assert!(!used_up(&lead(&app, &operator, id).await));
}

#[tokio::test]
async fn a_call_back_may_be_set_outside_working_hours_because_the_person_asked() {
    let (app, operator) =
        desk(|s| s.working_hours = zayavka::notice::WorkingHours::parse("09:00-18:00")).await;
    let id = submit(&app, "067 000 04 01").await;
    let tomorrow = kyiv_date(Timestamp::now()).tomorrow().unwrap();
    let at_seven = tomorrow.at(7, 15, 0, 0).to_zoned(zayavka::notice::operators_zone()).unwrap().timestamp();
    let asked = call(
        &app,
        &operator,
        id,
        json!({ "call_back_at": at_seven.to_string(), "note": "просила до роботи" }),
    )
    .await;
    assert_eq!(asked.status, StatusCode::CREATED, "{}", asked.text());
    let asked = asked.json();
    assert_eq!(next_call_at(&asked["lead"]), Some(at_seven));
    assert_eq!(asked["lead"]["status"], "new", "no call went unanswered");
    assert_eq!(asked["attempts"][0]["outcome"], "call_back");
}

#[tokio::test]
async fn wrong_call_backs_are_refused_with_the_reason() {
    let (app, operator) = desk(|_| {}).await;
    let id = submit(&app, "067 000 05 01").await;
    let soon = (Timestamp::now() + jiff::SignedDuration::from_hours(1)).to_string();
    let far = (Timestamp::now() + jiff::SignedDuration::from_hours(24 * 91)).to_string();
    for (body, reason) in [
        (
            json!({ "outcome": "no_answer", "call_back_at": "завтра о дев'ятій" }),
            "Час передзвону не розпізнано",
        ),
        (json!({ "outcome": "no_answer", "call_back_at": far }), "не пізніше ніж за 90 днів"),
        // Times no call-back means, which the two engines would not keep alike.
        (json!({ "call_back_at": "0000-01-01T00:00:00Z" }), "раніший за 1970 рік"),
        (json!({ "call_back_at": "-005000-01-01T00:00:00Z" }), "раніший за 1970 рік"),
        (json!({ "outcome": "interested", "call_back_at": soon }), "лишається відкритою"),
        (json!({ "outcome": "call_back" }), "Вкажіть, о котрій передзвонити"),
    ] {
        let refused = call(&app, &operator, id, body.clone()).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{body}");
        assert!(refused.json()["error"].as_str().unwrap().contains(reason), "{body}: {}", refused.text());
    }
    assert_eq!(lead(&app, &operator, id).await["attempt_count"], 0, "nothing was recorded");
    let searched = operator.get(&app, "/admin/api/leads?filter=due&q=Ганна").await;
    assert_eq!(searched.status, StatusCode::BAD_REQUEST);

    // A time that has passed is taken, as the contract says: due at once.
    let hour_ago = Timestamp::from_second(Timestamp::now().as_second() - 3600).unwrap();
    let past = call(&app, &operator, id, json!({ "call_back_at": hour_ago.to_string() })).await;
    assert_eq!(past.status, StatusCode::CREATED, "{}", past.text());
    assert_eq!(next_call_at(&past.json()["lead"]), Some(hour_ago));
    assert_eq!(due(&app, &operator).await, [id]);
}

/// A phone on a bad connection recorded the call, but its answer was lost: the operator taps
/// again. The inbox sends the call again under the key it sent it with, and the call is recorded
/// once, so the cadence's next step is not spent on a call nobody made (ADR 0084).
#[tokio::test]
async fn a_call_sent_again_under_its_key_is_recorded_once() {
    let (app, operator) = desk(|_| {}).await;
    let id = submit(&app, "067 000 05 02").await;
    let path = format!("/admin/api/leads/{id}/attempts");
    let keyed = |key: &'static str| [("idempotency-key", key)];
    let no_answer = json!({ "outcome": "no_answer", "note": "не взяли" });

    let first = operator.post_with(&app, &path, &keyed("call-1"), no_answer.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text());
    let again = operator.post_with(&app, &path, &keyed("call-1"), no_answer.clone()).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text());
    assert_eq!(again.json()["attempts"].as_array().unwrap().len(), 1, "{}", again.text());
    assert_eq!(again.json()["lead"]["status"], "attempt_1");
    assert_eq!(again.json()["lead"]["next_call_at"], first.json()["lead"]["next_call_at"]);
    let recorded = operator.audit(&app).await;
    let recorded = recorded.iter().filter(|entry| entry["action"] == "recorded_call").count();
    assert_eq!(recorded, 1, "the trail has the call once");

    // The key of that call with another call is refused: it would be lost as a repeat.
    let other = operator.post_with(&app, &path, &keyed("call-1"), json!({ "outcome": "interested" })).await;
    assert_eq!(other.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", other.text());
    assert!(other.json()["error"].as_str().unwrap().contains("з іншим дзвінком"), "{}", other.text());
    let bad = operator.post_with(&app, &path, &[("idempotency-key", "")], no_answer.clone()).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text());
    assert_eq!(lead(&app, &operator, id).await["attempt_count"], 1, "neither was recorded");

    // A new key is a new call; so is every call sent without one, as before; and a key is the
    // operator's own: a colleague's request with the same one is their call.
    let second = operator.post_with(&app, &path, &keyed("call-2"), no_answer.clone()).await;
    assert_eq!(second.json()["lead"]["status"], "attempt_2", "{}", second.text());
    assert_eq!(call(&app, &operator, id, no_answer.clone()).await.status, StatusCode::CREATED);
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, "petro@example.org", hash, None).await;
    let colleague = signed_in(&app, "petro@example.org").await;
    let theirs = colleague.post_with(&app, &path, &keyed("call-1"), json!({ "outcome": "interested" })).await;
    assert_eq!(theirs.status, StatusCode::CREATED, "{}", theirs.text());
    assert_eq!(theirs.json()["attempts"].as_array().unwrap().len(), 4);
    assert_eq!(theirs.json()["lead"]["status"], "interested");
}

#[tokio::test]
async fn a_lead_whose_deadline_falls_on_days_off_is_at_risk_as_soon_as_it_arrives() {
    // Tomorrow and the day of the deadline are closed (Kyiv dates): the 48 hours end while
    // nobody works.
    let now = Timestamp::now();
    let closed =
        format!("{}, {}", kyiv_date(now).tomorrow().unwrap(), kyiv_date(now + zayavka::inbox::PROMISE));
    let closed_days = zayavka::calendar::ClosedDays::parse(&closed).unwrap();
    let (app, operator) = desk(move |s| s.closed_days = closed_days).await;
    let id = submit(&app, "067 000 06 01").await;
    assert_eq!(lead(&app, &operator, id).await["at_risk"], true);
    let listed = operator.get(&app, "/admin/api/leads?filter=due").await.json();
    assert_eq!(listed["leads"][0]["at_risk"], true);
    // Reached, it is no longer at risk.
    call(&app, &operator, id, json!({ "outcome": "interested" })).await;
    assert_eq!(lead(&app, &operator, id).await["at_risk"], false);

    // Held for review, a lead is outside the 48 hours until it is released.
    let (app, operator) = desk(move |s| {
        s.closed_days = zayavka::calendar::ClosedDays::parse(&closed).unwrap();
        s.hold_without_proof = true;
    })
    .await;
    let held = submit(&app, "067 000 06 03").await;
    assert_eq!(lead(&app, &operator, held).await["at_risk"], false, "held");
    operator.post(&app, &format!("/admin/api/leads/{held}/release"), json!({})).await;
    assert_eq!(lead(&app, &operator, held).await["at_risk"], true, "released");

    let (app, operator) = desk(|_| {}).await;
    let id = submit(&app, "067 000 06 02").await;
    assert_eq!(lead(&app, &operator, id).await["at_risk"], false, "no days off: not at risk");
}

/// A person who answered and asked to be called on another day was reached: the 48 hours were
/// kept, though the lead stays open for the time agreed. It is not overdue, not at risk, and it
/// counts as reached in time in every figure (ADR 0087).
#[tokio::test]
async fn a_person_who_asked_for_a_later_call_was_reached_in_time() {
    let closed = kyiv_date(Timestamp::now() + zayavka::inbox::PROMISE).to_string();
    let (app, operator) =
        desk(move |s| s.closed_days = zayavka::calendar::ClosedDays::parse(&closed).unwrap()).await;
    let agreed = submit(&app, "067 000 07 01").await;
    let nobody_answered = submit(&app, "067 000 07 02").await;
    assert_eq!(lead(&app, &operator, agreed).await["at_risk"], true, "its 48 hours end on a day off");
    app.clock.advance_hours(10);
    let in_three_days = app.state.clock.now() + jiff::SignedDuration::from_hours(72);
    let at = Timestamp::from_second(in_three_days.as_second()).unwrap().to_string();
    let asked = call(&app, &operator, agreed, json!({ "outcome": "call_back", "call_back_at": at })).await;
    assert_eq!(asked.status, StatusCode::CREATED, "{}", asked.text());
    let answer = asked.json();
    assert_eq!(answer["lead"]["reached_at"], answer["now"], "{answer}");
    assert_eq!(answer["lead"]["open"], true);
    assert_eq!(answer["lead"]["at_risk"], false);
    call(&app, &operator, nobody_answered, json!({ "outcome": "no_answer" })).await;

    // Fifty hours after both were sent, only the one nobody reached is overdue.
    app.clock.advance_hours(40);
    assert_eq!(operator.listed(&app, "overdue").await, [nobody_answered]);
    assert_eq!(operator.listed(&app, "open").await, [nobody_answered, agreed]);
    let stats = operator.get(&app, "/admin/api/stats").await.json();
    assert_eq!((&stats["open"], &stats["overdue"]), (&json!(2), &json!(1)), "{stats}");
    assert_eq!(stats["reached_in_time"], json!({ "reached": 1, "due": 2 }));
    let promise = operator.get(&app, "/admin/api/stats/promise").await.json();
    let overall = &promise["overall"];
    assert_eq!((&overall["reached"], &overall["reached_in_time"]), (&json!(1), &json!(1)), "{promise}");
    assert_eq!(overall["reach_median_minutes"], 600);
    let breakdown = operator.get(&app, "/admin/api/stats/breakdown").await.json();
    assert_eq!(
        breakdown["operators"],
        json!([{ "email": OPERATOR, "calls": 2, "reached": 1 }]),
        "{breakdown}"
    );

    // The agreed time comes and nobody answers: still reached once, still not overdue.
    come_due(&app, at.parse().unwrap());
    assert!(due(&app, &operator).await.contains(&agreed));
    let unanswered = call(&app, &operator, agreed, json!({ "outcome": "no_answer" })).await;
    assert_eq!(unanswered.json()["lead"]["reached_at"], answer["now"]);
    assert_eq!(operator.listed(&app, "overdue").await, [nobody_answered]);
    assert_eq!(operator.get(&app, "/admin/api/stats").await.json()["overdue"], 1);
}

/// The desk with two channels that lead nowhere, and no background tasks: the test runs the
/// scans itself, and what they queue stays in the outbox to be counted.
async fn desk_with_channels() -> (TestApp, SignedIn) {
    let app = common::test_app_without_chores(|s| {
        s.notify.webhook =
            Some(zayavka::config::Webhook { url: "http://127.0.0.1:9/hook".into(), secret: None });
        s.notify.telegram = Some(zayavka::config::Telegram {
            api_url: "http://127.0.0.1:9".into(),
            bot_token: "1:x".into(),
            chat_id: "1".into(),
        });
    })
    .await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, OPERATOR, hash, None).await;
    let operator = signed_in(&app, OPERATOR).await;
    (app, operator)
}

/// The queued notifications of `event`, as (lead, channel) pairs.
async fn queued(app: &TestApp, event: zayavka::notice::Event) -> Vec<(i64, &'static str)> {
    let pending = app.state.store.pending_notifications(100).await.unwrap();
    let mut queued: Vec<_> =
        pending.iter().filter(|n| n.event == event).map(|n| (n.lead_id, n.channel.name())).collect();
    queued.sort();
    queued
}

#[tokio::test]
async fn a_lead_nobody_called_in_time_is_reported_to_the_admins_once() {
    use zayavka::notice::Event;
    let (app, operator) = desk_with_channels().await;
    let forgotten = submit(&app, "067 000 07 01").await;
    let called = submit(&app, "067 000 07 02").await;
    assert_eq!(lead(&app, &operator, forgotten).await["escalated_at"], Value::Null);
    call(&app, &operator, called, json!({ "outcome": "no_answer" })).await;
    // The default is 24 hours: two of them arrived 25 hours ago.
    app.clock.advance_hours(25);
    let fresh = submit(&app, "067 000 07 03").await;

    let escalate = || zayavka::notify::escalate(&app.state.store, &app.state.settings, app.state.clock.now());
    assert_eq!(escalate().await.unwrap(), 1);
    assert_eq!(queued(&app, Event::Escalated).await, [(forgotten, "telegram"), (forgotten, "webhook")]);
    let escalated_at = lead(&app, &operator, forgotten).await["escalated_at"].clone();
    assert!(escalated_at.as_str().unwrap().parse::<Timestamp>().is_ok(), "{escalated_at}");
    assert_eq!(lead(&app, &operator, called).await["escalated_at"], Value::Null, "someone called it");
    assert_eq!(lead(&app, &operator, fresh).await["escalated_at"], Value::Null, "still in time");

    // Once: the next scan finds nothing new.
    assert_eq!(escalate().await.unwrap(), 0);
    assert_eq!(queued(&app, Event::Escalated).await.len(), 2);
    assert_eq!(lead(&app, &operator, forgotten).await["escalated_at"], escalated_at);
}

#[tokio::test]
async fn a_person_who_writes_again_shows_on_the_first_lead_and_its_holder_is_told_once() {
    use zayavka::notice::Event;
    let (app, operator) = desk_with_channels().await;
    let first = submit(&app, "067 000 08 01").await;
    assert_eq!(lead(&app, &operator, first).await["wrote_again"], Value::Null);

    // Nobody holds the lead yet: the card shows it, nobody is told.
    let nobody_held_it = submit_saying(&app, "067 000 08 01", "Я вже писала").await;
    let shown = lead(&app, &operator, first).await;
    assert_eq!(shown["wrote_again"]["comment"], "Я вже писала");
    assert_eq!(queued(&app, Event::WroteAgain).await, []);

    // Taken by an operator: the next repeat tells them, on every channel, and the card shows
    // the newest comment and its time.
    let taken = operator.post(&app, &format!("/admin/api/leads/{first}/take"), json!({})).await;
    assert_eq!(taken.status, StatusCode::OK, "{}", taken.text());
    let newest = submit_saying(&app, "067 000 08 01", "Чекаю дзвінка, будь ласка").await;
    assert_eq!(queued(&app, Event::WroteAgain).await, [(first, "telegram"), (first, "webhook")]);
    let shown = lead(&app, &operator, first).await;
    assert_eq!(shown["wrote_again"]["comment"], "Чекаю дзвінка, будь ласка");
    let newest_at = lead(&app, &operator, newest).await["created_at"].clone();
    assert_eq!(shown["wrote_again"]["at"], newest_at);
    assert_eq!(shown["repeat_count"], 2);
    let listed = operator.get(&app, "/admin/api/leads?filter=due").await.json();
    assert_eq!(listed["leads"][0]["wrote_again"]["comment"], "Чекаю дзвінка, будь ласка");

    // Once per lead: a third message adds no notice; the repeats themselves stay off the call list.
    submit_saying(&app, "067 000 08 01", "Ще раз").await;
    assert_eq!(queued(&app, Event::WroteAgain).await.len(), 2);
    assert_eq!(lead(&app, &operator, nobody_held_it).await["wrote_again"], Value::Null);
    assert_eq!(due(&app, &operator).await, [first]);
}

/// A person who writes again after their lead was closed asks anew: the message is a lead of its
/// own, due at once and announced, not a repeat of the closed one that nobody would call.
#[tokio::test]
async fn a_person_who_writes_again_after_their_lead_was_closed_is_called_again() {
    use zayavka::notice::Event;
    let (app, operator) = desk_with_channels().await;
    let first = submit(&app, "067 000 09 01").await;
    let closed = call(&app, &operator, first, json!({ "outcome": "unreachable" })).await;
    assert_eq!(closed.status, StatusCode::CREATED, "{}", closed.text());
    app.clock.advance_hours(3);

    let again = submit_saying(&app, "067 000 09 01", "Пропустила дзвінки, передзвоніть").await;
    let shown = lead(&app, &operator, again).await;
    assert_eq!(shown["repeat_of"], Value::Null, "{shown}");
    assert!(next_call_at(&shown).is_some_and(|at| at <= app.state.clock.now()), "{shown}");
    assert_eq!(due(&app, &operator).await, [again]);
    let announced: Vec<_> =
        queued(&app, Event::New).await.into_iter().filter(|(id, _)| *id == again).collect();
    assert_eq!(announced, [(again, "telegram"), (again, "webhook")]);
    // Writing once more, the person is a repeat of the open lead, as always.
    let repeat = submit(&app, "067 000 09 01").await;
    assert_eq!(lead(&app, &operator, repeat).await["repeat_of"], again);
}

#[tokio::test]
async fn without_a_channel_a_lead_nobody_called_in_time_is_still_marked_in_the_inbox() {
    let app = common::test_app_without_chores(|_| {}).await;
    assert!(app.state.settings.notify.channels().is_empty());
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, OPERATOR, hash, None).await;
    let forgotten = submit(&app, "067 000 07 11").await;
    // The default is 24 hours.
    app.clock.advance_hours(25);
    let operator = signed_in(&app, OPERATOR).await;

    let now = app.state.clock.now();
    assert_eq!(zayavka::notify::escalate(&app.state.store, &app.state.settings, now).await.unwrap(), 1);
    let escalated_at = lead(&app, &operator, forgotten).await["escalated_at"].clone();
    assert_eq!(escalated_at.as_str().unwrap().parse::<Timestamp>().unwrap(), now);
    assert!(
        app.state.store.pending_notifications(10).await.unwrap().is_empty(),
        "no channel to tell it through"
    );
}

//! What the scan tells beside the deadlines (docs/product.md, "Notifications"): a call-back whose
//! time has come is told once per scheduled time, to whoever holds the lead, and a channel that
//! keeps failing is reported once through the other channels, then once when it delivers again.
//! The app runs in-process with its real sender; Telegram and the webhook are the loopback
//! receivers; the tests run the scans with the time they choose. Runs on SQLite, and on
//! PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use std::time::Duration;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use common::receivers::{HttpReceiver, Received, Reply};
use jiff::{SignedDuration, Timestamp};
use serde_json::json;
use zayavka::notice::Channel;
use zayavka::notify::ChannelTurn;
use zayavka::store::PendingNotification;
use zayavka::team::Action;

const ADMIN: &str = "admin@example.org";
const OPERATOR: &str = "olena@example.org";
const WAIT: Duration = Duration::from_secs(15);

/// The app with Telegram and a webhook on `telegram` and `webhook` (either may be left out). Its
/// own scan looks once at the start and then not for an hour: the tests run it.
async fn app_with(
    telegram: Option<&HttpReceiver>,
    webhook: Option<&HttpReceiver>,
) -> (TestApp, SignedIn, SignedIn) {
    let telegram = telegram.map(|r| zayavka::config::Telegram {
        api_url: r.url(""),
        bot_token: "1:x".into(),
        chat_id: "1".into(),
    });
    let webhook = webhook.map(|r| zayavka::config::Webhook { url: r.url("/hooks"), secret: None });
    let app = common::test_app_with(|s| {
        s.notify.telegram = telegram;
        s.notify.webhook = webhook;
        s.reminder_scan_seconds = 3600;
    })
    .await;
    for (email, role) in [(ADMIN, "admin"), (OPERATOR, "operator")] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        let role = zayavka::team::Role::from_name(role);
        common::add_account(&app.state.store, email, hash, role).await;
    }
    let (admin, operator) = (signed_in(&app, ADMIN).await, signed_in(&app, OPERATOR).await);
    (app, admin, operator)
}

async fn submit(app: &TestApp, phone: &str) -> i64 {
    let body = json!({ "name": "Ганна Мельник", "phone": phone, "confirmation": "Так" });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

async fn call(app: &TestApp, operator: &SignedIn, id: i64, body: serde_json::Value) {
    let answer = operator.post(app, &format!("/admin/api/leads/{id}/attempts"), body).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
}

fn event(request: &Received) -> String {
    serde_json::from_slice::<serde_json::Value>(&request.body)
        .ok()
        .map_or_else(String::new, |body| body["event"].as_str().unwrap_or("").to_owned())
}

fn text(request: &Received) -> String {
    request.json()["text"].as_str().unwrap_or("").to_owned()
}

/// The webhook calls of `event` (about lead `lead`, if given) answered 200.
fn delivered(requests: &[Received], name: &str, lead: Option<i64>) -> Vec<Received> {
    requests
        .iter()
        .filter(|r| r.status == 200 && event(r) == name && (lead.is_none() || r.lead_id() == lead))
        .cloned()
        .collect()
}

/// Runs the scan's call-back step, as the scan does: what it queued goes out at once.
async fn tell_call_backs(app: &TestApp) -> usize {
    let told = zayavka::notify::tell_call_backs(&app.state.store, &app.state.settings, app.state.clock.now())
        .await
        .unwrap();
    app.state.notifier.wake();
    told
}

/// Moves the clock a minute past the latest next call of `ids`, once what is on its way has gone
/// out: a send still running while the clock jumps hours ahead would outlive its claim and be
/// made again.
async fn come_due(app: &TestApp, ids: &[i64]) {
    let deadline = std::time::Instant::now() + WAIT;
    while !app.state.store.pending_notifications(10).await.unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "notifications still waiting");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut latest = app.state.clock.now();
    for &id in ids {
        let lead = app.state.store.lead(id).await.unwrap().unwrap();
        latest = latest.max(lead.next_call_at.expect("a call to make").parse().unwrap());
    }
    app.clock.advance(latest.duration_since(app.state.clock.now()) + SignedDuration::from_mins(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_back_whose_time_came_is_told_once_per_time_to_its_holder_without_personal_data() {
    let webhook = HttpReceiver::start(Reply::status(200)).await;
    let telegram = HttpReceiver::start(Reply::telegram_ok()).await;
    let (app, admin, operator) = app_with(Some(&telegram), Some(&webhook)).await;
    let fresh = submit(&app, "067 000 11 01").await;
    let asked = submit(&app, "067 000 11 02").await;
    let unanswered = submit(&app, "067 000 11 03").await;
    // The person asked to be called in two hours; the other did not answer (the cadence's retry).
    // Olena keeps the first: an admin handed it to her.
    let handed =
        admin.post(&app, &format!("/admin/api/leads/{asked}/assign"), json!({ "email": OPERATOR })).await;
    assert_eq!(handed.status, StatusCode::OK, "{}", handed.text());
    let later = Timestamp::from_second(app.state.clock.now().as_second() + 2 * 3600).unwrap();
    call(&app, &operator, asked, json!({ "outcome": "call_back", "call_back_at": later.to_string() })).await;
    call(&app, &operator, unanswered, json!({ "outcome": "no_answer" })).await;
    webhook.wait_for("the three new leads", WAIT, |r| delivered(r, "lead.new", None).len() == 3).await;

    // Nothing is due yet; the fresh lead is due since it arrived, which is no call-back.
    assert_eq!(tell_call_backs(&app).await, 0);
    come_due(&app, &[asked, unanswered]).await;
    assert_eq!(tell_call_backs(&app).await, 2);
    assert_eq!(tell_call_backs(&app).await, 0, "each time is told once");

    let requests = webhook
        .wait_for("both call-backs", WAIT, |r| {
            [asked, unanswered].iter().all(|&id| !delivered(r, "lead.call_back_due", Some(id)).is_empty())
        })
        .await;
    let told = delivered(&requests, "lead.call_back_due", Some(asked));
    assert_eq!(told.len(), 1);
    let told_text = text(&told[0]);
    assert!(told_text.starts_with(&format!("Час дзвонити: заявка №{asked}")), "{told_text}");
    assert!(told_text.contains("заявка знову серед тих, кому дзвонити зараз"), "{told_text}");
    assert!(told_text.contains(&format!("Заявку веде: {OPERATOR}")), "{told_text}");
    // The caller's own claim ended with the call: the team is told, whoever is free.
    let team_text = text(&delivered(&requests, "lead.call_back_due", Some(unanswered))[0]);
    assert!(team_text.contains("Заявку ніхто не веде"), "{team_text}");
    for shown in [&told_text, &team_text] {
        assert!(!shown.contains("Мельник") && !shown.contains("067"), "personal data: {shown}");
    }
    assert!(delivered(&requests, "lead.call_back_due", Some(fresh)).is_empty());
    telegram
        .wait_for("both on Telegram too", WAIT, |r| {
            r.iter()
                .filter(|r| r.json()["text"].as_str().unwrap_or("").starts_with("<b>Час дзвонити"))
                .count()
                == 2
        })
        .await;

    // Called again, the person asks for another time: when it comes, that one is told too.
    let again = Timestamp::from_second(app.state.clock.now().as_second() + 3 * 3600).unwrap();
    call(&app, &operator, asked, json!({ "outcome": "call_back", "call_back_at": again.to_string() })).await;
    come_due(&app, &[asked]).await;
    assert_eq!(tell_call_backs(&app).await, 1);
    let requests = webhook
        .wait_for("the second call-back", WAIT, |r| {
            delivered(r, "lead.call_back_due", Some(asked)).len() == 2
        })
        .await;
    let keys: Vec<String> = delivered(&requests, "lead.call_back_due", Some(asked))
        .iter()
        .map(|r| r.header("idempotency-key").to_owned())
        .collect();
    assert_ne!(keys[0], keys[1], "a receiver that drops repeats keeps both: {keys:?}");
    assert_eq!(tell_call_backs(&app).await, 0);
}

/// A call-back notice that waited for a channel (it was down) while an operator called again and
/// set a later time is not sent: it would name the later time as due now. That time is told when
/// it comes, once, under a key of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_back_notice_overtaken_by_a_later_call_is_not_sent_and_the_later_time_is_told() {
    let webhook = HttpReceiver::start(Reply::status(200)).await;
    let (app, _admin, operator) = app_with(None, Some(&webhook)).await;
    let id = submit(&app, "067 000 11 04").await;
    webhook.wait_for("the new lead", WAIT, |r| delivered(r, "lead.new", Some(id)).len() == 1).await;
    call(&app, &operator, id, json!({ "outcome": "no_answer" })).await;
    come_due(&app, &[id]).await;

    webhook.set_default(Reply::status(503));
    assert_eq!(tell_call_backs(&app).await, 1);
    let refused =
        |r: &[Received]| r.iter().filter(|r| r.status == 503 && event(r) == "lead.call_back_due").count();
    webhook.wait_for("the refused notice", WAIT, |r| refused(r) == 1).await;
    let deadline = std::time::Instant::now() + WAIT;
    while app.state.store.pending_notifications(10).await.unwrap().iter().all(|n| n.last_error.is_none()) {
        assert!(std::time::Instant::now() < deadline, "the refusal was not written down");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Called again before the channel is back: no answer again, the next try is hours away.
    call(&app, &operator, id, json!({ "outcome": "no_answer" })).await;
    webhook.set_default(Reply::status(200));
    app.clock.advance(SignedDuration::from_mins(10));
    app.state.notifier.wake();
    let deadline = std::time::Instant::now() + WAIT;
    while !app.state.store.pending_notifications(10).await.unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "the waiting notice was neither sent nor dropped");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        delivered(&webhook.requests(), "lead.call_back_due", Some(id)).is_empty(),
        "told before its time"
    );

    come_due(&app, &[id]).await;
    assert_eq!(tell_call_backs(&app).await, 1);
    webhook
        .wait_for("the later time", WAIT, |r| delivered(r, "lead.call_back_due", Some(id)).len() == 1)
        .await;
}

/// Has Telegram's waiting notification tried again now, until it has been tried `tries` times.
/// Each try is asked for only once the one before is written down, and so is the last one: the
/// watch reads the outbox, and the receiver sees a try before the notifier records how it went.
async fn fail_telegram(app: &TestApp, telegram: &HttpReceiver, tries: usize) {
    loop {
        telegram_settled(app).await;
        let failed = telegram.requests().len();
        if failed >= tries {
            return;
        }
        let pending = app.state.store.pending_notifications(10).await.unwrap();
        let waiting =
            pending.iter().find(|n| n.channel == Channel::Telegram).expect("Telegram's notification waits");
        let trail = Box::new(|waiting: &PendingNotification| {
            common::trail("admin@example.org", Action::ResentNotification, waiting.lead_id)
        });
        app.state.store.resend_notification(waiting.id, app.state.clock.now(), trail).await.unwrap();
        app.state.notifier.send_again(Channel::Telegram);
        telegram.wait_for("one more try", WAIT, |r| r.len() > failed).await;
    }
}

/// Waits until no try of Telegram's notification is on its way: its last failure is written down
/// (with the next try set for later), or it went out.
async fn telegram_settled(app: &TestApp) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let pending = app.state.store.pending_notifications(10).await.unwrap();
        let now = app.state.clock.now();
        let settled = pending.iter().find(|n| n.channel == Channel::Telegram).is_none_or(|n| {
            n.last_error.is_some() && n.next_attempt_at.parse::<Timestamp>().is_ok_and(|at| at > now)
        });
        if settled {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "Telegram's last try was not written down in {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs the scan's watch over the channels, as the scan does: what it queued goes out at once.
async fn watch(app: &TestApp) -> Vec<ChannelTurn> {
    let turns = zayavka::notify::watch_channels(&app.state.store, &app.state.settings, app.state.clock.now())
        .await
        .unwrap();
    app.state.notifier.wake_notices();
    turns
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_that_keeps_failing_is_reported_once_through_the_other_and_once_when_it_is_back() {
    let webhook = HttpReceiver::start(Reply::status(200)).await;
    let telegram = HttpReceiver::start(Reply::json(
        401,
        json!({ "ok": false, "error_code": 401, "description": "Unauthorized" }),
    ))
    .await;
    let (app, _, _) = app_with(Some(&telegram), Some(&webhook)).await;
    let lead = submit(&app, "067 000 12 01").await;
    webhook.wait_for("the new lead", WAIT, |r| !delivered(r, "lead.new", Some(lead)).is_empty()).await;
    fail_telegram(&app, &telegram, 1).await;

    // One failure is not "keeps failing"; nor are three within a minute.
    assert_eq!(watch(&app).await, []);
    fail_telegram(&app, &telegram, 3).await;
    assert_eq!(watch(&app).await, []);
    // Three failures over more than five minutes are.
    app.clock.advance_minutes(10);
    let failing = ChannelTurn { channel: Channel::Telegram, recovered: false, told: vec![Channel::Webhook] };
    assert_eq!(watch(&app).await, [failing]);
    // Several instances watching at once: none tells it again.
    let (a, b) = tokio::join!(watch(&app), watch(&app));
    assert_eq!((a, b), (vec![], vec![]));

    let requests =
        webhook.wait_for("the report", WAIT, |r| !delivered(r, "channel.failing", None).is_empty()).await;
    let report = delivered(&requests, "channel.failing", None);
    assert_eq!(report.len(), 1);
    let report_text = text(&report[0]);
    assert!(report_text.starts_with("Канал «Telegram» не доставляє сповіщення з "), "{report_text}");
    assert!(
        report_text.contains("Остання помилка: Telegram answered 401 Unauthorized: Unauthorized"),
        "{report_text}"
    );
    assert!(report_text.contains("Перевірте на сторінці «Сповіщення»."), "{report_text}");
    assert!(report_text.ends_with("/admin/notifications"), "{report_text}");
    assert_eq!(report[0].json()["channel"], "telegram");
    assert!(!report_text.contains("Мельник") && !report_text.contains("067"), "{report_text}");

    // Telegram works again and delivers what waited: the team hears so, once.
    telegram.set_default(Reply::telegram_ok());
    let tries = telegram.requests().len();
    fail_telegram(&app, &telegram, tries + 1).await;
    telegram.wait_for("the waiting notification", WAIT, |r| r.iter().any(|r| r.status == 200)).await;
    let deadline = std::time::Instant::now() + WAIT;
    while app
        .state
        .store
        .pending_notifications(10)
        .await
        .unwrap()
        .iter()
        .any(|n| n.channel == Channel::Telegram)
    {
        assert!(std::time::Instant::now() < deadline, "Telegram's notification is still waiting");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let back = ChannelTurn { channel: Channel::Telegram, recovered: true, told: vec![Channel::Webhook] };
    assert_eq!(watch(&app).await, [back]);
    assert_eq!(watch(&app).await, []);
    let requests = webhook
        .wait_for("the all-clear", WAIT, |r| !delivered(r, "channel.recovered", None).is_empty())
        .await;
    let all_clear = delivered(&requests, "channel.recovered", None);
    assert_eq!(all_clear.len(), 1);
    assert!(
        text(&all_clear[0]).starts_with("Канал «Telegram» знову доставляє сповіщення"),
        "{}",
        text(&all_clear[0])
    );
    assert_eq!(delivered(&requests, "channel.failing", None).len(), 1);

    // The failing channel itself never carried either.
    for request in telegram.requests() {
        let shown = request.json()["text"].as_str().unwrap_or("").to_owned();
        assert!(!shown.contains("Канал «Telegram»"), "told through the failing channel: {shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_one_channel_its_failing_spell_is_logged_once_and_told_to_nobody() {
    let telegram = HttpReceiver::start(Reply::status(500)).await;
    let (app, _, _) = app_with(Some(&telegram), None).await;
    submit(&app, "067 000 13 01").await;
    fail_telegram(&app, &telegram, 3).await;
    app.clock.advance_minutes(10);
    let alone = ChannelTurn { channel: Channel::Telegram, recovered: false, told: vec![] };
    assert_eq!(watch(&app).await, [alone]);
    assert_eq!(watch(&app).await, [], "once per spell");
    // Nothing about the channel was queued anywhere: only the lead's own notification is tried.
    let tried = telegram.requests().len();
    fail_telegram(&app, &telegram, tried + 1).await;
    assert!(telegram.requests().iter().all(|r| !r.json()["text"].as_str().unwrap_or("").contains("Канал")));
}

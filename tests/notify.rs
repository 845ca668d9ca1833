//! Notifications reach real receivers: the server sends to servers on 127.0.0.1 that each test
//! starts (a stand-in Telegram Bot API, a webhook receiver, an SMTP sink; `common::receivers`).
//! Nothing is mocked inside the server: the outbox, the sender, its retries and the channels run
//! as in production. The app runs in-process, on a clock the tests move (ADR 0035): a retry, a
//! rest or a reminder comes when the clock passes its time, not after real waiting. Only the tests
//! about the process itself (a crash, two instances, sends that hang, SMTP on the wire) run the
//! real binary. Runs on SQLite, and on PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::inbox::{PASSWORD, signed_in};
use common::receivers::{HttpReceiver, Mail, Received, Reply, SmtpSink};
use common::{Server, TestApp, TestDatabase, http, zayavka};
use jiff::SignedDuration;
use zayavka::config::{Email, SettingArgs, Settings, Telegram, Webhook};
use zayavka::notice::WorkingHours;

const PUBLIC_URL: &str = "https://zayavka.example.org";
const BOT_TOKEN: &str = "123456789:AAE-test_Token";
const CHAT_ID: &str = "-1001234567890";
const SECRET: &str = "whsec-test-s3cret";

/// `+38067000NNNN`: a distinct, valid Ukrainian mobile number per lead (the same phone within
/// 24 hours would be one lead).
fn phone(n: u32) -> String {
    format!("+38067000{n:04}")
}

fn link(id: i64) -> String {
    format!("{PUBLIC_URL}/admin/leads/{id}")
}

/// The Telegram text of a `sendMessage` call.
fn telegram_text(request: &Received) -> String {
    request.json()["text"].as_str().unwrap_or_else(|| panic!("no text: {:?}", request.body)).to_owned()
}

/// The Telegram calls about lead `id` (its bold title, so №1 is not №12).
fn telegram_about(requests: &[Received], id: i64) -> Vec<Received> {
    let title = format!("<b>Нова заявка №{id}</b>");
    requests.iter().filter(|r| telegram_text(r).contains(&title)).cloned().collect()
}

/// Webhook calls per `lead_id`, counting only those answered `status` (any, if `None`).
fn per_lead(requests: &[Received], status: Option<u16>) -> HashMap<i64, usize> {
    let mut counts = HashMap::new();
    for request in requests.iter().filter(|r| status.is_none_or(|s| r.status == s)) {
        let id = request.lead_id().unwrap_or_else(|| panic!("no lead_id: {:?}", request.body));
        *counts.entry(id).or_default() += 1;
    }
    counts
}

/// One outbox row, as the database holds it.
#[derive(Debug)]
struct OutboxRow {
    lead_id: i64,
    channel: String,
    attempts: i64,
    last_error: Option<String>,
    locked: bool,
    sent: bool,
}

/// Reads the outbox straight from the test's database (SQLite file or PostgreSQL schema).
async fn outbox(database: &TestDatabase) -> Vec<OutboxRow> {
    const QUERY: &str = "SELECT lead_id, channel, attempts, last_error, locked_until IS NOT NULL, \
                         sent_at IS NOT NULL FROM outbox ORDER BY id";
    if database.url.starts_with("postgres") {
        let (client, connection) =
            tokio_postgres::connect(&database.url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let rows = client.query(QUERY, &[]).await.unwrap();
        return rows
            .iter()
            .map(|row| OutboxRow {
                lead_id: row.get(0),
                channel: row.get(1),
                attempts: i64::from(row.get::<_, i32>(2)),
                last_error: row.get(3),
                locked: row.get(4),
                sent: row.get(5),
            })
            .collect();
    }
    let connection = rusqlite::Connection::open(database.dir.path().join("leads.db")).unwrap();
    connection.busy_timeout(Duration::from_secs(5)).unwrap();
    let mut statement = connection.prepare(QUERY).unwrap();
    statement
        .query_map([], |row| {
            Ok(OutboxRow {
                lead_id: row.get(0)?,
                channel: row.get(1)?,
                attempts: row.get(2)?,
                last_error: row.get(3)?,
                locked: row.get(4)?,
                sent: row.get(5)?,
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Waits until every outbox row of `ids` (one per channel; at least one per lead) failed at least
/// once and is free again (not held by a sender, a retry scheduled): the state a crash may safely
/// happen in.
async fn wait_until_failed(database: &TestDatabase, ids: &[i64]) -> Vec<OutboxRow> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let rows = outbox(database).await;
        let failed = |id: &i64| {
            let of_lead: Vec<&OutboxRow> = rows.iter().filter(|r| r.lead_id == *id).collect();
            !of_lead.is_empty()
                && of_lead.iter().all(|r| r.attempts >= 1 && r.last_error.is_some() && !r.locked && !r.sent)
        };
        if ids.iter().all(failed) {
            return rows;
        }
        assert!(Instant::now() < deadline, "the leads {ids:?} did not fail to send: {rows:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until every outbox row is sent: the sender only claims rows not yet sent, so from then on
/// nothing more reaches a receiver, and what the receivers hold is final.
async fn all_sent(database: &TestDatabase) {
    // A retry comes 5–6 s after a failure.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = outbox(database).await;
        if !rows.is_empty() && rows.iter().all(|r| r.sent && !r.locked) {
            return;
        }
        assert!(Instant::now() < deadline, "notifications still waiting: {rows:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// The in-process app: its sender and scan run as in production, on a clock the test moves. A retry,
// a rest or a reminder comes when the test moves the clock past its time, never after real waiting.

/// The app with `adjust`ed settings (its channels), its links on `PUBLIC_URL`.
async fn app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    common::test_app_with(|s| {
        s.public_url = PUBLIC_URL.to_owned();
        adjust(s);
    })
    .await
}

fn telegram(api: &HttpReceiver) -> Option<Telegram> {
    Some(Telegram { api_url: api.url(""), bot_token: BOT_TOKEN.to_owned(), chat_id: CHAT_ID.to_owned() })
}

fn webhook(receiver: &HttpReceiver) -> Option<Webhook> {
    Some(Webhook { url: receiver.url("/hooks/zayavka"), secret: Some(SECRET.to_owned()) })
}

/// E-mail to `to` (and from `from`) through `sink`, read as the server reads its settings: the
/// sender is the first address unless given.
fn email(sink: &SmtpSink, to: &str, from: Option<&str>) -> Option<Email> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("zayavka.toml");
    let mut settings = format!("ZAYAVKA_SMTP_URL = \"{}\"\nZAYAVKA_NOTIFY_EMAIL_TO = \"{to}\"\n", sink.url());
    if let Some(from) = from {
        settings.push_str(&format!("ZAYAVKA_NOTIFY_EMAIL_FROM = \"{from}\"\n"));
    }
    std::fs::write(&file, settings).unwrap();
    Settings::resolve(SettingArgs::default(), Some(&file)).unwrap().notify.email
}

/// The app with a webhook on `receiver`, checking for reminders every second.
async fn scanning_app(receiver: &HttpReceiver, adjust: impl FnOnce(&mut Settings)) -> TestApp {
    app_with(|s| {
        s.notify.webhook = webhook(receiver);
        s.reminder_scan_seconds = 1;
        adjust(s);
    })
    .await
}

/// Submits a lead to the in-process app as the site does; the stored lead's id.
async fn submit_to(app: &TestApp, name: &str, phone: &str) -> i64 {
    let body = serde_json::json!({"name": name, "phone": phone, "confirmation": "Так", "comment": null});
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap_or_else(|| panic!("no id in {}", answer.text()))
}

/// Moves the app's clock by `by` and has the sender look at its queue at once.
fn pass(app: &TestApp, by: SignedDuration) {
    app.clock.advance(by);
    app.state.notifier.wake();
}

/// Lets the app's time pass a second at a time, the sender looking after each, until `done`:
/// for a test whose leads fail and rest in an order it does not fix.
async fn pass_seconds_until(app: &TestApp, what: &str, done: impl AsyncFn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done().await {
        assert!(Instant::now() < deadline, "time passed and still no {what}");
        pass(app, SignedDuration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The clock time a webhook call was made at (`X-Zayavka-Timestamp`, whole seconds).
fn sent_at(request: &Received) -> i64 {
    request.header("x-zayavka-timestamp").parse().unwrap()
}

/// A time the outbox row of lead `id` holds (`next_attempt_at`, `sent_at`), as the database
/// holds it.
async fn outbox_time(database: &TestDatabase, id: i64, column: &str) -> jiff::Timestamp {
    let query = format!("SELECT {column} FROM outbox WHERE lead_id = {id}");
    if database.url.starts_with("postgres") {
        let (client, connection) =
            tokio_postgres::connect(&database.url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let at: std::time::SystemTime = client.query_one(&query, &[]).await.unwrap().get(0);
        return jiff::Timestamp::try_from(at).unwrap();
    }
    let connection = rusqlite::Connection::open(database.dir.path().join("leads.db")).unwrap();
    let text: String = connection.query_row(&query, [], |row| row.get(0)).unwrap();
    text.parse().unwrap()
}

/// How often the app has checked the open leads for reminders (`/metrics`).
async fn reminder_scans(app: &TestApp) -> u64 {
    let answer = app.get("/metrics").await;
    assert_eq!(answer.status, 200);
    answer
        .text()
        .lines()
        .find_map(|l| l.strip_prefix("zayavka_reminder_scans_total "))
        .map_or(0, |value| value.parse().unwrap())
}

/// Waits until the app has checked the open leads twice more (it checks every real second): what
/// those checks would queue at the clock's time is queued, and `all_sent` then says when it has
/// gone out.
async fn two_more_scans(app: &TestApp) {
    let target = reminder_scans(app).await + 2;
    let deadline = Instant::now() + Duration::from_secs(10);
    while reminder_scans(app).await < target {
        assert!(Instant::now() < deadline, "the reminder scan does not run");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A `zayavka_notifications_*` gauge for `channel` from the app's `/metrics`; `None` if not there.
async fn gauge(app: &TestApp, name: &str, channel: &str) -> Option<i64> {
    let answer = app.get("/metrics").await;
    assert_eq!(answer.status, 200);
    let prefix = format!("{name}{{channel=\"{channel}\"}} ");
    answer.text().lines().find_map(|l| l.strip_prefix(&prefix)).map(|value| value.parse().unwrap())
}

// Telegram

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_gets_one_message_per_lead_without_personal_data() {
    let api = HttpReceiver::start(Reply::telegram_ok()).await;
    let app = app_with(|s| s.notify.telegram = telegram(&api)).await;

    let first = submit_to(&app, "Олена Петренко", &phone(1)).await;
    let second = submit_to(&app, "Ігор Бондар", &phone(2)).await;
    api.wait_for("two messages", Duration::from_secs(10), |r| r.len() >= 2).await;
    all_sent(&app.database).await;
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "one message per lead: {requests:#?}");

    for id in [first, second] {
        let about = telegram_about(&requests, id);
        assert_eq!(about.len(), 1, "lead {id}: {requests:#?}");
        let request = &about[0];
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, format!("/bot{BOT_TOKEN}/sendMessage"));
        assert!(request.header("content-type").starts_with("application/json"));
        let body = request.json();
        let chat_id =
            body["chat_id"].as_str().map(str::to_owned).unwrap_or_else(|| body["chat_id"].to_string());
        assert_eq!(chat_id, CHAT_ID);
        assert_eq!(body["parse_mode"], "HTML");
        let text = telegram_text(request);
        assert!(text.contains(&format!("Нова заявка №{id}")), "{text}");
        assert!(text.contains(&format!("href=\"{}\"", link(id))), "{text}");
        // No personal data by default: neither name nor phone, in any part of the call.
        let raw = String::from_utf8_lossy(&request.body);
        for secret in ["Олена", "Петренко", "Ігор", "Бондар", "670000001", "670000002"]
        {
            assert!(!raw.contains(secret), "{secret} in {raw}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_with_personal_data_escapes_the_name_as_html() {
    let api = HttpReceiver::start(Reply::telegram_ok()).await;
    let app = app_with(|s| {
        s.notify.telegram = telegram(&api);
        s.notify.include_pii = true;
    })
    .await;

    let id = submit_to(&app, "<b>Олена & Ко</b>", &phone(3)).await;
    let requests = api.wait_for("the message", Duration::from_secs(10), |r| !r.is_empty()).await;
    let text = telegram_text(&requests[0]);
    assert!(text.contains(&format!("<b>Нова заявка №{id}</b>")), "{text}");
    assert!(text.contains("&lt;b&gt;Олена &amp; Ко&lt;/b&gt;"), "{text}");
    assert!(!text.contains("<b>Олена"), "the name must arrive as text, not markup: {text}");
    assert!(!text.contains("Олена & Ко"), "a bare & is not Telegram HTML: {text}");
    assert!(text.contains(&phone(3)), "{text}");
    assert!(text.contains(&link(id)), "{text}");
}

// Webhook

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_is_signed_and_names_the_lead_without_personal_data() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    let id = submit_to(&app, "Марія Коваль", &phone(10)).await;
    receiver.wait_for("the webhook call", Duration::from_secs(10), |r| !r.is_empty()).await;
    all_sent(&app.database).await;
    let requests = receiver.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let request = &requests[0];

    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/hooks/zayavka");
    assert!(request.header("content-type").starts_with("application/json"));
    assert!(request.signed_with(SECRET), "signature: {:?}", request.headers);
    assert!(!request.signed_with("another secret"), "the check must be able to fail");
    let timestamp: i64 = request.header("x-zayavka-timestamp").parse().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now - timestamp).abs() < 120, "timestamp {timestamp}, now {now}");
    assert_eq!(request.header("idempotency-key"), format!("zayavka-lead-{id}-new"));
    assert_eq!(request.header("x-zayavka-event"), "lead.new");

    let body = request.json();
    assert_eq!(body["event"], "lead.new");
    assert_eq!(body["lead_id"], id);
    assert_eq!(body["url"], link(id));
    assert!(body.get("lead").is_none_or(|lead| lead.is_null()), "no details without the setting: {body}");
    assert!(body["text"].as_str().unwrap().contains(&format!("Нова заявка №{id}")), "{body}");
    let created: jiff::Timestamp = body["created_at"].as_str().unwrap().parse().unwrap();
    let deadline: jiff::Timestamp = body["deadline_at"].as_str().unwrap().parse().unwrap();
    assert_eq!(deadline.duration_since(created), jiff::SignedDuration::from_hours(48), "{body}");
    let raw = String::from_utf8_lossy(&request.body);
    for secret in ["Марія", "Коваль", "670000010"] {
        assert!(!raw.contains(secret), "{secret} in {raw}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_phone_again_is_one_person_and_one_notification() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    // The same number three ways, as an impatient visitor (or a bot) might send it.
    let ids = [
        submit_to(&app, "Марія", &phone(12)).await,
        submit_to(&app, "Марія", "067 000 00 12").await,
        submit_to(&app, "Марія Коваль", "(067) 000-00-12").await,
    ];
    assert!(ids[0] < ids[1] && ids[1] < ids[2], "each submission is a row of its own: {ids:?}");
    receiver.wait_for("the webhook call", Duration::from_secs(10), |r| !r.is_empty()).await;
    all_sent(&app.database).await;
    let requests = receiver.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0].json()["lead_id"], ids[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_with_personal_data_carries_the_lead() {
    let receiver = HttpReceiver::start(Reply::status(204)).await;
    let app = app_with(|s| {
        s.notify.webhook = webhook(&receiver);
        s.notify.include_pii = true;
    })
    .await;

    let id = submit_to(&app, "Марія \"Ко\" <Коваль>", &phone(11)).await;
    let requests = receiver.wait_for("the webhook call", Duration::from_secs(10), |r| !r.is_empty()).await;
    let request = &requests[0];
    assert!(request.signed_with(SECRET));
    let body = request.json();
    assert_eq!(body["lead_id"], id);
    assert_eq!(body["lead"]["name"], "Марія \"Ко\" <Коваль>", "{body}");
    assert_eq!(body["lead"]["phone"], phone(11), "{body}");
    assert_eq!(body["lead"]["confirmation"], "Так", "{body}");
}

// E-mail

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_goes_to_every_address_with_the_link() {
    let sink = SmtpSink::start().await;
    let email = email(&sink, "ops1@example.org, ops2@example.org", Some("zayavka@example.org"));
    let app = app_with(|s| s.notify.email = email).await;

    let id = submit_to(&app, "Оксана Шевчук", &phone(20)).await;
    sink.wait_for("the e-mail", Duration::from_secs(10), |m| !m.is_empty()).await;
    all_sent(&app.database).await;
    let mails = sink.mails();
    let mut recipients: Vec<&str> = mails.iter().flat_map(|m| m.to.iter().map(String::as_str)).collect();
    recipients.sort_unstable();
    assert_eq!(recipients, ["ops1@example.org", "ops2@example.org"], "one message to each: {mails:#?}");
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let mail = &mails[0];

    assert_eq!(mail.from, "zayavka@example.org");
    assert!(mail.header("from").unwrap().contains("zayavka@example.org"), "{mail:#?}");
    let to = mail.header("to").unwrap();
    assert!(to.contains("ops1@example.org") && to.contains("ops2@example.org"), "{to}");
    assert_eq!(mail.header("subject").as_deref(), Some(format!("Нова заявка №{id}").as_str()), "{mail:#?}");
    let message_id = mail.header("message-id").unwrap();
    assert!(message_id.contains(&format!("zayavka-lead-{id}-new")), "{message_id}");
    let body = mail.body();
    assert!(body.starts_with(&format!("Нова заявка №{id}\n")), "{body}");
    assert!(body.contains(&link(id)), "{body}");
    for secret in ["Оксана", "Шевчук", "670000020"] {
        assert!(!mail.data.contains(secret) && !body.contains(secret), "{secret} in {mail:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_with_personal_data_keeps_the_text_as_written() {
    let sink = SmtpSink::start().await;
    let email = email(&sink, "ops@example.org", None);
    let app = app_with(|s| {
        s.notify.email = email;
        s.notify.include_pii = true;
    })
    .await;

    // A line that is only "." would end the SMTP data if it were not escaped.
    let body = serde_json::json!({
        "name": "<b>Оксана & Ко</b>",
        "phone": phone(21),
        "confirmation": "Так",
        "comment": "перший рядок\n.\nостанній рядок",
    });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    let mails = sink.wait_for("the e-mail", Duration::from_secs(10), |m| !m.is_empty()).await;
    let mail = &mails[0];
    assert_eq!(mail.to, ["ops@example.org"]);
    // The sender defaults to the first recipient.
    assert_eq!(mail.from, "ops@example.org");
    // Plain text, so no mail client renders the name as markup, and nothing is escaped.
    let content_type = mail.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/plain"), "{mail:#?}");
    assert!(!mail.data.to_ascii_lowercase().contains("text/html"), "{mail:#?}");
    let text = mail.body();
    assert!(text.contains("Ім'я: <b>Оксана & Ко</b>\n"), "{text}");
    assert!(text.contains(&format!("Телефон: {}\n", phone(21))), "{text}");
    assert!(text.contains("Коментар:\n> перший рядок\n> .\n> останній рядок\n"), "{text}");
}

// The visitor's comment cannot pass for the notification's own text

/// A comment that imitates the notification's link line, then pushes the real one out of view.
fn fake_link_comment() -> String {
    format!(
        "передзвоніть увечері\nВідкрити: https://inbox.example.org.evil.example/admin/leads/1{}кінець",
        "\n".repeat(60)
    )
}

async fn submit_with_comment(app: &TestApp, comment: &str, phone: &str) -> i64 {
    let body =
        serde_json::json!({"name": "Олена", "phone": phone, "confirmation": "Так", "comment": comment});
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap_or_else(|| panic!("no id in {}", answer.text()))
}

/// The plain text (e-mail, the webhook's `text`): the comment's lines each quoted with `> `, no
/// blank lines but the one before the link, and the real link the only `Відкрити:` line, last.
fn assert_comment_quoted_in_plain_text(text: &str, id: i64) {
    assert!(text.ends_with(&format!("\n\nВідкрити: {}", link(id))), "{text}");
    assert!(
        text.contains("Коментар:\n> передзвоніть увечері\n> Відкрити: https://inbox.example.org.evil"),
        "{text}"
    );
    assert!(text.contains("\n> кінець\n"), "{text}");
    let open_lines: Vec<&str> = text.lines().filter(|line| line.starts_with("Відкрити")).collect();
    assert_eq!(open_lines, [format!("Відкрити: {}", link(id))], "{text}");
    assert_eq!(text.matches("\n\n").count(), 1, "blank lines collapsed: {text:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_shows_a_comment_as_a_quote_apart_from_the_link() {
    let api = HttpReceiver::start(Reply::telegram_ok()).await;
    let app = app_with(|s| {
        s.notify.telegram = telegram(&api);
        s.notify.include_pii = true;
    })
    .await;

    let id = submit_with_comment(&app, &fake_link_comment(), &phone(30)).await;
    let requests = api.wait_for("the message", Duration::from_secs(10), |r| !r.is_empty()).await;
    let text = telegram_text(&requests[0]);
    let quote = text.split_once("<blockquote>").and_then(|(_, rest)| rest.split_once("</blockquote>"));
    let (quote, after) = quote.unwrap_or_else(|| panic!("no quote: {text}"));
    assert_eq!(
        quote, "передзвоніть увечері\nВідкрити: https://inbox.example.org.evil.example/admin/leads/1\nкінець",
        "{text}"
    );
    assert_eq!(after, format!("\n\n<a href=\"{}\">Відкрити заявку</a>", link(id)), "{text}");
    assert_eq!(text.matches("href=").count(), 1, "{text}");
    assert_eq!(text.matches("\n\n").count(), 1, "blank lines collapsed: {text:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_and_webhook_show_a_comment_as_a_quote_apart_from_the_link() {
    let sink = SmtpSink::start().await;
    let receiver = HttpReceiver::start(Reply::status(204)).await;
    let email = email(&sink, "ops@example.org", None);
    let app = app_with(|s| {
        s.notify.webhook = webhook(&receiver);
        s.notify.email = email;
        s.notify.include_pii = true;
    })
    .await;

    let comment = fake_link_comment();
    let id = submit_with_comment(&app, &comment, &phone(31)).await;
    let mails = sink.wait_for("the e-mail", Duration::from_secs(10), |m| !m.is_empty()).await;
    assert_comment_quoted_in_plain_text(&mails[0].body(), id);
    let requests = receiver.wait_for("the webhook call", Duration::from_secs(10), |r| !r.is_empty()).await;
    let body = requests[0].json();
    assert_comment_quoted_in_plain_text(body["text"].as_str().unwrap(), id);
    // The structured lead keeps the comment as stored, for the program that reads it.
    assert!(body["lead"]["comment"].as_str().unwrap().contains("leads/1\n\n\n"), "{body}");
}

// Telegram's flood control

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_retry_after_is_honoured() {
    let api = HttpReceiver::start(Reply::telegram_ok()).await;
    api.push_reply(Reply::telegram_too_many_requests(2));
    let app = app_with(|s| s.notify.telegram = telegram(&api)).await;

    let id = submit_to(&app, "Олена", &phone(4)).await;
    wait_until_failed(&app.database, &[id]).await;
    let refused_at = app.state.clock.now();
    // Not before retry_after (2 s), and sooner than the 5 s backoff it would get otherwise.
    let retry = outbox_time(&app.database, id, "next_attempt_at").await.duration_since(refused_at);
    assert_eq!(retry, SignedDuration::from_secs(2), "retried {retry:?} after the refusal");
    pass(&app, SignedDuration::from_secs(2));
    let requests = api.wait_for("the retry", Duration::from_secs(10), |r| r.len() >= 2).await;
    assert_eq!((requests[0].status, requests[1].status), (429, 200));

    all_sent(&app.database).await;
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(telegram_about(&requests, id).len(), 2, "both calls are about the lead");
    assert_eq!(requests.iter().filter(|r| r.status == 200).count(), 1, "delivered once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_flood_control_holds_back_the_next_lead_too() {
    let api = HttpReceiver::start(Reply::telegram_ok()).await;
    api.push_reply(Reply::telegram_too_many_requests(3));
    let app = app_with(|s| s.notify.telegram = telegram(&api)).await;

    let first = submit_to(&app, "Олена", &phone(5)).await;
    wait_until_failed(&app.database, &[first]).await;
    // A new lead during the flood wait: sending it now would only earn another 429. The clock
    // stands still, so a send before the wait is over would carry the refusal's time.
    let refused_at = app.state.clock.now();
    let second = submit_to(&app, "Ігор", &phone(6)).await;
    pass(&app, SignedDuration::from_secs(2));
    pass(&app, SignedDuration::from_secs(1));
    let requests = api
        .wait_for("both leads delivered", Duration::from_secs(10), |r| {
            r.iter().filter(|r| r.status == 200).count() >= 2
        })
        .await;
    all_sent(&app.database).await;
    for id in [first, second] {
        let sent = outbox_time(&app.database, id, "sent_at").await;
        assert!(
            sent.duration_since(refused_at) >= SignedDuration::from_secs(3),
            "lead {id} went out at {sent}, before the 3 s asked for after {refused_at}: {requests:#?}"
        );
    }
    assert_eq!(telegram_about(&requests, first).len(), 2, "{requests:#?}");
    assert_eq!(telegram_about(&requests, second).len(), 1, "{requests:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_retry_after_is_honoured() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    receiver.push_reply(Reply::status(503).header("retry-after", "2"));
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    let id = submit_to(&app, "Олена", &phone(12)).await;
    wait_until_failed(&app.database, &[id]).await;
    // As with Telegram: not before Retry-After, and sooner than the 5 s backoff.
    let retry = outbox_time(&app.database, id, "next_attempt_at").await.duration_since(app.state.clock.now());
    assert_eq!(retry, SignedDuration::from_secs(2), "retried {retry:?} after the refusal");
    pass(&app, SignedDuration::from_secs(2));
    let requests = receiver.wait_for("the retry", Duration::from_secs(10), |r| r.len() >= 2).await;
    assert_eq!((requests[0].status, requests[1].status), (503, 200));
    assert_eq!(sent_at(&requests[1]) - sent_at(&requests[0]), 2, "{requests:#?}");
    all_sent(&app.database).await;
    assert_eq!(per_lead(&receiver.requests(), None), HashMap::from([(id, 2)]));
}

// Server errors, then success

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_answering_500_for_a_while_gets_each_lead_delivered_once() {
    let receiver = HttpReceiver::start(Reply::status(500)).await;
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(submit_to(&app, &format!("Лід {n}"), &phone(40 + n)).await);
    }
    // After each failure the channel rests a second: the leads meet the 500 one after another.
    pass_seconds_until(&app, "500 for every lead", async || {
        let failed = per_lead(&receiver.requests(), Some(500));
        ids.iter().all(|id| failed.contains_key(id))
    })
    .await;
    receiver.set_default(Reply::status(200));
    // Their retries come 5 s and more after their failures.
    pass_seconds_until(&app, "delivery of every lead", async || {
        let delivered = per_lead(&receiver.requests(), Some(200));
        ids.iter().all(|id| delivered.contains_key(id))
    })
    .await;
    all_sent(&app.database).await;

    let requests = receiver.requests();
    let delivered = per_lead(&requests, Some(200));
    let failed = per_lead(&requests, Some(500));
    assert_eq!(delivered.len(), ids.len(), "{delivered:?}");
    for id in &ids {
        assert_eq!(delivered.get(id), Some(&1), "lead {id}: one 200 ({delivered:?})");
        assert!(failed.get(id).is_some_and(|&n| n >= 1), "lead {id} was refused first ({failed:?})");
        // Nothing more about a lead after its 200.
        let last = requests.iter().rfind(|r| r.lead_id() == Some(*id)).unwrap();
        assert_eq!(last.status, 200, "lead {id}: {requests:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_failed_send_the_channel_rests_a_moment_rather_than_fail_each_new_lead() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    receiver.push_reply(Reply::status(503));
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    let first = submit_to(&app, "Перший", &phone(90)).await;
    wait_until_failed(&app.database, &[first]).await;
    let refused = receiver.requests();
    assert_eq!((refused[0].status, refused[0].lead_id()), (503, Some(first)));
    // Leads sent while the channel rests wait in the outbox (the clock stands still, so a call
    // made now would carry the refusal's time), then go out once it has rested.
    let mut ids = Vec::new();
    for n in 0..5 {
        ids.push(submit_to(&app, &format!("Лід {n}"), &phone(91 + n)).await);
    }
    pass(&app, SignedDuration::from_secs(1));
    let requests = receiver
        .wait_for("the five delivered", Duration::from_secs(10), |r| {
            let delivered = per_lead(r, Some(200));
            ids.iter().all(|id| delivered.contains_key(id))
        })
        .await;
    for request in &requests[1..] {
        let gap = sent_at(request) - sent_at(&requests[0]);
        assert!(gap >= 1, "a call {gap} s after a failed one: {requests:#?}");
    }
    assert_eq!(per_lead(&requests, Some(200)).values().max(), Some(&1), "{requests:#?}");
}

// Erasing a person removes their queued notifications

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_lead_is_never_notified() {
    let mut receiver = HttpReceiver::start(Reply::status(200)).await;
    receiver.stop().await;
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;

    let erased = submit_to(&app, "Стерти Мене", &phone(60)).await;
    let kept = submit_to(&app, "Залишити", &phone(61)).await;
    pass_seconds_until(&app, "failure of both leads", async || {
        let rows = outbox(&app.database).await;
        [erased, kept].iter().all(|id| rows.iter().any(|r| r.lead_id == *id && r.last_error.is_some()))
    })
    .await;
    wait_until_failed(&app.database, &[erased, kept]).await;

    // The same number as a person would give it on the phone.
    let output = zayavka()
        .args(["leads", "erase", "--phone", "067 000 00 60"])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("1 lead(s) erased"), "{stderr}");
    let rows = outbox(&app.database).await;
    assert!(rows.iter().all(|r| r.lead_id != erased), "the erased lead's notification is gone: {rows:#?}");
    assert!(rows.iter().any(|r| r.lead_id == kept && !r.sent), "{rows:#?}");

    receiver.restart().await;
    // The other lead (queued alongside) arrives: the channel works, so silence about the erased
    // one means something.
    pass_seconds_until(&app, "the kept lead", async || {
        receiver.requests().iter().any(|r| r.lead_id() == Some(kept))
    })
    .await;
    all_sent(&app.database).await;
    let requests = receiver.requests();
    assert_eq!(per_lead(&requests, None), HashMap::from([(kept, 1)]), "{requests:#?}");
    for request in &requests {
        let raw = String::from_utf8_lossy(&request.body);
        assert!(!raw.contains("Стерти") && !raw.contains("670000060"), "{raw}");
    }
}

// Reminders

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_leads_get_a_reminder_at_40_hours_and_an_overdue_notice_at_48() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    let app = scanning_app(&receiver, |_| {}).await;
    // Each jump of the clock waits for what is on its way: a send still running when the clock
    // jumps hours ahead would outlive its claim and be made again.
    let overdue = submit_to(&app, "Прострочена", &phone(91)).await;
    all_sent(&app.database).await;
    app.clock.advance_hours(8);
    let nearing = submit_to(&app, "Майже", &phone(90)).await;
    let reached = submit_to(&app, "Додзвонилися", &phone(92)).await;
    app.database.execute(&format!("UPDATE \"CRN\" SET status = 'interested' WHERE id = {reached}")).await;
    all_sent(&app.database).await;
    app.clock.advance_hours(41);
    let fresh = submit_to(&app, "Свіжа", &phone(93)).await;

    let event = |r: &Received| r.json()["event"].as_str().unwrap_or("").to_owned();
    receiver
        .wait_for("the reminder and the overdue notice", Duration::from_secs(10), |r| {
            r.iter().any(|r| r.lead_id() == Some(nearing) && event(r) == "lead.reminder")
                && r.iter().any(|r| r.lead_id() == Some(overdue) && event(r) == "lead.overdue")
        })
        .await;
    // Another scan or two must not repeat them.
    two_more_scans(&app).await;
    all_sent(&app.database).await;
    let mut seen: HashMap<(i64, String), usize> = HashMap::new();
    for request in receiver.requests() {
        *seen.entry((request.lead_id().unwrap(), event(&request))).or_default() += 1;
    }
    let expected = HashMap::from([
        ((nearing, "lead.new".to_owned()), 1),
        ((overdue, "lead.new".to_owned()), 1),
        ((reached, "lead.new".to_owned()), 1),
        ((fresh, "lead.new".to_owned()), 1),
        ((nearing, "lead.reminder".to_owned()), 1),
        ((overdue, "lead.overdue".to_owned()), 1),
        // Nobody called them within 24 hours (ZAYAVKA_ESCALATE_AFTER_HOURS): the admins are told once.
        ((nearing, "lead.escalated".to_owned()), 1),
        ((overdue, "lead.escalated".to_owned()), 1),
    ]);
    assert_eq!(seen, expected);
    let reminder = receiver.requests().into_iter().find(|r| event(r) == "lead.reminder").unwrap();
    assert_eq!(reminder.header("idempotency-key"), format!("zayavka-lead-{nearing}-reminder"));
    assert!(
        reminder.json()["text"].as_str().unwrap().starts_with(&format!("Нагадування: заявка №{nearing}"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reminder_comes_when_the_setting_says_and_0_turns_both_notices_off() {
    let event = |r: &Received| r.json()["event"].as_str().unwrap_or("").to_owned();
    let early = HttpReceiver::start(Reply::status(200)).await;
    let early_app = scanning_app(&early, |s| s.remind_after_hours = 12).await;
    let silent = HttpReceiver::start(Reply::status(200)).await;
    let silent_app = scanning_app(&silent, |s| {
        s.remind_after_hours = 0;
        s.escalate_after = None;
    })
    .await;

    // Each jump of the clock waits for what is on its way (see the test above).
    let thirteen = submit_to(&early_app, "Тринадцять", &phone(95)).await;
    all_sent(&early_app.database).await;
    early_app.clock.advance_hours(2);
    let eleven = submit_to(&early_app, "Одинадцять", &phone(96)).await;
    all_sent(&early_app.database).await;
    early_app.clock.advance_hours(11);
    let overdue = submit_to(&silent_app, "Прострочена", &phone(98)).await;
    all_sent(&silent_app.database).await;
    silent_app.clock.advance_hours(8);
    let nearing = submit_to(&silent_app, "Майже", &phone(97)).await;
    all_sent(&silent_app.database).await;
    silent_app.clock.advance_hours(41);

    early
        .wait_for("the reminder at 12 hours", Duration::from_secs(10), |r| {
            r.iter().any(|r| r.lead_id() == Some(thirteen) && event(r) == "lead.reminder")
        })
        .await;
    // More checks, and everything they queued sent; with 0 the silent app checks too (for
    // call-backs and failing channels) but queues neither notice.
    two_more_scans(&early_app).await;
    two_more_scans(&silent_app).await;
    all_sent(&early_app.database).await;
    all_sent(&silent_app.database).await;
    let reminded: Vec<i64> = early
        .requests()
        .iter()
        .filter(|r| event(r) == "lead.reminder")
        .filter_map(Received::lead_id)
        .collect();
    assert_eq!(reminded, [thirteen], "the 11-hour-old lead {eleven} is not due yet");
    let mut events: Vec<(Option<i64>, String)> =
        silent.requests().iter().map(|r| (r.lead_id(), event(r))).collect();
    events.sort();
    assert_eq!(
        events,
        [(Some(overdue), "lead.new".to_owned()), (Some(nearing), "lead.new".to_owned())],
        "no reminder, no overdue notice with 0"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_held_up_by_an_outage_is_dropped_once_the_lead_is_closed() {
    a_reminder_held_up_by_an_outage_is_dropped_once("status = 'interested'").await;
}

/// A person who answered and asked for a later call was reached (ADR 0087): the lead stays open,
/// and the reminder that waited says nobody reached them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_held_up_by_an_outage_is_dropped_once_the_person_asked_for_a_later_call() {
    a_reminder_held_up_by_an_outage_is_dropped_once("reached_at = created_at").await;
}

/// A reminder refused by the receiver, then the lead changed by hand (`change`, an `UPDATE`'s
/// `SET`) as a call would have changed it: the reminder's retry drops it.
async fn a_reminder_held_up_by_an_outage_is_dropped_once(change: &str) {
    let receiver = HttpReceiver::start(Reply::status(500)).await;
    let app = scanning_app(&receiver, |_| {}).await;
    let id = submit_to(&app, "Майже", &phone(94)).await;
    wait_until_failed(&app.database, &[id]).await;
    app.clock.advance_hours(41);

    let event = |r: &Received| r.json()["event"].as_str().unwrap_or("").to_owned();
    // The scan queues the reminder; the receiver refuses it.
    pass_seconds_until(&app, "refused reminder", async || {
        receiver.requests().iter().any(|r| event(r) == "lead.reminder" && r.status == 500)
    })
    .await;
    // Meanwhile an operator reaches the person; then the receiver is back.
    app.database.execute(&format!("UPDATE \"CRN\" SET {change} WHERE id = {id}")).await;
    receiver.set_default(Reply::status(200));
    pass_seconds_until(&app, "new-lead notification", async || {
        receiver.requests().iter().any(|r| event(r) == "lead.new" && r.status == 200)
    })
    .await;
    // The reminder's retry finds the person reached and drops it.
    pass_seconds_until(&app, "empty queue", async || {
        let rows = outbox(&app.database).await;
        rows.iter().all(|r| r.sent && !r.locked)
    })
    .await;
    let requests = receiver.requests();
    let reminders_delivered =
        requests.iter().filter(|r| event(r) == "lead.reminder" && r.status == 200).count();
    assert_eq!(reminders_delivered, 0, "{requests:#?}");
}

// A channel that keeps failing is in plain sight

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_that_keeps_failing_shows_in_the_inbox_and_the_metrics_until_it_delivers() {
    let receiver = HttpReceiver::start(Reply::status(401)).await;
    let app = app_with(|s| s.notify.webhook = webhook(&receiver)).await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    let role = zayavka::team::Role::from_name("admin");
    common::add_account(&app.state.store, "op@example.org", hash, role).await;
    let operator = signed_in(&app, "op@example.org").await;
    let stats = async || {
        let answer = operator.get(&app, "/admin/api/stats").await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        answer.json()["notifications"].clone()
    };
    assert_eq!(gauge(&app, "zayavka_notifications_waiting", "webhook").await, Some(0));
    assert_eq!(stats().await, serde_json::json!([]));

    let id = submit_to(&app, "Олена", &phone(95)).await;
    wait_until_failed(&app.database, &[id]).await;
    let queues = stats().await;
    assert_eq!(queues.as_array().unwrap().len(), 1, "{queues}");
    let webhook = &queues[0];
    assert_eq!(webhook["channel"], "webhook", "{queues}");
    assert_eq!(webhook["waiting"], 1, "{queues}");
    assert_eq!(webhook["failing"], 1, "{queues}");
    assert!(webhook["last_error"].as_str().unwrap().contains("401"), "{queues}");
    assert!(webhook["oldest_at"].as_str().unwrap().parse::<jiff::Timestamp>().is_ok(), "{queues}");
    assert_eq!(gauge(&app, "zayavka_notifications_waiting", "webhook").await, Some(1));
    assert!(gauge(&app, "zayavka_notifications_oldest_waiting_seconds", "webhook").await.is_some());

    receiver.set_default(Reply::status(200));
    // The retry comes 5–6 s after the failure.
    pass(&app, SignedDuration::from_secs(6));
    receiver
        .wait_for("the lead delivered", Duration::from_secs(10), |r| r.iter().any(|r| r.status == 200))
        .await;
    // The row is marked sent just after the receiver answered.
    let deadline = Instant::now() + Duration::from_secs(5);
    while stats().await != serde_json::json!([]) {
        assert!(Instant::now() < deadline, "still shown after delivery: {}", stats().await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(gauge(&app, "zayavka_notifications_waiting", "webhook").await, Some(0));
    assert_eq!(gauge(&app, "zayavka_notifications_oldest_waiting_seconds", "webhook").await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_wait_for_the_team_s_working_hours_and_new_leads_do_not() {
    let event = |r: &Received| r.json()["event"].as_str().unwrap_or("").to_owned();
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    // The team starts work in two hours: a lead sent 41 hours ago is due a reminder, but waits.
    let kyiv = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::get("Europe/Kyiv").unwrap());
    let at = |h: i64| (kyiv.clone() + SignedDuration::from_hours(h)).strftime("%H:%M").to_string();
    let working_hours = WorkingHours::parse(&format!("{}-{}", at(43), at(44)));
    let app = scanning_app(&receiver, |s| s.working_hours = working_hours).await;
    let id = submit_to(&app, "Майже", &phone(99)).await;
    receiver.wait_for("the new lead, at once", Duration::from_secs(10), |r| !r.is_empty()).await;
    all_sent(&app.database).await;
    app.clock.advance_hours(41);
    two_more_scans(&app).await;
    all_sent(&app.database).await;
    let events: Vec<String> = receiver.requests().iter().map(event).collect();
    assert_eq!(events, ["lead.new"], "told of the new lead at once, reminded only in working hours");

    app.clock.advance_hours(2);
    receiver
        .wait_for("the reminder within working hours", Duration::from_secs(10), |r| {
            r.iter().any(|r| r.lead_id() == Some(id) && event(r) == "lead.reminder")
        })
        .await;
}

// The real binary, for what is about the process: a crash, two instances, sends that hang in
// real time, SMTP on the wire.

/// Submits a lead through `POST /rest/v1/CRN` as the site does; the stored lead's id.
async fn submit(port: u16, name: &str, phone: &str) -> i64 {
    let body = serde_json::json!({"name": name, "phone": phone, "confirmation": "Так", "comment": null});
    let (status, answer) = http(port, "POST", "/rest/v1/CRN", &body.to_string()).await.unwrap();
    assert_eq!(status, 201, "{answer}");
    let rows: serde_json::Value = serde_json::from_str(&answer).unwrap();
    rows[0]["id"].as_i64().unwrap_or_else(|| panic!("no id in {answer}"))
}

async fn start(database_url: &str, env: &[(&str, String)]) -> Server {
    let mut pairs: Vec<(&str, &str)> = vec![("ZAYAVKA_PUBLIC_URL", PUBLIC_URL)];
    pairs.extend(env.iter().map(|(k, v)| (*k, v.as_str())));
    Server::start_with(database_url, &pairs).await
}

fn telegram_env(api: &HttpReceiver) -> Vec<(&'static str, String)> {
    vec![
        ("ZAYAVKA_TELEGRAM_BOT_TOKEN", BOT_TOKEN.to_owned()),
        ("ZAYAVKA_TELEGRAM_CHAT_ID", CHAT_ID.to_owned()),
        ("ZAYAVKA_TELEGRAM_API_URL", api.url("")),
    ]
}

fn webhook_env(receiver: &HttpReceiver) -> Vec<(&'static str, String)> {
    vec![
        ("ZAYAVKA_WEBHOOK_URL", receiver.url("/hooks/zayavka")),
        ("ZAYAVKA_WEBHOOK_SECRET", SECRET.to_owned()),
    ]
}

/// `zayavka_notifications_sent_total{channel="…"}` from `/metrics`.
async fn sent_metric(server: &Server, channel: &str) -> u64 {
    let (status, text) = http(server.port, "GET", "/metrics", "").await.unwrap();
    assert_eq!(status, 200);
    let label = format!("channel=\"{channel}\"");
    text.lines()
        .filter(|l| l.starts_with("zayavka_notifications_sent_total") && l.contains(&label))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

// The real binary: the test is about a process killed and started again (its retries after the
// restart come on its own clock, 5–6 s on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channels_down_across_a_server_crash_still_get_every_lead_once() {
    let mut telegram = HttpReceiver::start(Reply::telegram_ok()).await;
    let mut webhook = HttpReceiver::start(Reply::status(200)).await;
    let mut sink = SmtpSink::start().await;
    telegram.stop().await;
    webhook.stop().await;
    sink.stop().await;
    let database = TestDatabase::new().await;
    let mut env = telegram_env(&telegram);
    env.extend(webhook_env(&webhook));
    env.push(("ZAYAVKA_SMTP_URL", sink.url()));
    env.push(("ZAYAVKA_NOTIFY_EMAIL_TO", "ops@example.org".to_owned()));
    let mut server = start(&database.url, &env).await;

    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(submit(server.port, &format!("Лід {n}"), &phone(30 + n)).await);
    }
    // Each channel has met its closed port once per lead, and waits for its retry (5 s on).
    let rows = wait_until_failed(&database, &ids).await;
    let mut per_channel: HashMap<&str, usize> = HashMap::new();
    for row in &rows {
        *per_channel.entry(row.channel.as_str()).or_default() += 1;
    }
    let expected = HashMap::from([("telegram", 3), ("webhook", 3), ("email", 3)]);
    assert_eq!(per_channel, expected, "one row per lead and channel: {rows:#?}");

    server.signal("KILL");
    let status = server.child.wait().await.unwrap();
    assert!(!status.success(), "killed: {status:?}");
    telegram.restart().await;
    webhook.restart().await;
    sink.restart().await;
    assert!(telegram.requests().is_empty() && webhook.requests().is_empty() && sink.mails().is_empty());

    let restarted = Instant::now();
    let _server = start(&database.url, &env).await;
    let subject = |id: i64| format!("Нова заявка №{id}");
    let mail_about =
        |mails: &[Mail], id: i64| mails.iter().filter(|m| m.header("subject") == Some(subject(id))).count();
    let limit = Duration::from_secs(20);
    webhook
        .wait_for("every lead on the webhook", limit, |r| {
            let delivered = per_lead(r, Some(200));
            ids.iter().all(|id| delivered.contains_key(id))
        })
        .await;
    telegram
        .wait_for("every lead on Telegram", limit, |r| {
            ids.iter().all(|&id| !telegram_about(r, id).is_empty())
        })
        .await;
    sink.wait_for("every lead by e-mail", limit, |m| ids.iter().all(|&id| mail_about(m, id) > 0)).await;
    eprintln!("every lead on every channel {:?} after the restart", restarted.elapsed());
    all_sent(&database).await;

    let requests = webhook.requests();
    let counts = per_lead(&requests, None);
    let messages = telegram.requests();
    let mails = sink.mails();
    assert_eq!(counts.len(), 3, "{counts:?}");
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(mails.len(), 3, "{mails:#?}");
    for &id in &ids {
        assert_eq!(counts.get(&id), Some(&1), "lead {id} exactly once on the webhook: {counts:?}");
        assert_eq!(telegram_about(&messages, id).len(), 1, "lead {id} on Telegram: {messages:#?}");
        assert_eq!(mail_about(&mails, id), 1, "lead {id} by e-mail: {mails:#?}");
    }
    for request in &requests {
        assert!(request.signed_with(SECRET));
        assert_eq!(
            request.header("idempotency-key"),
            format!("zayavka-lead-{}-new", request.lead_id().unwrap())
        );
    }
    let rows = outbox(&database).await;
    assert!(rows.iter().all(|r| r.sent), "{rows:#?}");
}

// The real binary: the test is about the process answering on its socket while a send hangs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_hangs_does_not_slow_the_submit() {
    let receiver = HttpReceiver::start(Reply::status(200).after(Duration::from_secs(10))).await;
    let database = TestDatabase::new().await;
    let server = start(&database.url, &webhook_env(&receiver)).await;

    let began = Instant::now();
    let first = submit(server.port, "Перший", &phone(50)).await;
    let took = began.elapsed();
    assert!(took < Duration::from_secs(1), "the first submit took {took:?}");
    // The notification is now held by the receiver, and another submit comes in meanwhile.
    receiver
        .wait_for("the first call to hang", Duration::from_secs(5), |r| {
            r.iter().any(|r| r.lead_id() == Some(first))
        })
        .await;
    let began = Instant::now();
    submit(server.port, "Другий", &phone(51)).await;
    let took = began.elapsed();
    assert!(took < Duration::from_secs(1), "a submit while a send hangs took {took:?}");
    let began = Instant::now();
    assert_eq!(http(server.port, "GET", "/readyz", "").await.unwrap().0, 200);
    assert!(began.elapsed() < Duration::from_secs(1));
    // Still hanging: the check above ran while the send was in progress.
    assert!(receiver.requests()[0].at.elapsed() < Duration::from_secs(10));
}

// The real binaries: the test is about two processes sharing one queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_send_each_lead_exactly_once() {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    let database = TestDatabase::postgres().await;
    let env = webhook_env(&receiver);
    let (a, b) = tokio::join!(start(&database.url, &env), start(&database.url, &env));

    // Ten clients at once, each alternating between the instances, so that both are woken and
    // claim at the same moments.
    let mut clients = Vec::new();
    for client in 0..10u32 {
        let ports = [a.port, b.port];
        clients.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for n in 0..4u32 {
                let lead = client * 4 + n;
                ids.push(submit(ports[lead as usize % 2], &format!("Лід {lead}"), &phone(100 + lead)).await);
            }
            ids
        }));
    }
    let mut ids = Vec::new();
    for client in clients {
        ids.extend(client.await.unwrap());
    }
    assert_eq!(ids.len(), 40);

    receiver
        .wait_for("all 40 leads", Duration::from_secs(20), |r| {
            let delivered = per_lead(r, Some(200));
            ids.iter().all(|id| delivered.contains_key(id))
        })
        .await;
    all_sent(&database).await;
    let requests = receiver.requests();
    let counts = per_lead(&requests, None);
    for id in &ids {
        assert_eq!(counts.get(id), Some(&1), "lead {id}: {counts:?}");
    }
    assert_eq!(requests.len(), 40, "{counts:?}");
    let (sent_a, sent_b) = (sent_metric(&a, "webhook").await, sent_metric(&b, "webhook").await);
    assert_eq!(sent_a + sent_b, 40, "sent by a: {sent_a}, by b: {sent_b}");
    eprintln!("instance a sent {sent_a}, instance b sent {sent_b}");
}

// The real binary: the test is about a send that hangs in real time beside the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_send_does_not_hold_back_the_next_lead() {
    next_lead_is_called_beside_hanging_sends(1).await;
}

// The real binary: the test is about sends that hang in real time beside the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_that_hang_in_most_slots_hold_back_the_next_lead_only_briefly() {
    // Ten of the sender's sixteen slots held for ten seconds: fewer than half are free, so its
    // next turn waits for one to finish, but not longer than a moment when a new lead came.
    next_lead_is_called_beside_hanging_sends(10).await;
}

/// Sends `hanging` leads to a webhook that answers each of their calls only after ten seconds,
/// and, once those calls hang, one lead more, whose call must come within three seconds.
async fn next_lead_is_called_beside_hanging_sends(hanging: u32) {
    let receiver = HttpReceiver::start(Reply::status(200)).await;
    for _ in 0..hanging {
        receiver.push_reply(Reply::status(200).after(Duration::from_secs(10)));
    }
    let database = TestDatabase::new().await;
    let server = start(&database.url, &webhook_env(&receiver)).await;

    let mut held = Vec::new();
    for n in 0..hanging {
        held.push(submit(server.port, &format!("Лід {n}"), &phone(200 + n)).await);
    }
    receiver
        .wait_for("the calls to hang", Duration::from_secs(5), |r| {
            held.iter().all(|id| r.iter().any(|r| r.lead_id() == Some(*id)))
        })
        .await;
    let submitted = Instant::now();
    let next = submit(server.port, "Наступний", &phone(250)).await;
    receiver
        .wait_for("the next lead while calls hang", Duration::from_secs(3), |r| {
            r.iter().any(|r| r.lead_id() == Some(next))
        })
        .await;
    eprintln!("the next lead's call came {:?} after its submit", submitted.elapsed());
}

// The real binary: the test is about SMTP on the wire.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smtp_uses_starttls_when_the_server_offers_it() {
    let sink = SmtpSink::start_offering_starttls().await;
    let database = TestDatabase::new().await;
    let env = [("ZAYAVKA_SMTP_URL", sink.url()), ("ZAYAVKA_NOTIFY_EMAIL_TO", "ops@example.org".to_owned())];
    let server = start(&database.url, &env).await;

    submit(server.port, "Оксана", &phone(82)).await;
    // Wait until the client has gone past EHLO: it either asks for STARTTLS or sends the mail.
    let deadline = Instant::now() + Duration::from_secs(10);
    let commands = loop {
        let commands = sink.commands();
        let verb = |c: &String| c.to_ascii_uppercase().starts_with("STARTTLS") || c.starts_with("MAIL");
        if commands.iter().any(verb) {
            break commands;
        }
        assert!(Instant::now() < deadline, "the client did not get past EHLO: {commands:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        commands.iter().any(|c| c.eq_ignore_ascii_case("STARTTLS")),
        "STARTTLS was offered and not used: {commands:?}"
    );
}

//! The first start: while no operator account exists, `zayavka serve` logs a one-time setup link
//! (and the CLI command); the link's page creates the first operator and signs them in. A used,
//! expired or unknown token, a client that is neither this machine nor on HTTPS, and any setup
//! once an operator exists answer 404. Runs on SQLite, and on PostgreSQL with
//! ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{KEY, TestApp, TestDatabase, request, serve_on_any_port, test_app, test_app_with, zayavka};
use serde_json::json;
use zayavka::auth;

const EMAIL: &str = "first@example.org";
const PASSWORD: &str = "a long enough secret";

/// `zayavka serve` on `database`, logging at the level where the setup link shows.
async fn serve(database: &TestDatabase) -> common::Serving {
    let mut command = zayavka();
    command
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .env("ZAYAVKA_ANON_KEY", KEY)
        .env("ZAYAVKA_LOG", "warn,zayavka::serve=info");
    serve_on_any_port(command).await
}

/// Starts `zayavka serve` on `database`, waits until it answers, and stops it; its log.
async fn log_of_a_start(database: &TestDatabase) -> String {
    let serving = serve(database).await;
    // The link is logged before the server takes its first request.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !matches!(common::http(serving.port, "GET", "/readyz", "").await, Ok((200, _))) {
        assert!(tokio::time::Instant::now() < deadline, "the server did not become ready");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    serving.kill_and_read_log().await
}

/// The setup link in a log, if there is one.
fn setup_link(log: &str) -> Option<String> {
    let line = log.lines().find(|line| line.contains("/admin/setup?token="))?;
    let start = line.find("http://")?;
    line[start..].split(|c: char| c.is_whitespace() || c == '"').next().map(str::to_owned)
}

fn setup_body(token: &str, email: &str, password: &str) -> String {
    json!({ "token": token, "email": email, "password": password }).to_string()
}

#[tokio::test]
async fn the_first_start_logs_a_link_that_creates_the_first_operator_once() {
    let database = TestDatabase::new().await;
    let log = log_of_a_start(&database).await;
    let line = log.lines().find(|line| line.contains("/admin/setup?token=")).expect("a setup line");
    assert!(line.contains("zayavka admin add-user EMAIL"), "{line}");
    assert!(line.contains("INFO"), "{line}");
    let link = setup_link(&log).unwrap();
    let token = link.split("token=").nth(1).unwrap().to_owned();
    assert!(token.len() >= 22, "at least 128 random bits: {token}");

    // The link works on any instance sharing the database: here, one started later.
    let serving = serve(&database).await;
    let port = serving.port;
    let page = format!("/admin/setup?token={token}");
    let (status, _, html) = request(port, "GET", &page, &[], "").await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("<div id=\"root\"") || html.contains("id=\"root\""), "the inbox app: {html}");
    let (status, _, _) = request(port, "GET", "/admin/setup?token=not-the-token", &[], "").await;
    assert_eq!(status, 404);

    // The same password rules as `zayavka admin add-user`; a refusal keeps the token.
    let (status, _, answer) =
        request(port, "POST", "/admin/api/setup", &[], &setup_body(&token, EMAIL, "short")).await;
    assert_eq!(status, 400, "{answer}");
    let (status, _, answer) =
        request(port, "POST", "/admin/api/setup", &[], &setup_body(&token, "not an address", PASSWORD)).await;
    assert_eq!(status, 400, "{answer}");

    let (status, cookie, answer) =
        request(port, "POST", "/admin/api/setup", &[], &setup_body(&token, EMAIL, PASSWORD)).await;
    assert_eq!(status, 200, "{answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["email"], EMAIL);
    assert!(answer["csrf_token"].as_str().is_some_and(|csrf| !csrf.is_empty()));
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let (status, _, session) = request(port, "GET", "/admin/api/session", &[("cookie", &cookie)], "").await;
    assert_eq!(status, 200, "signed in: {session}");

    // Once: the token, the page and any other setup answer 404 now.
    let (status, _, answer) =
        request(port, "POST", "/admin/api/setup", &[], &setup_body(&token, "second@example.org", PASSWORD))
            .await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&answer).unwrap()["error"], "Не знайдено.");
    let (status, _, _) = request(port, "GET", &page, &[], "").await;
    assert_eq!(status, 404);

    // The operator signs in as any other.
    common::sign_in(port, EMAIL, PASSWORD).await;
    serving.kill_and_read_log().await;

    // With an operator, the start offers no link.
    let log = log_of_a_start(&database).await;
    assert!(log.contains("serving on"), "{log}");
    assert!(!log.contains("setup?token="), "{log}");
}

#[tokio::test]
async fn no_link_once_an_operator_was_added_with_the_cli() {
    let database = TestDatabase::new().await;
    common::add_operator(&database.url, EMAIL, PASSWORD).await;
    let log = log_of_a_start(&database).await;
    assert!(log.contains("serving on"), "{log}");
    assert!(!log.contains("setup?token="), "{log}");
}

/// A token as `zayavka serve` offers it, straight through the store.
async fn offered_token(app: &TestApp) -> String {
    let token = auth::new_token();
    let expires_at = jiff::Timestamp::now() + auth::SETUP_LINK_LIFETIME;
    assert!(app.state.store.offer_setup(auth::token_hash(&token), expires_at).await.unwrap());
    token
}

async fn setup_via(app: &TestApp, token: &str, headers: &[(&str, &str)]) -> common::Answer {
    let mut request = Request::post("/admin/api/setup").header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    app.call(request.body(Body::from(setup_body(token, EMAIL, PASSWORD))).unwrap()).await
}

async fn page_via(app: &TestApp, token: &str, headers: &[(&str, &str)]) -> StatusCode {
    let mut request = Request::get(format!("/admin/setup?token={token}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    app.call(request.body(Body::empty()).unwrap()).await.status
}

#[tokio::test]
async fn an_expired_token_is_not_found() {
    let app = test_app().await;
    let token = offered_token(&app).await;
    assert_eq!(page_via(&app, &token, &[]).await, StatusCode::OK);
    let an_hour_ago = jiff::Timestamp::now() - jiff::SignedDuration::from_mins(61);
    let at = if app.database.url.starts_with("postgres") {
        format!("'{an_hour_ago}'::timestamptz")
    } else {
        format!("'{an_hour_ago:.6}'")
    };
    app.database.execute(&format!("UPDATE setup_tokens SET expires_at = {at}")).await;
    assert_eq!(page_via(&app, &token, &[]).await, StatusCode::NOT_FOUND);
    let answer = setup_via(&app, &token, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.text());
    assert_eq!(answer.json()["error"], "Не знайдено.");
    assert!(app.state.store.operator(EMAIL.into()).await.unwrap().is_none());
}

/// The first account and its entry in the audit trail are written together (ADR 0088): a setup
/// whose entry cannot be written creates no account, and the link still works.
#[tokio::test]
async fn a_setup_whose_audit_entry_cannot_be_written_creates_no_account() {
    let app = test_app().await;
    let token = offered_token(&app).await;
    app.database.refuse_audit_entries(true).await;
    let answer = setup_via(&app, &token, &[]).await;
    app.database.refuse_audit_entries(false).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{}", answer.text());
    assert!(app.state.store.operator(EMAIL.into()).await.unwrap().is_none());
    assert_eq!(page_via(&app, &token, &[]).await, StatusCode::OK, "the link was not used up");

    let answer = setup_via(&app, &token, &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let trail = app.state.store.audit_page(None, 10).await.unwrap();
    let entries: Vec<_> = trail.iter().map(|e| (e.actor.as_str(), e.action.as_str())).collect();
    assert_eq!(entries, [(EMAIL, "signed_in"), (EMAIL, "added_operator")], "newest first, each once");
}

#[tokio::test]
async fn a_remote_client_over_plain_http_is_not_offered_the_setup() {
    let app =
        test_app_with(|settings| settings.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    let token = offered_token(&app).await;
    let remote = [("x-forwarded-for", "203.0.113.7")];
    assert_eq!(page_via(&app, &token, &remote).await, StatusCode::NOT_FOUND);
    let answer = setup_via(&app, &token, &remote).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.text());
    assert!(app.state.store.operator(EMAIL.into()).await.unwrap().is_none());

    // The same client over HTTPS (the proxy says so) may.
    let over_https = [("x-forwarded-for", "203.0.113.7"), ("x-forwarded-proto", "https")];
    assert_eq!(page_via(&app, &token, &over_https).await, StatusCode::OK);
    let answer = setup_via(&app, &token, &over_https).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert!(answer.header("set-cookie").starts_with("__Host-zayavka_session="));
}

#[tokio::test]
async fn no_setup_once_an_operator_exists_even_with_a_good_token() {
    let app = test_app().await;
    let token = offered_token(&app).await;
    let hash = auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, "cli@example.org", hash, None).await;
    assert_eq!(page_via(&app, &token, &[]).await, StatusCode::NOT_FOUND);
    let answer = setup_via(&app, &token, &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.text());
    assert!(app.state.store.operator(EMAIL.into()).await.unwrap().is_none());
    // And no new link is offered.
    assert!(!app.state.store.offer_setup(auth::token_hash("another"), jiff::Timestamp::now()).await.unwrap());
}

#[tokio::test]
async fn a_page_without_a_token_is_not_found() {
    let app = test_app().await;
    offered_token(&app).await;
    let answer = app.call(Request::get("/admin/setup").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

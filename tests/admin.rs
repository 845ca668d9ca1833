//! The operators' inbox API (docs/admin-api.md): signing in, CSRF, the lead list and search, the
//! call log and statuses, figures, export, erasure and retention. Runs on SQLite, and on
//! PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{Answer, TestApp, test_app, test_app_with};
use serde_json::{Value, json};
use zayavka::auth;

const EMAIL: &str = "operator@example.org";
const PASSWORD: &str = "a long enough secret";

/// A signed-in operator: the session cookie and the CSRF token.
struct Operator {
    cookie: String,
    csrf: String,
}

async fn add_operator(app: &TestApp) {
    let hash = auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, EMAIL, hash, None).await;
}

async fn login(app: &TestApp, email: &str, password: &str) -> Answer {
    let body = json!({ "email": email, "password": password }).to_string();
    app.call(
        Request::post("/admin/api/login")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

async fn signed_in(app: &TestApp) -> Operator {
    add_operator(app).await;
    let answer = login(app, EMAIL, PASSWORD).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let cookie = answer.header("set-cookie").split(';').next().unwrap().to_owned();
    let csrf = answer.json()["csrf_token"].as_str().unwrap().to_owned();
    Operator { cookie, csrf }
}

impl Operator {
    async fn get(&self, app: &TestApp, path: &str) -> Answer {
        app.call(Request::get(path).header("cookie", &self.cookie).body(Body::empty()).unwrap()).await
    }

    async fn post(&self, app: &TestApp, path: &str, body: Value) -> Answer {
        app.call(
            Request::post(path)
                .header("cookie", &self.cookie)
                .header("x-csrf-token", &self.csrf)
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap(),
        )
        .await
    }

    async fn list(&self, app: &TestApp, query: &str) -> Vec<i64> {
        let answer = self.get(app, &format!("/admin/api/leads?{query}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["leads"].as_array().unwrap().iter().map(|l| l["id"].as_i64().unwrap()).collect()
    }
}

/// Stores a lead through the public API; its id.
async fn submit(app: &TestApp, name: &str, phone: &str) -> i64 {
    let body = json!({ "name": name, "phone": phone, "confirmation": "Так", "comment": "коментар" });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

/// Notifications not yet sent, on every channel.
async fn waiting_notifications(app: &TestApp) -> i64 {
    app.state.store.outbox_queues().await.unwrap().iter().map(|queue| queue.waiting).sum()
}

#[tokio::test]
async fn signing_in_and_out() {
    let app = test_app().await;
    // No account yet: the same answer as a wrong password.
    let nobody = login(&app, EMAIL, PASSWORD).await;
    assert_eq!(nobody.status, StatusCode::UNAUTHORIZED);
    add_operator(&app).await;

    let wrong = login(&app, EMAIL, "not the password").await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong.json()["error"], "Неправильна електронна пошта або пароль.");
    assert_eq!(wrong.header("set-cookie"), "");

    // The e-mail as typed on a phone: capitals and a trailing space.
    let right = login(&app, " Operator@Example.org ", PASSWORD).await;
    assert_eq!(right.status, StatusCode::OK, "{}", right.text());
    let cookie = right.header("set-cookie").to_owned();
    for attribute in ["zayavka_session=", "HttpOnly", "SameSite=Strict", "Path=/admin", "Max-Age=604800"] {
        assert!(cookie.contains(attribute), "{attribute} missing in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: no Secure flag ({cookie})");
    let operator = Operator {
        cookie: cookie.split(';').next().unwrap().to_owned(),
        csrf: right.json()["csrf_token"].as_str().unwrap().to_owned(),
    };
    let session = operator.get(&app, "/admin/api/session").await;
    assert_eq!(session.status, StatusCode::OK);
    assert_eq!(session.json()["email"], EMAIL);
    assert_eq!(session.json()["csrf_token"], operator.csrf.as_str());

    let logout = operator.post(&app, "/admin/api/logout", json!({})).await;
    assert_eq!(logout.status, StatusCode::NO_CONTENT);
    assert!(logout.header("set-cookie").contains("Max-Age=0"));
    assert_eq!(operator.get(&app, "/admin/api/session").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_database_keeps_only_a_hash_of_the_session() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let token = operator.cookie.trim_start_matches("zayavka_session=");
    assert!(app.state.store.session(token.to_owned()).await.unwrap().is_none());
    assert!(app.state.store.session(auth::token_hash(token)).await.unwrap().is_some());
}

#[tokio::test]
async fn logins_are_rate_limited() {
    let app = test_app().await;
    add_operator(&app).await;
    for _ in 0..5 {
        assert_eq!(login(&app, EMAIL, "guess").await.status, StatusCode::UNAUTHORIZED);
    }
    let limited = login(&app, EMAIL, PASSWORD).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.header("retry-after").parse::<u64>().unwrap() >= 1);
    assert!(limited.json()["error"].as_str().unwrap().contains("Забагато спроб"));
    // A try comes back each minute: a minute later the owner signs in.
    app.clock.advance_minutes(1);
    assert_eq!(login(&app, EMAIL, PASSWORD).await.status, StatusCode::OK);
}

#[tokio::test]
async fn every_api_path_needs_a_session_and_is_never_cached() {
    let app = test_app().await;
    let id = submit(&app, "Олена", "067 123 45 67").await;
    for path in [
        "/admin/api/session".to_owned(),
        "/admin/api/leads".to_owned(),
        format!("/admin/api/leads/{id}"),
        "/admin/api/stats".to_owned(),
        "/admin/api/export.csv".to_owned(),
        "/admin/api/export.xlsx".to_owned(),
    ] {
        let answer = app.get(&path).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(answer.header("cache-control"), "no-store", "{path}");
        assert!(answer.json()["error"].is_string(), "{path}");
        assert!(!answer.text().contains("Олена"));
    }
    let forged = app
        .call(
            Request::post("/admin/api/erase")
                .header("content-type", "application/json")
                .body(Body::from(r#"{"phone":"0671234567"}"#))
                .unwrap(),
        )
        .await;
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.stored().await.len(), 1);
}

#[tokio::test]
async fn changes_need_the_csrf_token_and_this_origin() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let id = submit(&app, "Олена", "067 123 45 67").await;
    let path = format!("/admin/api/leads/{id}/attempts");
    let body = json!({ "outcome": "no_answer", "note": "" }).to_string();
    let attempt = |token: Option<&str>, origin: Option<&str>| {
        let mut request = Request::post(path.as_str())
            .header("cookie", &operator.cookie)
            .header("host", "inbox.example.org")
            .header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("x-csrf-token", token);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.body(Body::from(body.clone())).unwrap()
    };
    assert_eq!(app.call(attempt(None, None)).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.call(attempt(Some("guessed"), None)).await.status, StatusCode::FORBIDDEN);
    let other_site = app.call(attempt(Some(&operator.csrf), Some("https://evil.example"))).await;
    assert_eq!(other_site.status, StatusCode::FORBIDDEN);
    // This site is served over plain HTTP: its HTTPS origin is another one.
    let other_scheme = app.call(attempt(Some(&operator.csrf), Some("https://inbox.example.org"))).await;
    assert_eq!(other_scheme.status, StatusCode::FORBIDDEN);
    assert_eq!(app.state.store.attempts(id).await.unwrap().len(), 0, "nothing was logged");

    let same_site = app.call(attempt(Some(&operator.csrf), Some("http://inbox.example.org"))).await;
    assert_eq!(same_site.status, StatusCode::CREATED, "{}", same_site.text());
}

/// A login through the trusted proxy (in-process requests come from 127.0.0.1) from `client`,
/// with the forwarded scheme `proto` and the extra `headers`.
async fn login_via_proxy(
    app: &TestApp,
    client: &str,
    proto: &str,
    headers: &[(&str, &str)],
    password: &str,
) -> Answer {
    let mut request = Request::post("/admin/api/login")
        .header("content-type", "application/json")
        .header("host", "inbox.example.org")
        .header("x-forwarded-for", client)
        .header("x-forwarded-proto", proto);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({ "email": EMAIL, "password": password }).to_string();
    app.call(request.body(Body::from(body)).unwrap()).await
}

fn behind_a_proxy(settings: &mut zayavka::config::Settings) {
    settings.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
}

#[tokio::test]
async fn over_https_an_origin_of_plain_http_is_another_site() {
    let app = test_app_with(behind_a_proxy).await;
    add_operator(&app).await;
    let id = submit(&app, "Олена", "067 123 45 67").await;

    let from_http = [("origin", "http://inbox.example.org")];
    let refused = login_via_proxy(&app, "203.0.113.7", "https", &from_http, PASSWORD).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text());
    assert_eq!(refused.header("set-cookie"), "");

    let from_https = [("origin", "https://inbox.example.org")];
    let answer = login_via_proxy(&app, "203.0.113.7", "https", &from_https, PASSWORD).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let cookie = answer.header("set-cookie").split(';').next().unwrap().to_owned();
    let csrf = answer.json()["csrf_token"].as_str().unwrap().to_owned();
    let attempt = |origin: &str| {
        Request::post(format!("/admin/api/leads/{id}/attempts"))
            .header("cookie", &cookie)
            .header("x-csrf-token", &csrf)
            .header("host", "inbox.example.org")
            .header("origin", origin)
            .header("x-forwarded-for", "203.0.113.7")
            .header("x-forwarded-proto", "https")
            .header("content-type", "application/json")
            .body(Body::from(r#"{"outcome":"no_answer"}"#))
            .unwrap()
    };
    assert_eq!(app.call(attempt("http://inbox.example.org")).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.state.store.attempts(id).await.unwrap().len(), 0, "nothing was logged");
    assert_eq!(app.call(attempt("https://inbox.example.org")).await.status, StatusCode::CREATED);
}

#[tokio::test]
async fn the_public_url_decides_the_scheme_when_it_is_set() {
    // No proxy says HTTPS, but the operators' address is an https:// one.
    let app = test_app_with(|s| s.public_url = "https://inbox.example.org".into()).await;
    add_operator(&app).await;
    let login = |origin: &'static str| {
        let body = json!({ "email": EMAIL, "password": PASSWORD }).to_string();
        Request::post("/admin/api/login")
            .header("content-type", "application/json")
            .header("host", "inbox.example.org")
            .header("origin", origin)
            .body(Body::from(body))
            .unwrap()
    };
    assert_eq!(app.call(login("http://inbox.example.org")).await.status, StatusCode::FORBIDDEN);
    let answer = app.call(login("https://inbox.example.org")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert!(
        answer.header("set-cookie").starts_with("__Host-zayavka_session="),
        "{}",
        answer.header("set-cookie")
    );
}

#[tokio::test]
async fn newest_first_and_search_by_phone_in_any_format_or_by_name() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let olena = submit(&app, "Олена Петрівна", "067 123 45 67").await;
    let ivan = submit(&app, "Іван", "+380 50 765 43 21").await;
    let percent = submit(&app, "100% Тест_", "+48 601 987 654").await;
    // The Ukrainian apostrophe (U+02BC), as typed on a phone (U+2019) or as ASCII: all one.
    let darya = submit(&app, "Дарʼя О’Ніл", "093 222 33 44").await;

    assert_eq!(operator.list(&app, "").await, [darya, percent, ivan, olena]);
    for typed in ["дар'я", "ДАРʼЯ", "о'ніл", "Дар’я О`Ніл"] {
        assert_eq!(operator.list(&app, &format!("q={}", url_encode(typed))).await, [darya], "{typed}");
    }
    for typed in
        ["067 123 45 67", "0671234567", "+380671234567", "380671234567", "(067) 123-45-67", "067123", "45 67"]
    {
        let q: String = url_encode(typed);
        assert_eq!(operator.list(&app, &format!("q={q}")).await, [olena], "{typed}");
    }
    assert_eq!(operator.list(&app, &format!("q={}", url_encode("олена"))).await, [olena]);
    assert_eq!(operator.list(&app, &format!("q={}", url_encode("ІВАН"))).await, [ivan]);
    assert_eq!(operator.list(&app, &format!("q={}", url_encode("петрів"))).await, [olena]);
    // LIKE's wildcards match themselves.
    assert_eq!(operator.list(&app, &format!("q={}", url_encode("0%"))).await, [percent]);
    assert_eq!(operator.list(&app, &format!("q={}", url_encode("_"))).await, [percent]);
    assert!(operator.list(&app, "q=nobody").await.is_empty());

    // Pages.
    let first = operator.get(&app, "/admin/api/leads?limit=2").await.json();
    assert_eq!(first["leads"].as_array().unwrap().len(), 2);
    let next = first["next_before_id"].as_i64().unwrap();
    assert_eq!(operator.list(&app, &format!("limit=2&before_id={next}")).await, [ivan, olena]);
    assert_eq!(operator.get(&app, "/admin/api/leads?filter=later").await.status, StatusCode::BAD_REQUEST);
    // Longer than any name: refused with the reason, not searched a term per three letters.
    let long = operator.get(&app, &format!("/admin/api/leads?q={}", url_encode(&"я".repeat(101)))).await;
    assert_eq!(long.status, StatusCode::BAD_REQUEST);
    assert!(long.json()["error"].as_str().unwrap().contains("задовгий"), "{}", long.text());
    assert_eq!(operator.list(&app, &format!("q={}", url_encode(&"я".repeat(100)))).await, [0i64; 0]);
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn each_call_moves_the_status_on_and_the_log_keeps_it() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let id = submit(&app, "Олена", "067 123 45 67").await;
    let fresh = operator.get(&app, &format!("/admin/api/leads/{id}")).await.json();
    assert_eq!(fresh["lead"]["status"], "new");
    assert_eq!(fresh["lead"]["open"], true);
    assert!(fresh["lead"]["policy_version"].as_str().unwrap().len() >= 16, "consent evidence kept");

    let path = format!("/admin/api/leads/{id}/attempts");
    for (n, expected) in [(1, "attempt_1"), (2, "attempt_2"), (3, "attempt_3"), (4, "attempt_3")] {
        let answer = operator
            .post(&app, &path, json!({ "outcome": "no_answer", "note": format!("дзвінок {n}") }))
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
        assert_eq!(answer.json()["lead"]["status"], expected);
    }
    let reached =
        operator.post(&app, &path, json!({ "outcome": "interested", "note": "<b>так</b>" })).await.json();
    assert_eq!(reached["lead"]["status"], "interested");
    assert_eq!(reached["lead"]["open"], false);
    assert!(reached["lead"]["reached_at"].is_string());
    let log = reached["attempts"].as_array().unwrap();
    assert_eq!(log.len(), 5);
    assert_eq!(log[0]["note"], "дзвінок 1");
    assert_eq!(log[4]["outcome"], "interested");
    assert_eq!(log[4]["operator"], EMAIL);
    assert_eq!(log[4]["note"], "<b>так</b>", "kept as text; the inbox renders it as text");

    let unknown = operator.post(&app, &path, json!({ "outcome": "maybe" })).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert!(unknown.json()["error"].as_str().unwrap().starts_with("Такого результату дзвінка немає"));
    let none = operator.post(&app, &path, json!({ "note": "без результату" })).await;
    assert_eq!(none.status, StatusCode::BAD_REQUEST);
    assert_eq!(none.json()["error"], "Оберіть результат дзвінка.");
    let long = operator.post(&app, &path, json!({ "outcome": "no_answer", "note": "я".repeat(1001) })).await;
    assert_eq!(long.status, StatusCode::BAD_REQUEST);
    let missing =
        operator.post(&app, "/admin/api/leads/999999/attempts", json!({ "outcome": "no_answer" })).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(operator.get(&app, "/admin/api/leads/999999").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn every_final_outcome_closes_the_lead_and_only_a_reached_person_counts_as_reached() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let outcomes =
        [("interested", true), ("not_interested", true), ("not_eligible", true), ("unreachable", false)];
    for (n, (outcome, reached)) in outcomes.into_iter().enumerate() {
        let id = submit(&app, "Олена", &format!("067 000 00 1{n}")).await;
        let path = format!("/admin/api/leads/{id}/attempts");
        let answer = operator.post(&app, &path, json!({ "outcome": outcome })).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{outcome}: {}", answer.text());
        let lead = &answer.json()["lead"];
        assert_eq!(lead["status"], outcome);
        assert_eq!(lead["open"], false, "{outcome} closes the lead");
        assert_eq!(lead["reached_at"].is_string(), reached, "{outcome}: {lead}");
    }
    assert!(operator.list(&app, "filter=open").await.is_empty());
}

#[tokio::test]
async fn overdue_leads_and_the_figures() {
    let app = test_app().await;
    // Sent five days, 50 hours and 30 hours ago, and now.
    let called_late = submit(&app, "Пізно", "067 000 00 02").await;
    app.clock.advance_hours(24 * 5 - 50);
    let overdue = submit(&app, "Прострочена", "067 000 00 01").await;
    app.clock.advance_hours(50 - 30);
    let called_in_time = submit(&app, "Вчасно", "067 000 00 03").await;
    app.clock.advance_hours(30);
    let operator = signed_in(&app).await;
    let fresh = submit(&app, "Свіжа", "067 000 00 04").await;
    for id in [called_late, called_in_time] {
        let path = format!("/admin/api/leads/{id}/attempts");
        assert_eq!(
            operator.post(&app, &path, json!({ "outcome": "not_eligible" })).await.status,
            StatusCode::CREATED
        );
    }

    assert_eq!(operator.list(&app, "filter=overdue").await, [overdue]);
    assert_eq!(operator.list(&app, "filter=open").await, [fresh, overdue]);
    let list = operator.get(&app, "/admin/api/leads").await.json();
    let view = list["leads"].as_array().unwrap().iter().find(|l| l["id"] == overdue).unwrap().clone();
    let deadline: jiff::Timestamp = view["deadline_at"].as_str().unwrap().parse().unwrap();
    let now: jiff::Timestamp = list["now"].as_str().unwrap().parse().unwrap();
    assert!(deadline < now, "past its deadline");

    let stats = operator.get(&app, "/admin/api/stats").await.json();
    assert_eq!(stats["open"], 2);
    assert_eq!(stats["overdue"], 1);
    // Due: the overdue lead and the two called ones (the fresh one still has time); reached
    // within 48 hours: the one sent 30 hours ago. The late one was reached after five days.
    assert_eq!(stats["reached_in_time"], json!({ "reached": 1, "due": 3 }));
    let days = stats["per_day"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    let total: i64 = days.iter().map(|d| d["count"].as_i64().unwrap()).sum();
    assert_eq!(total, 4);
    assert!(days.last().unwrap()["count"].as_i64().unwrap() >= 1, "today has the fresh lead");
    assert!(days.windows(2).all(|w| w[0]["date"].as_str() < w[1]["date"].as_str()), "oldest first");
}

#[tokio::test]
async fn the_export_is_the_cli_file_with_status_and_consent() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let id = submit(&app, "=Олена", "067 123 45 67").await;
    let answer = operator.get(&app, "/admin/api/export.csv").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("content-type"), "text/csv; charset=utf-8");
    assert!(answer.header("content-disposition").starts_with("attachment; filename=\"zayavky-"));
    // Named by the team's date: half past midnight in Kyiv is still the day before in UTC.
    app.clock.set("2026-11-22T22:30:00Z".parse().unwrap());
    let after_midnight = operator.get(&app, "/admin/api/export.csv").await;
    assert_eq!(
        after_midnight.header("content-disposition"),
        "attachment; filename=\"zayavky-2026-11-23.csv\""
    );
    let text = answer.text();
    assert!(text.starts_with('\u{FEFF}'), "BOM for Excel");
    let mut lines = text.trim_start_matches('\u{FEFF}').lines();
    assert_eq!(
        lines.next().unwrap(),
        "id,created_at,name,phone,confirmation,comment,status,reached_at,policy_version,repeat_of,held,\
         utm_source,utm_medium,utm_campaign,utm_content,utm_term,referrer,first_attempt_at"
    );
    let row = lines.next().unwrap();
    assert!(row.starts_with(&format!("{id},")), "{row}");
    assert!(row.contains(",'=Олена,"), "formula neutralised: {row}");
    assert!(row.contains(",new,,"), "{row}");
    assert!(row.ends_with(&format!("{},,,,,,,,,", app.state.site.policy_version)), "{row}");

    let cli = common::exported_at_the_command_line(&app, zayavka::export::Format::Csv).await;
    assert_eq!(answer.body.as_ref(), cli.as_slice());
}

/// However an export is asked for and however it ends, the trail has it once a chunk can leave: a
/// command-line export cut off after its first chunk (a closed pipe, a full disk) is recorded,
/// with who ran it.
#[tokio::test]
async fn an_export_cut_off_after_its_first_chunk_is_in_the_audit_trail() {
    let app = test_app().await;
    submit(&app, "Олена", "067 123 45 67").await;
    let actor = zayavka::application::Actor { name: "command line (olena)".into(), address: None };
    let format = zayavka::export::Format::Csv;
    let mut export =
        zayavka::application::export::export(app.state.services(), format, &actor).await.unwrap();
    let first = export.next().await.unwrap().unwrap();
    assert!(first.starts_with("\u{FEFF}id,created_at,".as_bytes()), "the file's start");
    drop(export);

    let trail = app.state.store.audit_page(None, 10).await.unwrap();
    let exports: Vec<_> = trail
        .iter()
        .filter(|e| e.action == "exported")
        .map(|e| (e.actor.as_str(), e.detail.as_deref(), e.address.as_deref()))
        .collect();
    assert_eq!(exports, [("command line (olena)", Some("csv"), None)]);
}

/// An export whose leads cannot be read (here a column gone; a read cut off by the database, a
/// damaged page) fails before anything is given out: the inbox answers 503 in Ukrainian rather
/// than a file of headers alone, and the trail records no export.
#[tokio::test]
async fn an_export_whose_leads_cannot_be_read_is_refused_and_not_recorded() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    submit(&app, "Олена", "067 123 45 67").await;
    app.database.execute("ALTER TABLE \"CRN\" RENAME COLUMN referrer TO referrer_gone").await;
    for format in ["csv", "xlsx"] {
        let answer = operator.get(&app, &format!("/admin/api/export.{format}")).await;
        assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{format}: {}", answer.text());
        assert!(answer.text().contains("Не вдалося зібрати файл."), "{}", answer.text());
    }
    let trail = app.state.store.audit_page(None, 10).await.unwrap();
    assert!(trail.iter().all(|e| e.action != "exported"), "{trail:?}");
}

/// More leads than one page: the inbox sends the file as it reads it (the body comes in several
/// chunks, not one), and it is still the command line's file, every lead once, oldest first.
#[tokio::test]
async fn an_export_of_many_leads_is_streamed_page_by_page_and_is_the_cli_file() {
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let leads: Vec<_> = (0..2_500)
        .map(|n| zayavka::lead::NewLead {
            name: format!("Олена {n}"),
            phone: format!("+38067{n:07}"),
            phone_e164: format!("+38067{n:07}"),
            phone_in_plan: true,
            confirmation: "Так".into(),
            comment: Some("+передзвонити".into()),
            held: Vec::new(),
            attribution: Default::default(),
        })
        .collect();
    for request in leads.chunks(250) {
        app.state.store.insert(request.to_vec(), &app.state.insert_context, None).await.unwrap();
    }

    let request =
        Request::get("/admin/api/export.csv").header("cookie", &operator.cookie).body(Body::empty()).unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (mut body, mut chunks, mut bytes) = (response.into_body(), 0, Vec::new());
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.unwrap().into_data() {
            chunks += 1;
            bytes.extend_from_slice(&data);
        }
    }
    assert!(chunks >= 3, "2,500 leads came in {chunks} chunk(s)");

    let cli = common::exported_at_the_command_line(&app, zayavka::export::Format::Csv).await;
    assert_eq!(bytes, cli);
    let text = String::from_utf8(bytes).unwrap();
    let ids: Vec<i64> =
        text.lines().skip(1).map(|line| line.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(ids.len(), 2_500);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "oldest first, each once");
    assert!(text.lines().skip(1).all(|line| line.contains(",'+передзвонити,")), "every row neutralised");
}

/// The workbook read back with a spreadsheet library: a header and one row per lead, every cell a
/// string or a number, none a formula, Cyrillic intact.
fn read_workbook(bytes: &[u8]) -> Vec<Vec<calamine::Data>> {
    use calamine::Reader as _;
    let mut workbook = calamine::Xlsx::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let sheet = workbook.sheet_names()[0].clone();
    let formulas = workbook.worksheet_formula(&sheet).unwrap();
    assert!(formulas.used_cells().all(|(_, _, formula)| formula.is_empty()), "a formula in the workbook");
    workbook.worksheet_range(&sheet).unwrap().rows().map(<[calamine::Data]>::to_vec).collect()
}

#[tokio::test]
async fn the_excel_export_holds_every_lead_as_plain_text_and_is_audited() {
    use calamine::Data;
    let app = test_app().await;
    let operator = signed_in(&app).await;
    // The third is the first person again: a repeat.
    let leads = [
        ("a;=1+1;b", "+380671234567"),
        ("=HYPERLINK(\"http://x\",\"клік\")", "050 765 43 21"),
        ("Олена Шевчук-Коваль", "+380671234567"),
    ];
    let mut ids = Vec::new();
    for (name, phone) in leads {
        ids.push(submit(&app, name, phone).await);
    }
    let answer = operator.get(&app, "/admin/api/export.xlsx").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(
        answer.header("content-type"),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    let disposition = answer.header("content-disposition");
    assert!(disposition.starts_with("attachment; filename=\"zayavky-") && disposition.ends_with(".xlsx\""));

    let rows = read_workbook(&answer.body);
    let csv = operator.get(&app, "/admin/api/export.csv").await.text();
    let csv_header = csv.trim_start_matches('\u{FEFF}').lines().next().unwrap().to_owned();
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    assert_eq!(header.join(","), csv_header, "the CSV's columns");
    assert_eq!(rows.len(), 1 + leads.len(), "one row per lead");
    for ((row, (name, phone)), id) in rows[1..].iter().zip(leads).zip(&ids) {
        assert_eq!(row.len(), header.len());
        assert_eq!(row[0], Data::Float(*id as f64), "the id is a number");
        assert_eq!(row[2], Data::String(name.to_owned()), "the name as typed, no apostrophe");
        assert_eq!(row[3], Data::String(phone.to_owned()), "a phone is text, a + kept, no apostrophe");
        assert_eq!(row[5], Data::String("коментар".to_owned()));
        assert_eq!(row[6], Data::String("new".to_owned()));
    }
    assert_eq!(rows[1][9], Data::Empty);
    assert_eq!(rows[3][9], Data::Float(ids[0] as f64), "a repeat names the first lead, as a number");

    let trail = app.state.store.audit_page(None, 10).await.unwrap();
    let formats: Vec<_> =
        trail.iter().filter(|e| e.action == "exported").map(|e| e.detail.clone().unwrap()).collect();
    assert_eq!(formats, ["csv", "xlsx"], "newest first");
}

#[tokio::test]
async fn erasing_a_phone_removes_every_lead_call_and_notification_of_that_person() {
    // A webhook nobody answers keeps the notifications queued.
    let app = test_app_with(|s| {
        s.notify.webhook =
            Some(zayavka::config::Webhook { url: "http://127.0.0.1:9/hook".into(), secret: None });
        s.duplicate_window_hours = 0;
    })
    .await;
    let operator = signed_in(&app).await;
    let name = "Неповторна Ярина";
    let first = submit(&app, name, "067 555 44 33").await;
    let second = submit(&app, "Ярина", "+380675554433").await;
    let other = submit(&app, "Інша", "067 111 22 33").await;
    let path = format!("/admin/api/leads/{first}/attempts");
    operator.post(&app, &path, json!({ "outcome": "no_answer", "note": "перезвонити на 0675554433" })).await;
    // An idempotent insert records the lead's id under its key.
    let keyed = app
        .call(
            Request::post("/rest/v1/CRN")
                .header("apikey", common::KEY)
                .header("content-type", "application/json")
                .header("idempotency-key", "erase-test-key")
                .body(Body::from(r#"{"name":"Ярина","phone":"0675554433","confirmation":"Ні"}"#))
                .unwrap(),
        )
        .await;
    assert_eq!(keyed.status, StatusCode::CREATED);
    assert!(waiting_notifications(&app).await >= 4);

    let bad = operator.post(&app, "/admin/api/erase", json!({ "phone": "not a phone" })).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text().contains("Це не схоже на номер телефону."), "{}", bad.text());
    let erased = operator.post(&app, "/admin/api/erase", json!({ "phone": "(067) 555-44-33" })).await;
    assert_eq!(erased.status, StatusCode::OK, "{}", erased.text());
    assert_eq!(erased.json()["erased"], 3);

    assert_eq!(operator.list(&app, "").await, [other]);
    for id in [first, second] {
        assert!(app.state.store.lead(id).await.unwrap().is_none());
        assert!(app.state.store.attempts(id).await.unwrap().is_empty());
    }
    assert_eq!(waiting_notifications(&app).await, 1, "only the other person's notification");
    let since = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
    assert!(app.state.store.idempotency_record("erase-test-key", since).await.unwrap().is_none());

    if !app.database.url.starts_with("postgres") {
        // The bytes: SQLite zeroes deleted rows (secure_delete) and the erase checkpoints the WAL.
        let mut bytes = Vec::new();
        for file in ["leads.db", "leads.db-wal"] {
            if let Ok(data) = std::fs::read(app.database.dir.path().join(file)) {
                bytes.extend(data);
            }
        }
        assert!(bytes.len() > 4096, "the database file was read");
        for needle in ["5554433", "555 44 33", name, "Ярина", "перезвонити"] {
            let found = bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
            assert!(!found, "{needle:?} is still in the database files");
        }
        assert!(bytes.windows(7).any(|w| w == "1112233".as_bytes()), "the other lead is still there");
    }
}

#[tokio::test]
async fn leads_past_the_retention_period_are_deleted_at_start() {
    let first = test_app().await;
    let old = submit(&first, "Давня", "067 000 00 05").await;
    first.clock.advance_hours(24 * 2);
    let recent = submit(&first, "Недавня", "067 000 00 06").await;
    first.clock.advance_hours(24 * 29);
    // 29 days on, a server with a 30-day period starts on the same database.
    let mut settings = first.state.settings.as_ref().clone();
    settings.retention_days = 30;
    let store = zayavka::store::Store::open(&settings.database_url)
        .await
        .unwrap()
        .with_clock(first.state.clock.clone());
    let second = zayavka::app::AppState::new(settings, store.clone()).await.unwrap();
    second.spawn_background();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while store.lead(old).await.unwrap().is_some() {
        assert!(std::time::Instant::now() < deadline, "the old lead was not purged");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(store.lead(recent).await.unwrap().is_some());
    // The trail says the chore deleted it, once it is written after the deletion.
    let purged = || async {
        let trail = store.audit_page(None, 10).await.unwrap();
        trail.into_iter().find(|e| e.action == "purged").map(|e| (e.actor, e.detail))
    };
    let mut entry = purged().await;
    while entry.is_none() {
        assert!(std::time::Instant::now() < deadline, "the purge is not in the trail");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        entry = purged().await;
    }
    let detail = Some("1 lead(s) older than 30 days".to_owned());
    assert_eq!(entry, Some(("server (hourly chore)".to_owned(), detail)));
}

#[tokio::test]
async fn the_privacy_policy_states_the_retention_setting() {
    let default = test_app().await;
    let thirty = test_app_with(|s| s.retention_days = 30).await;
    let policy = thirty.get("/privacy-policy").await.text();
    assert!(policy.contains("не довше 30 днів із дня надходження"), "{policy}");
    assert!(!policy.contains("180 днів"));
    assert!(thirty.get("/").await.text().contains("видаляються через 30 днів"));
    assert!(default.get("/privacy-policy").await.text().contains("не довше 180 днів"));
    // Another period is another policy: consent evidence tells them apart.
    assert_ne!(default.state.site.policy_version, thirty.state.site.policy_version);
}

#[tokio::test]
async fn the_inbox_app_is_served_on_admin_paths_only() {
    let app = test_app().await;
    for path in ["/admin", "/admin/leads/42"] {
        let answer = app.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert!(answer.header("content-type").starts_with("text/html"));
        assert_eq!(answer.header("x-robots-tag"), "noindex, nofollow");
        assert!(answer.text().contains("/assets/admin-"), "{path}");
    }
    let unknown = app.get("/admin/api/nothing").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.json()["error"].is_string());
    // The visitor's landing page does not load the inbox's code.
    assert!(!app.get("/").await.text().contains("admin-"));
}

#[tokio::test]
async fn over_https_the_session_cookie_is_a_secure_host_cookie() {
    // In-process requests come from 127.0.0.1: here that is the trusted proxy saying HTTPS.
    let app = test_app_with(behind_a_proxy).await;
    add_operator(&app).await;
    let answer = login_via_proxy(&app, "203.0.113.7", "https", &[], PASSWORD).await;
    assert_eq!(answer.status, StatusCode::OK);
    let set_cookie = answer.header("set-cookie");
    // What browsers demand of a `__Host-` cookie: Secure, Path=/, no Domain.
    assert!(set_cookie.starts_with("__Host-zayavka_session="), "{set_cookie}");
    for attribute in ["; Secure", "; Path=/;", "; HttpOnly", "; SameSite=Strict"] {
        assert!(format!("{set_cookie};").contains(attribute), "{attribute} missing in {set_cookie}");
    }
    assert!(!set_cookie.to_lowercase().contains("domain"), "{set_cookie}");
    assert!(answer.header("strict-transport-security").starts_with("max-age="));

    let token = set_cookie.split(';').next().unwrap().trim_start_matches("__Host-zayavka_session=");
    let session = |cookie: String| {
        Request::get("/admin/api/session")
            .header("cookie", cookie)
            .header("x-forwarded-for", "203.0.113.7")
            .header("x-forwarded-proto", "https")
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(app.call(session(format!("__Host-zayavka_session={token}"))).await.status, StatusCode::OK);
    // Over HTTPS the unprefixed name (one a plain-HTTP page or a subdomain could set) is not read.
    assert_eq!(app.call(session(format!("zayavka_session={token}"))).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_guessers_wrong_passwords_do_not_lock_the_owner_out() {
    let app = test_app_with(behind_a_proxy).await;
    add_operator(&app).await;
    // Ten wrong passwords from one address: the guesser is slowed down.
    let mut refused = 0;
    for _ in 0..10 {
        let answer = login_via_proxy(&app, "198.51.100.1", "http", &[], "a guess").await;
        match answer.status {
            StatusCode::UNAUTHORIZED => {}
            StatusCode::TOO_MANY_REQUESTS => refused += 1,
            other => panic!("{other}: {}", answer.text()),
        }
    }
    assert_eq!(refused, 5, "five tries a minute from one address");
    // The owner, elsewhere, signs in.
    let owner = login_via_proxy(&app, "203.0.113.7", "http", &[], PASSWORD).await;
    assert_eq!(owner.status, StatusCode::OK, "{}", owner.text());

    // The guesser moves through its network's addresses: ten tries at the account in all.
    for host in 2..=6 {
        let answer = login_via_proxy(&app, &format!("198.51.100.{host}"), "http", &[], "a guess").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.text());
    }
    let slowed = login_via_proxy(&app, "198.51.100.7", "http", &[], "another guess").await;
    assert_eq!(slowed.status, StatusCode::TOO_MANY_REQUESTS, "{}", slowed.text());
    assert!(slowed.header("retry-after").parse::<u64>().unwrap() >= 1);
    // Still nothing stops the owner.
    let owner = login_via_proxy(&app, "203.0.113.7", "http", &[], PASSWORD).await;
    assert_eq!(owner.status, StatusCode::OK, "{}", owner.text());
    let owner_on_ipv6 = login_via_proxy(&app, "2001:db8::7", "http", &[], PASSWORD).await;
    assert_eq!(owner_on_ipv6.status, StatusCode::OK, "{}", owner_on_ipv6.text());
}

#[tokio::test]
async fn every_error_of_the_api_is_json() {
    let app = test_app().await;
    let operator = signed_in(&app).await;
    let post = |path: &str, content_type: &str, body: Vec<u8>| {
        Request::post(path)
            .header("content-type", content_type)
            .header("cookie", &operator.cookie)
            .header("x-csrf-token", &operator.csrf)
            .body(Body::from(body))
            .unwrap()
    };
    let login = |body: &str| post("/admin/api/login", "application/json", body.as_bytes().to_vec());
    let cases = [
        (app.get("/admin/api/nothing").await, StatusCode::NOT_FOUND),
        (app.get("/admin/api").await, StatusCode::NOT_FOUND),
        (app.call(post("/admin/api/", "application/json", b"{}".to_vec())).await, StatusCode::NOT_FOUND),
        (app.get("/admin/api/login").await, StatusCode::METHOD_NOT_ALLOWED),
        (operator.get(&app, "/admin/api/leads/not-a-number").await, StatusCode::BAD_REQUEST),
        (app.call(login("{\"email\":")).await, StatusCode::BAD_REQUEST),
        (
            app.call(post("/admin/api/login", "text/plain", b"{}".to_vec())).await,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            app.call(post("/admin/api/erase", "application/json", vec![b' '; 20 * 1024])).await,
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (app.get("/admin/api/stats").await, StatusCode::UNAUTHORIZED),
        (
            app.call(
                Request::post("/admin/api/erase")
                    .header("cookie", &operator.cookie)
                    .header("content-type", "application/json")
                    .body(Body::from(r#"{"phone":"0671234567"}"#))
                    .unwrap(),
            )
            .await,
            StatusCode::FORBIDDEN,
        ),
    ];
    for (n, (answer, status)) in cases.iter().enumerate() {
        assert_eq!(answer.status, *status, "case {n}: {}", answer.text());
        assert_eq!(answer.header("content-type"), "application/json", "case {n}");
        assert_eq!(answer.header("cache-control"), "no-store", "case {n}");
        let error = answer.json()["error"].as_str().unwrap_or_default().to_owned();
        assert!(!error.is_empty(), "case {n}: {}", answer.text());
    }
    assert!(cases[3].0.header("allow").contains("POST"), "405 still says what the path takes");
}

/// The status line's code of a raw HTTP answer read from `stream` (the head only), or `None`
/// when the server closed without one.
async fn read_status(stream: &mut tokio::net::tcp::OwnedReadHalf) -> Option<u16> {
    use tokio::io::AsyncReadExt;
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    String::from_utf8_lossy(&head).split(' ').nth(1)?.parse().ok()
}

/// A login request of `length` bytes from `source` (a loopback address), its body written beside
/// reading the answer, as an attacker would (the server may answer and close before taking it
/// all). `length: None` sends the body in chunks without saying its length. `send_body: false`
/// sends only the head and waits for an answer without ever sending the body.
async fn big_login(source: [u8; 4], port: u16, length: Option<usize>, send_body: bool) -> Option<u16> {
    use tokio::io::AsyncWriteExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((std::net::Ipv4Addr::from(source), 0).into()).unwrap();
    let stream = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let framing = match length {
        Some(length) => format!("Content-Length: {length}"),
        None => "Transfer-Encoding: chunked".to_owned(),
    };
    let head = format!(
        "POST /admin/api/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    );
    writer.write_all(head.as_bytes()).await.unwrap();
    let body_length = length.unwrap_or(2 * 1024 * 1024);
    let upload = tokio::spawn(async move {
        if !send_body {
            // Hold the connection open, body unsent, until the answer has been read.
            return std::future::pending::<()>().await;
        }
        const PART: usize = 64 * 1024;
        let part = match length {
            Some(_) => vec![b'x'; PART],
            None => [format!("{PART:x}\r\n").as_bytes(), &[b'x'; PART], b"\r\n"].concat(),
        };
        for _ in 0..body_length / PART {
            if writer.write_all(&part).await.is_err() {
                return; // the server answered and closed: the rest is not wanted
            }
        }
        if length.is_none() {
            let _ = writer.write_all(b"0\r\n\r\n").await;
        }
    });
    let status = read_status(&mut reader).await;
    upload.abort();
    status
}

/// The largest resident size the process has reached since the last reset (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn big_login_bodies_are_refused_unread_and_a_flood_of_them_takes_no_memory() {
    let database = common::TestDatabase::new().await;
    let server = common::Server::start(&database.url).await;
    let (port, pid) = (server.port, server.child.id().unwrap());
    let within = |seconds| std::time::Duration::from_secs(seconds);

    // The answer comes while the 2 MB body has not been sent at all: the server never waited for it.
    let unsent = tokio::time::timeout(within(5), big_login([127, 0, 0, 1], port, Some(2 << 20), false)).await;
    assert_eq!(unsent.expect("the server waited for the body"), Some(413));
    // A body that does not say its length is cut off at the limit.
    let chunked = tokio::time::timeout(within(10), big_login([127, 0, 0, 1], port, None, true)).await;
    assert_eq!(chunked.expect("no answer to a chunked 2 MB body"), Some(413));

    // The server's peak memory from here on.
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    let before = peak_rss_kib(pid);
    let started = std::time::Instant::now();
    // 32 addresses at once, 4 bodies of 2 MB each: 256 MB sent in all, under the address limit.
    let clients = (1..=32u8).map(|host| {
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..4 {
                statuses.push(big_login([127, 0, 1, host], port, Some(2 << 20), true).await);
            }
            statuses
        })
    });
    let clients: Vec<_> = clients.collect();
    let mut statuses = Vec::new();
    for client in clients {
        statuses
            .extend(tokio::time::timeout(within(60), client).await.expect("the flood was answered").unwrap());
    }
    let (elapsed, peak) = (started.elapsed(), peak_rss_kib(pid));
    eprintln!("128 bodies of 2 MB: {elapsed:?}; peak RSS {before} KiB before, {peak} KiB during");
    assert!(statuses.iter().all(|s| *s == Some(413)), "{statuses:?}");
    assert!(peak < before + 16 * 1024, "the peak RSS grew from {before} KiB to {peak} KiB");

    // From one address, past five tries a minute, the limiter answers before the size is looked at.
    let mut from_one = Vec::new();
    for _ in 0..6 {
        from_one.push(big_login([127, 0, 2, 1], port, Some(2 << 20), false).await);
    }
    assert_eq!(from_one, [Some(413), Some(413), Some(413), Some(413), Some(413), Some(429)]);
}

#[tokio::test]
async fn a_held_lead_is_listed_apart_counted_and_released_once() {
    let app = test_app_with(|s| s.hold_without_proof = true).await;
    let operator = signed_in(&app).await;
    let held = submit(&app, "Без доказу", "067 123 45 91").await;

    let list = operator.get(&app, "/admin/api/leads").await.json();
    assert!(list["leads"].as_array().unwrap().is_empty(), "not in the call list: {list}");
    let list = operator.get(&app, "/admin/api/leads?filter=held").await.json();
    assert_eq!(list["leads"][0]["id"], held);
    assert_eq!(list["leads"][0]["held"], json!(["no_proof"]));
    assert_eq!(operator.get(&app, "/admin/api/stats").await.json()["held"], 1);

    let path = format!("/admin/api/leads/{held}/release");
    let released = operator.post(&app, &path, json!(null)).await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text());
    assert_eq!(released.json()["lead"]["held"], Value::Null);
    assert_eq!(operator.get(&app, "/admin/api/leads").await.json()["leads"][0]["id"], held);
    assert_eq!(operator.get(&app, "/admin/api/stats").await.json()["held"], 0);

    let again = operator.post(&app, &path, json!(null)).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "released already: {}", again.text());
    let missing = operator.post(&app, "/admin/api/leads/999999/release", json!(null)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

//! A public form under attack: rate limits, bots, duplicates, and what `/metrics` counts.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestApp, test_app, test_app_with};

fn lead(phone: &str) -> String {
    format!(r#"{{"name":"Олена","phone":"{phone}","confirmation":"Так","comment":null}}"#)
}

async fn insert_as(app: &TestApp, lead: &str, extra: &[(&str, &str)]) -> common::Answer {
    let mut headers = vec![("prefer", "return=representation")];
    headers.extend_from_slice(extra);
    app.insert_with(lead, &headers).await
}

fn metric(text: &str, line_start: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn over_the_limit_a_client_gets_429_with_retry_after_and_ratelimit_fields() {
    let app = test_app_with(|s| s.rate_limit_per_minute = 3).await;
    for n in 0..3 {
        assert_eq!(app.insert(&lead(&format!("06712345{n:02}")), "").await.status, StatusCode::CREATED);
    }
    let refused = app.insert(&lead("0671234599"), "").await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=20).contains(&retry_after), "{retry_after}");
    assert_eq!(refused.header("ratelimit-policy"), "3;w=60");
    assert!(refused.header("ratelimit").starts_with("limit=3, remaining=0, reset="));
    assert!(refused.json()["details"].as_str().unwrap().contains("Забагато спроб"));

    // The form shares the bucket, and keeps the visitor's entries on its refusal page.
    let form = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from("name=Ivan&phone=0671234598&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on"))
        .unwrap();
    let page = app.call(form).await;
    assert_eq!(page.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(page.text().contains("value=\"0671234598\""));
    assert!(!page.header("retry-after").is_empty());
    assert_eq!(app.stored().await.len(), 3);
    let metrics = app.get("/metrics").await.text();
    assert_eq!(metric(&metrics, "zayavka_requests_rate_limited_total"), 2.0);

    // Retry-After tells the truth: that much later, the client is let in again.
    app.clock.advance(jiff::SignedDuration::from_secs(retry_after as i64));
    assert_eq!(app.insert(&lead("0671234599"), "").await.status, StatusCode::CREATED);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket_and_https_gets_hsts() {
    let app = test_app_with(|s| {
        s.rate_limit_per_minute = 1;
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    let from = |ip: &'static str| [("x-forwarded-for", ip), ("x-forwarded-proto", "https")];
    assert_eq!(insert_as(&app, &lead("0671000001"), &from("198.51.100.1")).await.status, StatusCode::CREATED);
    assert_eq!(insert_as(&app, &lead("0671000002"), &from("198.51.100.2")).await.status, StatusCode::CREATED);
    let again = insert_as(&app, &lead("0671000003"), &from("198.51.100.1")).await;
    assert_eq!(again.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(again.header("strict-transport-security"), "max-age=31536000; includeSubDomains");

    let page =
        app.call(Request::get("/").header("x-forwarded-proto", "https").body(Body::empty()).unwrap()).await;
    assert!(page.header("set-cookie").contains("Secure"));
    let plain = app.get("/").await;
    assert!(plain.header("strict-transport-security").is_empty(), "no HSTS over plain HTTP");
}

#[tokio::test]
async fn a_forwarded_header_from_an_untrusted_peer_changes_nothing() {
    let app = test_app_with(|s| s.rate_limit_per_minute = 1).await;
    let spoof = |ip: &'static str| [("x-forwarded-for", ip)];
    assert_eq!(
        insert_as(&app, &lead("0672000001"), &spoof("198.51.100.1")).await.status,
        StatusCode::CREATED
    );
    let second = insert_as(&app, &lead("0672000002"), &spoof("198.51.100.2")).await;
    assert_eq!(second.status, StatusCode::TOO_MANY_REQUESTS, "a client cannot pick its own bucket");
}

#[tokio::test]
async fn the_same_phone_again_is_stored_as_a_repeat_of_the_first_lead() {
    let app = test_app().await;
    let first = insert_as(&app, &lead("067 123 45 67"), &[]).await;
    // Written another way, it is the same number.
    let second = insert_as(&app, &lead("+38 (067) 123-45-67"), &[]).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(second.status, StatusCode::CREATED);
    let first_id = first.json()[0]["id"].as_i64().unwrap();
    let stored = app.stored().await;
    assert_eq!(stored.iter().map(|l| l.repeat_of).collect::<Vec<_>>(), vec![None, Some(first_id)]);
    let metrics = app.get("/metrics").await.text();
    assert_eq!(metric(&metrics, "zayavka_leads_stored_total"), 2.0);
    assert_eq!(metric(&metrics, "zayavka_leads_repeated_total"), 1.0);

    let off = test_app_with(|s| s.duplicate_window_hours = 0).await;
    insert_as(&off, &lead("0671234567"), &[]).await;
    insert_as(&off, &lead("0671234567"), &[]).await;
    let stored = off.stored().await;
    assert!(stored.iter().all(|l| l.repeat_of.is_none()), "0 turns the duplicate window off");
}

#[tokio::test]
async fn the_landing_page_hands_out_a_proof_that_a_second_tab_keeps() {
    let app = test_app().await;
    let page = app.get("/").await;
    let cookie = page.header("set-cookie").split(';').next().unwrap().to_owned();
    assert!(cookie.starts_with("zayavka_proof="), "{cookie}");

    // A second load keeps the first proof (a second tab must not shorten the fill time)...
    let again = app.call(Request::get("/").header("cookie", &cookie).body(Body::empty()).unwrap()).await;
    assert!(again.header("set-cookie").is_empty());
    // ...unless it is past half its life (13 hours later), or not ours.
    app.clock.advance_hours(13);
    for stale in [cookie.as_str(), "zayavka_proof=1000"] {
        let again = app.call(Request::get("/").header("cookie", stale).body(Body::empty()).unwrap()).await;
        assert!(again.header("set-cookie").starts_with("zayavka_proof="), "{stale}");
    }
}

#[tokio::test]
async fn metrics_count_refusals_by_reason_and_never_hold_personal_data() {
    let app = test_app().await;
    app.insert(r#"{"name":"Олена","phone":"nope","confirmation":"Так"}"#, "").await;
    app.insert("{", "").await;
    let honeypot = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from("name=Bot&phone=0671234567&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on&website=x"))
        .unwrap();
    app.call(honeypot).await;
    app.insert(&lead("0674000001"), "").await;
    let answer = app.get("/metrics").await;
    assert_eq!(answer.status, StatusCode::OK);
    let text = answer.text();
    assert_eq!(metric(&text, "zayavka_leads_refused_total{reason=\"invalid\"}"), 2.0);
    // The honeypot's lead is stored, held for review.
    assert_eq!(metric(&text, "zayavka_leads_held_total{reason=\"honeypot\"}"), 1.0);
    assert_eq!(metric(&text, "zayavka_leads_stored_total"), 2.0);
    assert!(!text.contains("Олена") && !text.contains("0674000001"));
}

/// `/metrics` read before and after a submit would tell whether that phone was sent before
/// (`zayavka_leads_repeated_total`): from outside, or through a proxy, it is a page that does not
/// exist, as any unknown path is.
#[tokio::test]
async fn metrics_answer_only_a_scraper_inside() {
    let app = test_app().await;
    let metrics_from = |ip: [u8; 4], forwarded: bool| {
        let mut request = Request::get("/metrics");
        if forwarded {
            request = request.header("x-forwarded-for", "203.0.113.7");
        }
        let peer = std::net::SocketAddr::from((ip, 40000));
        request.extension(axum::extract::ConnectInfo(peer)).body(Body::empty()).unwrap()
    };
    let unknown = app.get("/no-such-page").await;
    for (ip, forwarded) in [([203, 0, 113, 7], false), ([127, 0, 0, 1], true), ([10, 0, 0, 5], true)] {
        let answer = app.call(metrics_from(ip, forwarded)).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{ip:?}, forwarded: {forwarded}");
        assert_eq!(answer.body, unknown.body);
    }
    for ip in [[127, 0, 0, 1], [10, 0, 0, 5], [172, 17, 0, 1]] {
        let answer = app.call(metrics_from(ip, false)).await;
        assert_eq!(answer.status, StatusCode::OK, "{ip:?}");
        assert!(answer.text().contains("zayavka_leads_repeated_total"));
    }
}

/// A bounded flood on loopback from one address: the limiter holds it, and a second address still
/// gets through.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_from_one_address_does_not_lock_out_another() {
    let database = common::TestDatabase::new().await;
    let server = common::Server::start_with(&database.url, &[("ZAYAVKA_RATE_LIMIT_PER_MINUTE", "20")]).await;
    let port = server.port;
    let mut flood = Vec::new();
    for worker in 0..8 {
        flood.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for n in 0..50 {
                let phone = format!("+38050{:07}", worker * 1000 + n);
                let (status, _) =
                    common::http_from([127, 0, 0, 1], port, "POST", "/rest/v1/CRN", &lead(&phone))
                        .await
                        .unwrap();
                statuses.push(status);
            }
            statuses
        }));
    }
    let mut statuses = Vec::new();
    for worker in flood {
        statuses.extend(worker.await.unwrap());
    }
    let accepted = statuses.iter().filter(|s| **s == 201).count();
    let limited = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(accepted + limited, 400, "only 201 or 429");
    assert!((20..=22).contains(&accepted), "the bucket holds 20 (+ refill during the run): {accepted}");

    let (status, _) = common::http_from([127, 0, 0, 2], port, "POST", "/rest/v1/CRN", &lead("+380661234567"))
        .await
        .unwrap();
    assert_eq!(status, 201, "another address still gets through");
}

#[tokio::test]
async fn an_idempotency_key_replays_the_first_answer_and_stores_once() {
    let app = test_app().await;
    let key = [("idempotency-key", "9b2d6d5e-5f0a-4c1e-8f8e-1a2b3c4d5e6f")];
    let first = insert_as(&app, &lead("0675000001"), &key).await;
    let repeat = insert_as(&app, &lead("0675000001"), &key).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(repeat.status, StatusCode::CREATED);
    assert_eq!(first.json(), repeat.json(), "the same answer");
    assert_eq!(repeat.header("idempotent-replayed"), "true");
    assert_eq!(app.stored().await.len(), 1);

    let other_body = insert_as(&app, &lead("0675000002"), &key).await;
    assert_eq!(other_body.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(other_body.json()["message"].as_str().unwrap().contains("different request"));
    assert_eq!(app.stored().await.len(), 1);

    let bad = insert_as(&app, &lead("0675000003"), &[("idempotency-key", "")]).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_same_key_while_the_first_request_runs_is_409() {
    let app = test_app().await;
    // The first request is still running on this instance.
    app.state.idempotency_in_flight.lock().unwrap().insert("running-key".to_owned());
    let second = insert_as(&app, &lead("0676000001"), &[("idempotency-key", "running-key")]).await;
    assert_eq!(second.status, StatusCode::CONFLICT);
    assert!(second.json()["message"].as_str().unwrap().contains("still being processed"));
    assert!(app.stored().await.is_empty());
}

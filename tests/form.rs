//! `POST /leads`: the form without JavaScript.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestApp, test_app, test_app_with};

async fn post_form(app: &TestApp, body: &str) -> common::Answer {
    let request = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body.to_owned()))
        .unwrap();
    app.call(request).await
}

fn encode(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{k}={}", v.bytes().map(|b| format!("%{b:02X}")).collect::<String>()))
        .collect::<Vec<_>>()
        .join("&")
}

#[tokio::test]
async fn a_complete_form_is_stored_and_redirected_with_303() {
    let app = test_app_with(|s| s.redirect_url = "https://example.org/dyakuyemo".into()).await;
    let body = encode(&[
        ("name", " Олена "),
        ("phone", "067 123 45 67"),
        ("confirmation", "Так"),
        ("comment", ""),
        ("agreed", "on"),
        ("website", ""),
    ]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(answer.header("location"), "https://example.org/dyakuyemo");
    let stored = app.stored().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].name, "Олена");
    assert_eq!(stored[0].comment, None);
}

#[tokio::test]
async fn a_refusal_says_what_was_wrong_in_ukrainian_and_keeps_the_entries() {
    let app = test_app().await;
    let body = encode(&[("name", "Олена <b>"), ("phone", "дзвоніть"), ("comment", "ввечері")]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let html = answer.text();
    assert!(html.contains("lang=\"uk\""));
    assert!(html.contains("Номер телефону має складатися з цифр"));
    assert!(html.contains("Оберіть відповідь «Так» або «Ні»") || html.contains("«Відповідь «Так» або «Ні»»"));
    assert!(html.contains("Потрібна ваша згода з умовами публічної оферти."));
    assert!(
        html.contains("value=\"Олена &#60;b&#62;\"") || html.contains("value=\"Олена &lt;b&gt;\""),
        "entries kept, escaped"
    );
    assert!(!html.contains("<b>"), "nothing the visitor wrote is markup");
    assert!(html.contains(">ввечері</textarea>"));
    assert!(html.contains("href=\"/\""), "a way back");
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn a_filled_honeypot_looks_like_success_and_the_lead_is_held_not_dropped() {
    let app = test_app().await;
    let body = encode(&[
        ("name", "Bot"),
        ("phone", "0671234567"),
        ("confirmation", "Так"),
        ("agreed", "on"),
        ("website", "http://spam.example"),
    ]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    // A password manager may have filled it for a person: stored, held for a person to review.
    let stored = app.stored().await;
    assert_eq!(stored.len(), 1);
    assert!(stored[0].held.as_ref().is_some_and(|reasons| reasons.contains(&"honeypot".to_owned())));
}

#[tokio::test]
async fn text_that_is_not_utf8_is_refused_rather_than_stored_altered() {
    let app = test_app().await;
    let lead = "phone=0671234567&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on";
    // "Олена" in Windows-1251: percent-encoded, and as raw bytes.
    let mut raw = b"name=".to_vec();
    raw.extend_from_slice(&[0xCE, 0xEB, 0xE5, 0xED, 0xE0]);
    raw.extend_from_slice(format!("&{lead}").as_bytes());
    for body in [format!("name=%CE%EB%E5%ED%E0&{lead}").into_bytes(), raw] {
        let request = Request::post("/leads")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        let answer = app.call(request).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
        assert!(answer.text().contains("не в кодуванні UTF-8"), "{}", answer.text());
    }
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn an_oversized_or_foreign_body_gets_a_ukrainian_page_and_stores_nothing() {
    let app = test_app().await;
    let comment = "я".repeat(40_000);
    let oversized = encode(&[("name", "Олена"), ("phone", "0671234567"), ("comment", &comment)]);
    let answer = post_form(&app, &oversized).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(answer.text().contains("Заявка завелика"), "{}", answer.text());

    let request = Request::post("/leads")
        .header("content-type", "text/plain")
        .body(Body::from("name=Олена&phone=0671234567"))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(answer.text().contains("незнайомому форматі"), "{}", answer.text());
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn the_refusal_page_styles_are_allowed_by_the_csp() {
    let app = test_app().await;
    let answer = post_form(&app, "name=").await;
    let csp = answer.header("content-security-policy").to_owned();
    assert!(csp.contains(&zayavka::http::security::style_hash(zayavka::http::form::ERROR_PAGE_CSS)), "{csp}");
}

#[tokio::test]
async fn only_a_checked_box_is_consent() {
    let app = test_app().await;
    let lead = encode(&[("name", "Олена"), ("phone", "0671234567"), ("confirmation", "Так")]);
    // A checked box sends `agreed=on`; an unchecked one sends nothing. A crafted `agreed=` (or
    // any other value) is not a box anyone ticked.
    for agreed in ["agreed=", "agreed=off", "agreed=%20"] {
        let answer = post_form(&app, &format!("{lead}&{agreed}")).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{agreed}");
        let html = answer.text();
        assert!(html.contains("Потрібна ваша згода з умовами публічної оферти."), "{agreed}");
        assert!(!html.contains("value=\"on\" checked"), "{agreed}: the page shows the box unticked");
    }
    assert!(app.stored().await.is_empty(), "nothing stored without consent");

    let answer = post_form(&app, &format!("{lead}&agreed=on")).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.len(), 1);
}

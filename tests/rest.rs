//! `POST /rest/v1/CRN` and its neighbours, in-process: the contract a PostgREST client relies on.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{KEY, test_app};
use serde_json::json;

const LEAD: &str =
    r#"{"name":"  Олена Коваль ","phone":" 067 123 45 67","confirmation":"Так","comment":"  "}"#;

#[tokio::test]
async fn minimal_insert_answers_201_with_an_empty_body_and_stores_the_cleaned_lead() {
    let app = test_app().await;
    let answer = app.insert(LEAD, "return=minimal").await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert!(answer.body.is_empty());
    let stored = app.stored().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].name, "Олена Коваль");
    assert_eq!(stored[0].phone, "067 123 45 67");
    assert_eq!(stored[0].confirmation, "Так");
    assert_eq!(stored[0].comment, None);
}

#[tokio::test]
async fn representation_returns_the_stored_rows_of_a_bulk_insert() {
    let app = test_app().await;
    let body = json!([
        {"name": "Іван", "phone": "+380501112233", "confirmation": "Ні", "comment": "після 18:00"},
        {"name": "Марія", "phone": "0931112233", "confirmation": "Так", "comment": null},
    ]);
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED);
    let rows = answer.json();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["name"], "Іван");
    assert_eq!(rows[0]["comment"], "після 18:00");
    assert_eq!(rows[1]["comment"], serde_json::Value::Null);
    assert!(rows[1]["id"].as_i64().unwrap() > rows[0]["id"].as_i64().unwrap());
    assert!(rows[0]["created_at"].as_str().unwrap().parse::<jiff::Timestamp>().is_ok());
    assert_eq!(app.stored().await.len(), 2);
}

#[tokio::test]
async fn select_and_single_object_are_honoured() {
    let app = test_app().await;
    let request = Request::post("/rest/v1/CRN?select=id,name")
        .header("apikey", KEY)
        .header("content-type", "application/json")
        .header("prefer", "return=representation")
        .header("accept", "application/vnd.pgrst.object+json")
        .body(Body::from(LEAD))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::CREATED);
    let row = answer.json();
    assert_eq!(row.as_object().unwrap().keys().collect::<Vec<_>>(), ["id", "name"]);
}

#[tokio::test]
async fn the_api_key_is_required_and_checked() {
    let app = test_app().await;
    let without = Request::post("/rest/v1/CRN")
        .header("content-type", "application/json")
        .body(Body::from(LEAD))
        .unwrap();
    let answer = app.call(without).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(answer.json()["message"], "No API key found in request");

    let wrong = Request::post("/rest/v1/CRN").header("apikey", "nope").body(Body::from(LEAD)).unwrap();
    let answer = app.call(wrong).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(answer.json()["message"], "Invalid API key");
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn errors_use_postgrest_shape_and_fitting_statuses() {
    let app = test_app().await;
    let cases = [
        ("{not json", StatusCode::BAD_REQUEST, "PGRST102"),
        ("42", StatusCode::BAD_REQUEST, "PGRST102"),
        (
            r#"{"name":"А","phone":"0671234567","confirmation":"Так","email":"x@y"}"#,
            StatusCode::BAD_REQUEST,
            "PGRST204",
        ),
        (r#"{"phone":"0671234567","confirmation":"Так"}"#, StatusCode::BAD_REQUEST, "23502"),
        (r#"{"name":"А","phone":"дзвоніть","confirmation":"Так"}"#, StatusCode::BAD_REQUEST, "23514"),
        (r#"{"name":"А","phone":"0671234567","confirmation":"yes"}"#, StatusCode::BAD_REQUEST, "23514"),
    ];
    for (body, status, code) in cases {
        let answer = app.insert(body, "return=minimal").await;
        assert_eq!(answer.status, status, "{body}");
        let error = answer.json();
        assert_eq!(error["code"], code, "{body}");
        for key in ["message", "details", "hint"] {
            assert!(error.as_object().unwrap().contains_key(key), "{key} missing for {body}");
        }
    }
    assert!(app.stored().await.is_empty(), "nothing invalid is stored");
}

#[tokio::test]
async fn a_refused_row_says_in_ukrainian_what_was_wrong() {
    let app = test_app().await;
    let answer = app.insert(r#"{"name":"","phone":"12","confirmation":"Так"}"#, "").await;
    let details = answer.json()["details"].as_str().unwrap().to_owned();
    assert!(details.contains("Поле «Ваше ім'я» обов'язкове."), "{details}");
    assert!(details.contains("Номер телефону"), "{details}");
}

#[tokio::test]
async fn one_bad_row_refuses_the_whole_bulk_insert() {
    let app = test_app().await;
    let body = json!([
        {"name": "Іван", "phone": "+380501112233", "confirmation": "Так"},
        {"name": "Марія", "phone": "", "confirmation": "Так"},
    ]);
    let answer = app.insert(&body.to_string(), "").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(answer.json()["details"].as_str().unwrap().starts_with("Рядок 2:"));
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn an_oversized_body_is_413_with_a_json_error() {
    let app = test_app().await;
    let comment = "я".repeat(40_000);
    let body = json!({"name": "Іван", "phone": "0671234567", "confirmation": "Так", "comment": comment});
    let answer = app.insert(&body.to_string(), "").await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(answer.json()["message"].is_string());
}

#[tokio::test]
async fn a_wrong_content_type_is_415() {
    let app = test_app().await;
    let request = Request::post("/rest/v1/CRN")
        .header("apikey", KEY)
        .header("content-type", "text/plain")
        .body(Body::from(LEAD))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer.json()["code"], "PGRST107");
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_refused_with_the_reason_and_nothing_is_stored() {
    let app = test_app().await;
    // "Олена" in Windows-1251, as an old client might send it.
    let mut body = br#"{"name":""#.to_vec();
    body.extend_from_slice(&[0xCE, 0xEB, 0xE5, 0xED, 0xE0]);
    body.extend_from_slice(r#"","phone":"0671234567","confirmation":"Так"}"#.as_bytes());
    let request = Request::post("/rest/v1/CRN")
        .header("apikey", KEY)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.json()["code"], "PGRST102");
    assert_eq!(answer.json()["details"], "Текст заявки надіслано не в кодуванні UTF-8.");
    assert!(app.stored().await.is_empty());
}

/// The store's errors go to the log: a row the database itself refuses (its checks stand behind
/// the server's) must not be quoted there, as PostgreSQL's "Failing row contains (…)" would.
#[tokio::test]
async fn a_row_the_database_refuses_is_not_quoted_in_the_error() {
    let app = test_app().await;
    let lead = zayavka::lead::NewLead {
        name: "Неповторна Ярина".into(),
        phone: "067 555 44 33".into(),
        phone_e164: "+380675554433".into(),
        phone_in_plan: true,
        confirmation: "Може".into(), // the table allows only Так and Ні
        comment: Some("коментар-маркер".into()),
        held: Vec::new(),
        attribution: Default::default(),
    };
    let error = app.state.store.insert(vec![lead], &app.state.insert_context, None).await.unwrap_err();
    let text = error.to_string();
    assert!(text.to_lowercase().contains("check"), "the reason is kept: {text}");
    for secret in ["Ярина", "5554433", "555 44 33", "коментар-маркер", "Може"] {
        assert!(!text.contains(secret), "{secret:?} in {text:?}");
    }
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn reading_updating_or_deleting_never_reveals_or_changes_a_lead() {
    let app = test_app().await;
    app.insert(LEAD, "").await;
    let get = app
        .call(Request::get("/rest/v1/CRN?select=*").header("apikey", KEY).body(Body::empty()).unwrap())
        .await;
    assert_eq!(get.status, StatusCode::OK);
    assert_eq!(get.json(), json!([]));

    let patch = Request::patch("/rest/v1/CRN?id=gt.0")
        .header("apikey", KEY)
        .header("prefer", "return=representation")
        .body(Body::from(r#"{"name":"змінено"}"#))
        .unwrap();
    let patch = app.call(patch).await;
    assert_eq!(patch.json(), json!([]));

    let delete = app
        .call(Request::delete("/rest/v1/CRN?id=gt.0").header("apikey", KEY).body(Body::empty()).unwrap())
        .await;
    assert_eq!(delete.status, StatusCode::NO_CONTENT);

    let stored = app.stored().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].name, "Олена Коваль");
}

#[tokio::test]
async fn another_table_is_404_with_a_json_body() {
    let app = test_app().await;
    let answer =
        app.call(Request::get("/rest/v1/users").header("apikey", KEY).body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["code"], "PGRST205");
}

#[tokio::test]
async fn the_preflight_allows_any_origin_and_echoes_the_requested_headers() {
    let app = test_app().await;
    let request = Request::options("/rest/v1/CRN")
        .header("origin", "https://pages.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "apikey,authorization,content-type,prefer,x-client-info")
        .body(Body::empty())
        .unwrap();
    let answer = app.call(request).await;
    assert!(answer.status.is_success());
    assert_eq!(answer.header("access-control-allow-origin"), "*");
    assert_eq!(
        answer.header("access-control-allow-headers"),
        "apikey,authorization,content-type,prefer,x-client-info"
    );
    assert!(answer.header("access-control-allow-methods").contains("POST"));
}

#[tokio::test]
async fn supabase_js_bulk_columns_parameter_is_understood() {
    let app = test_app().await;
    let request =
        Request::post("/rest/v1/CRN?columns=%22name%22,%22phone%22,%22confirmation%22,%22comment%22")
            .header("apikey", KEY)
            .header("content-type", "application/json")
            .body(Body::from(r#"[{"name":"А","phone":"0671234567","confirmation":"Так"}]"#))
            .unwrap();
    assert_eq!(app.call(request).await.status, StatusCode::CREATED);
}

#[tokio::test]
async fn every_other_api_path_answers_in_postgrest_shape() {
    let app = test_app().await;
    for (path, code) in
        [("/rest/v1/rpc/erase_me", "PGRST202"), ("/rest/v1/", "PGRST125"), ("/rest/v1/CRN/1", "PGRST125")]
    {
        for method in ["GET", "POST"] {
            let request = Request::builder()
                .method(method)
                .uri(path)
                .header("apikey", KEY)
                .header("content-type", "application/json")
                .body(Body::from("{}"))
                .unwrap();
            let answer = app.call(request).await;
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method} {path}");
            assert_eq!(answer.json()["code"], code, "{method} {path}");
        }
    }
    let put = Request::put("/rest/v1/CRN").header("apikey", KEY).body(Body::from(LEAD)).unwrap();
    let answer = app.call(put).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.json()["code"], "PGRST117");
}

/// The optional attribution columns: stored with the lead, the referrer reduced to its host, and
/// in both exports; a lead without them is stored as before.
#[tokio::test]
async fn attribution_columns_are_stored_and_exported() {
    let app = test_app().await;
    let body = json!([
        {"name": "Олена", "phone": "067 123 45 01", "confirmation": "Так", "comment": null,
         "utm_source": "facebook", "utm_medium": "cpc", "utm_campaign": "=зима-2026",
         "utm_content": "banner", "utm_term": "лікування",
         "referrer": "https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.org&h=secret"},
        {"name": "Ігор", "phone": "067 123 45 02", "confirmation": "Ні", "comment": null}
    ]);
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let stored = app.stored().await;
    let attributed = stored.iter().find(|l| l.name == "Олена").unwrap();
    assert_eq!(attributed.attribution.utm_source.as_deref(), Some("facebook"));
    assert_eq!(attributed.attribution.utm_campaign.as_deref(), Some("=зима-2026"));
    assert_eq!(attributed.attribution.utm_term.as_deref(), Some("лікування"));
    assert_eq!(attributed.attribution.referrer.as_deref(), Some("l.facebook.com"));
    let plain = stored.iter().find(|l| l.name == "Ігор").unwrap();
    assert_eq!(plain.attribution, Default::default());

    let jsonl = common::exported(&app.state.store, zayavka::export::Format::Jsonl).await;
    let first: serde_json::Value =
        serde_json::from_str(std::str::from_utf8(&jsonl).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["utm_medium"], "cpc");
    assert_eq!(first["referrer"], "l.facebook.com");
    let csv = common::exported(&app.state.store, zayavka::export::Format::Csv).await;
    let csv = String::from_utf8(csv).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header
            .ends_with(",utm_source,utm_medium,utm_campaign,utm_content,utm_term,referrer,first_attempt_at"),
        "{header}"
    );
    // A spreadsheet does not run a campaign name that starts like a formula.
    assert!(csv.contains(",facebook,cpc,'=зима-2026,banner,лікування,l.facebook.com"), "{csv}");
    assert!(!csv.contains("secret"), "{csv}");
}

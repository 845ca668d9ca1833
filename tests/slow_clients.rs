//! A visitor on a bad connection whose upload stalls (or a client that sends its request a byte at
//! a time on purpose): the server cuts the request off after 30 s with an answer the client can
//! read, stores nothing half-sent, and serves everyone else meanwhile. Runs the real binary over
//! real sockets, so it waits the 30 s; on SQLite only (the database plays no part).

mod common;

use std::time::{Duration, Instant};

use common::{KEY, Server, TestDatabase, http};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends the headers and the first part of a body of `length` bytes, then nothing more; returns
/// the raw answer once the server closes the connection.
async fn stalled_upload(
    port: u16,
    path: &str,
    content_type: &str,
    length: usize,
    first_part: &str,
) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: {KEY}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {length}\r\n\r\n{first_part}"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answer))
        .await
        .expect("the server never answered the stalled upload")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn status_and_body(answer: &str) -> (&str, &str) {
    let status = answer.split(' ').nth(1).unwrap_or("");
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_upload_is_answered_after_30_s_and_stores_nothing() {
    let database = TestDatabase::new().await;
    let server = Server::start(&database.url).await;
    let began = Instant::now();

    let api = stalled_upload(server.port, "/rest/v1/CRN", "application/json", 200, r#"{"name":"Оле"#);
    let form = stalled_upload(
        server.port,
        "/leads",
        "application/x-www-form-urlencoded",
        200,
        "name=%D0%9E%D0%BB%D0%B5",
    );
    let someone_else = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let lead = r#"{"name":"Марія","phone":"+380671234567","confirmation":"Так"}"#;
        let (status, body) = http(server.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
        (status, body, began.elapsed())
    };
    let (api, form, (status, body, served_after)) = tokio::join!(api, form, someone_else);
    let waited = began.elapsed();

    // Everyone else is served at once.
    assert_eq!(status, 201, "{body}");
    assert!(served_after < Duration::from_secs(10), "a second visitor waited {served_after:?}");

    // The API client gets PostgREST's error shape with a Ukrainian explanation, not an empty body.
    let (status, body) = status_and_body(&api);
    assert_eq!(status, "408", "{api}");
    assert!(api.to_ascii_lowercase().contains("content-type: application/json"), "{api}");
    let error: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {api}"));
    assert!(error["message"].as_str().unwrap().contains("30 s"), "{body}");
    assert!(error["details"].as_str().unwrap().contains("Спробуйте, будь ласка, ще раз"), "{body}");

    // The visitor without JavaScript gets the site's error page in Ukrainian, not a blank page.
    let (status, body) = status_and_body(&form);
    assert_eq!(status, "408", "{form}");
    assert!(body.contains("Сталася неочікувана помилка"), "{form}");
    assert!(
        form.to_ascii_lowercase().contains("content-security-policy"),
        "the security headers too: {form}"
    );

    assert!(
        waited >= Duration::from_secs(29) && waited < Duration::from_secs(45),
        "cut off after {waited:?}"
    );
    let stored = server.export_jsonl().await;
    assert_eq!(stored.len(), 1, "only the complete lead: {stored:?}");
    assert_eq!(stored[0]["name"], "Марія");
}

//! Several instances behave as one: two zayavka processes on one PostgreSQL database.

mod common;

use std::collections::HashMap;

use common::{Server, TestDatabase, http};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_on_one_database_store_every_lead_exactly_once() {
    let database = TestDatabase::postgres().await;
    let (a, b) = tokio::join!(Server::start(&database.url), Server::start(&database.url));
    let mut senders = Vec::new();
    for sender in 0..16u32 {
        let port = if sender % 2 == 0 { a.port } else { b.port };
        senders.push(tokio::spawn(async move {
            let mut names = Vec::new();
            for n in 0..25u32 {
                let name = format!("lead-{sender}-{n}");
                let body = format!(
                    r#"{{"name":"{name}","phone":"+38067{:07}","confirmation":"Так","comment":null}}"#,
                    sender * 1000 + n
                );
                let (status, answer) = http(port, "POST", "/rest/v1/CRN", &body).await.unwrap();
                assert_eq!(status, 201, "{answer}");
                names.push(name);
            }
            names
        }));
    }
    let mut sent = Vec::new();
    for sender in senders {
        sent.extend(sender.await.unwrap());
    }
    // The same person through both instances at once is still one lead.
    let same = r#"{"name":"Та сама","phone":"+380991112233","confirmation":"Так","comment":null}"#;
    let (first, second) =
        tokio::join!(http(a.port, "POST", "/rest/v1/CRN", same), http(b.port, "POST", "/rest/v1/CRN", same));
    assert_eq!(first.unwrap().0, 201);
    assert_eq!(second.unwrap().0, 201);

    let exported = a.export_jsonl().await;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for lead in &exported {
        *counts.entry(lead["name"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    for name in &sent {
        assert_eq!(counts.get(name), Some(&1), "{name}");
    }
    assert_eq!(counts.get("Та сама"), Some(&1));
    assert_eq!(exported.len(), sent.len() + 1);
    // Ids come from one sequence, whichever instance stored the lead.
    let ids: Vec<i64> = exported.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first, no id twice");
}

/// An operator signs in on one instance and works on the other: sessions live in the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_made_on_one_instance_works_on_the_other() {
    let database = TestDatabase::postgres().await;
    let (a, b) = tokio::join!(Server::start(&database.url), Server::start(&database.url));
    let mut add = common::zayavka()
        .args(["admin", "add-user", "op@example.org", "--password-stdin"])
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncWriteExt;
    add.stdin.take().unwrap().write_all(b"a long enough secret\n").await.unwrap();
    assert!(add.wait().await.unwrap().success());

    let login = json_request(
        a.port,
        "POST",
        "/admin/api/login",
        &[],
        r#"{"email":"op@example.org","password":"a long enough secret"}"#,
    )
    .await;
    assert_eq!(login.0, 200, "{}", login.2);
    let cookie = login.1.split(';').next().unwrap().to_owned();
    let csrf = serde_json::from_str::<serde_json::Value>(&login.2).unwrap()["csrf_token"]
        .as_str()
        .unwrap()
        .to_owned();

    let lead = r#"{"name":"Олена","phone":"+380671234567","confirmation":"Так"}"#;
    let (status, stored) = http(a.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
    assert_eq!(status, 201);
    let id = serde_json::from_str::<serde_json::Value>(&stored).unwrap()[0]["id"].as_i64().unwrap();

    let on_b = json_request(b.port, "GET", "/admin/api/session", &[("cookie", &cookie)], "").await;
    assert_eq!(on_b.0, 200, "{}", on_b.2);
    let path = format!("/admin/api/leads/{id}/attempts");
    let call = json_request(
        b.port,
        "POST",
        &path,
        &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        r#"{"outcome":"interested","note":""}"#,
    )
    .await;
    assert_eq!(call.0, 201, "{}", call.2);
    // Signing out on B ends the session on A too.
    let out = json_request(
        b.port,
        "POST",
        "/admin/api/logout",
        &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        "",
    )
    .await;
    assert_eq!(out.0, 204);
    assert_eq!(json_request(a.port, "GET", "/admin/api/session", &[("cookie", &cookie)], "").await.0, 401);
}

/// A request with extra headers; the status, the `Set-Cookie` header and the body.
async fn json_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use http_body_util::BodyExt;
    use hyper_util::rt::TokioIo;
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", format!("127.0.0.1:{port}"))
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(http_body_util::Full::new(hyper::body::Bytes::from(body.to_owned()))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let cookie =
        response.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, cookie, String::from_utf8_lossy(&body).into_owned())
}

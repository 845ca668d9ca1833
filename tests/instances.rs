//! Several instances behave as one: two zayavka processes on one PostgreSQL database.
//!
//! Not run again on PostgreSQL: it always runs on PostgreSQL (several instances need a shared
//! database).

use crate::common;

use std::collections::HashMap;

use common::{KEY, Server, TestDatabase, http, request};

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
    // The same person through both instances at once is one person: two submissions, the later a
    // repeat of the first (notified once).
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
    let same: Vec<&serde_json::Value> = exported.iter().filter(|l| l["name"] == "Та сама").collect();
    assert_eq!(same.len(), 2);
    assert_eq!(same[0]["repeat_of"], serde_json::Value::Null);
    assert_eq!(same[1]["repeat_of"], same[0]["id"]);
    assert_eq!(exported.len(), sent.len() + 2);
    // Ids come from one sequence, whichever instance stored the lead.
    let ids: Vec<i64> = exported.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first, no id twice");
}

/// A client that retries through the load balancer can land on the other instance while its
/// first request is still running there: the key is claimed in the database, so the second is
/// told 409 (or, if the first has finished, gets its answer replayed), and one lead is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idempotency_key_sent_to_both_instances_at_once_stores_one_lead() {
    let database = TestDatabase::postgres().await;
    // With duplicate suppression off, only the key can keep the second request from storing.
    let off = [("ZAYAVKA_DUPLICATE_WINDOW_HOURS", "0")];
    let (a, b) =
        tokio::join!(Server::start_with(&database.url, &off), Server::start_with(&database.url, &off));
    let keys = 40;
    let mut ids_by_key = Vec::new();
    for n in 0..keys {
        let key = format!("retry-{n}");
        let body = format!(r#"{{"name":"Ключ {n}","phone":"+38067{n:07}","confirmation":"Так"}}"#);
        let headers =
            [("apikey", KEY), ("prefer", "return=representation"), ("idempotency-key", key.as_str())];
        let (first, second) = tokio::join!(
            request(a.port, "POST", "/rest/v1/CRN", &headers, &body),
            request(b.port, "POST", "/rest/v1/CRN", &headers, &body),
        );
        let mut ids = Vec::new();
        for (status, _, answer) in [first, second] {
            match status {
                201 => ids.push(serde_json::from_str::<serde_json::Value>(&answer).unwrap()[0]["id"].clone()),
                409 => assert!(answer.contains("Idempotency-Key"), "{answer}"),
                other => panic!("{key}: {other} {answer}"),
            }
        }
        assert!(!ids.is_empty(), "{key}: one of the two stores the lead");
        assert!(ids.iter().all(|id| *id == ids[0]), "{key}: a replay names the same lead: {ids:?}");
        ids_by_key.push(ids[0].clone());
    }
    let exported = a.export_jsonl().await;
    assert_eq!(exported.len(), keys, "one lead per key");
    let exported_ids: Vec<serde_json::Value> = exported.iter().map(|l| l["id"].clone()).collect();
    assert_eq!(exported_ids, ids_by_key);
}

/// An operator signs in on one instance and works on the other: sessions live in the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_made_on_one_instance_works_on_the_other() {
    let database = TestDatabase::postgres().await;
    let (a, b) = tokio::join!(Server::start(&database.url), Server::start(&database.url));
    common::add_operator(&database.url, "op@example.org", "a long enough secret").await;
    let (cookie, csrf) = common::sign_in(a.port, "op@example.org", "a long enough secret").await;

    let lead = r#"{"name":"Олена","phone":"+380671234567","confirmation":"Так"}"#;
    let (status, stored) = http(a.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
    assert_eq!(status, 201);
    let id = serde_json::from_str::<serde_json::Value>(&stored).unwrap()[0]["id"].as_i64().unwrap();

    let on_b = request(b.port, "GET", "/admin/api/session", &[("cookie", &cookie)], "").await;
    assert_eq!(on_b.0, 200, "{}", on_b.2);
    let path = format!("/admin/api/leads/{id}/attempts");
    let call = request(
        b.port,
        "POST",
        &path,
        &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        r#"{"outcome":"interested","note":""}"#,
    )
    .await;
    assert_eq!(call.0, 201, "{}", call.2);
    // Signing out on B ends the session on A too.
    let out =
        request(b.port, "POST", "/admin/api/logout", &[("cookie", &cookie), ("x-csrf-token", &csrf)], "")
            .await;
    assert_eq!(out.0, 204);
    assert_eq!(request(a.port, "GET", "/admin/api/session", &[("cookie", &cookie)], "").await.0, 401);
}

/// A script that spreads its submits over the instances behind a load balancer gains nothing:
/// on PostgreSQL the proof's phones, the client's bursts and its rate limit are counted in the
/// database, once for all instances.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_count_one_proof_one_burst_and_one_rate_limit() {
    let database = TestDatabase::postgres().await;
    let limits = [("ZAYAVKA_RATE_LIMIT_PER_MINUTE", "6"), ("ZAYAVKA_MIN_FILL_SECONDS", "0")];
    let (a, b) =
        tokio::join!(Server::start_with(&database.url, &limits), Server::start_with(&database.url, &limits));
    let proof = |port| async move {
        let (status, _, answer) = request(port, "GET", "/proof", &[], "").await;
        assert_eq!(status, 200);
        serde_json::from_str::<serde_json::Value>(&answer).unwrap()["proof"].as_str().unwrap().to_owned()
    };
    let send = |port, n: u32, proof: String| async move {
        let body = format!(r#"{{"name":"Ім'я {n}","phone":"+38067{n:07}","confirmation":"Так"}}"#);
        let headers =
            [("apikey", KEY), ("prefer", "return=representation"), ("x-zayavka-proof", proof.as_str())];
        let (status, _, answer) = request(port, "POST", "/rest/v1/CRN", &headers, &body).await;
        (status, answer)
    };
    // One page's proof, its three phones sent to A, B, A: each instance saw two at most.
    let first = proof(a.port).await;
    for (n, port) in [(1, a.port), (2, b.port), (3, a.port)] {
        assert_eq!(send(port, n, first.clone()).await.0, 201);
    }
    // A fourth phone from this client, with a page of its own, to B, which saw one.
    assert_eq!(send(b.port, 4, proof(b.port).await).await.0, 201);
    // Six a minute: the fifth and sixth pass, the seventh is refused, whichever instance it asks.
    assert_eq!(send(a.port, 5, proof(a.port).await).await.0, 201);
    assert_eq!(send(b.port, 6, proof(b.port).await).await.0, 201);
    let (status, answer) = send(a.port, 7, proof(a.port).await).await;
    assert_eq!(status, 429, "the seventh submit in a minute, the fourth to A: {answer}");

    let held: Vec<serde_json::Value> = a.export_jsonl().await.iter().map(|l| l["held"].clone()).collect();
    let reasons = |list: &[&str]| serde_json::json!(list);
    assert_eq!(held[0], serde_json::Value::Null);
    assert_eq!(held[1], serde_json::Value::Null);
    assert_eq!(held[2], reasons(&["reused_proof"]), "the proof's third phone, sent to A after B");
    assert_eq!(held[3], reasons(&["burst"]), "the client's fourth phone, sent to B");
    assert_eq!(held.len(), 6);
}

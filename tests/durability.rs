//! A 201 means the lead is on disk: kill the server with SIGKILL in the middle of a burst of
//! concurrent inserts, start it again on the same file, and find every acknowledged lead. And a
//! database that cannot take the write now says so in seconds, instead of keeping the visitor
//! waiting.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Server, TestDatabase, http};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_acknowledged_lead_survives_sigkill() {
    let database = TestDatabase::new().await;
    let database_url = database.url.clone();
    let mut server = Server::start(&database_url).await;
    let port = server.port;

    let acknowledged = Arc::new(Mutex::new(HashSet::new()));
    let mut senders = Vec::new();
    for sender in 0..32 {
        let acknowledged = acknowledged.clone();
        senders.push(tokio::spawn(async move {
            for n in 0.. {
                let name = format!("lead-{sender}-{n}");
                // A phone of its own per lead: the same phone twice would be kept as one lead.
                let phone = format!("+38067{:07}", sender * 100_000 + n);
                let body =
                    format!(r#"{{"name":"{name}","phone":"{phone}","confirmation":"Так","comment":null}}"#);
                match http(port, "POST", "/rest/v1/CRN", &body).await {
                    Ok((201, _)) => {
                        acknowledged.lock().unwrap().insert(name);
                    }
                    Ok((status, body)) => panic!("unexpected answer {status}: {body}"),
                    Err(_) => return, // the server is gone
                }
            }
        }));
    }
    // Kill once a good number of leads is acknowledged and many more are in flight.
    for _ in 0..400 {
        if acknowledged.lock().unwrap().len() >= 300 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.signal("KILL");
    server.child.wait().await.unwrap();
    for sender in senders {
        sender.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() >= 300, "only {} leads were acknowledged before the kill", acknowledged.len());

    let restarted = Server::start(&database_url).await;
    let stored: HashSet<String> =
        restarted.export_jsonl().await.iter().map(|lead| lead["name"].as_str().unwrap().to_owned()).collect();
    let lost: Vec<_> = acknowledged.difference(&stored).collect();
    assert!(lost.is_empty(), "{} acknowledged leads lost, e.g. {:?}", lost.len(), lost.first());
}

/// Someone else holds the leads table (a maintenance job, a migration): a submit waits a few
/// seconds for it, then answers 503 so the visitor's page shows the error and keeps the entries;
/// once the lock is gone the next submit is stored. Each visitor waits about 5 s, well before the
/// page's own 30 s: PostgreSQL's `lock_timeout`, and on SQLite the busy timeout counted from when
/// the write was queued, so a visitor queued behind another's waiting write does not wait 5 s more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_locked_elsewhere_answers_503_within_seconds() {
    let database = TestDatabase::new().await;
    let server = Server::start(&database.url).await;
    let lead = |phone: &str| format!(r#"{{"name":"Олена","phone":"{phone}","confirmation":"Так"}}"#);

    let lock = database.lock_leads_table().await;

    // Two visitors, the second 2 s after the first (on SQLite, queued behind the first's write).
    let submit = |phone: &'static str, after: Duration| {
        let body = lead(phone);
        async move {
            tokio::time::sleep(after).await;
            let began = Instant::now();
            let answer = http(server.port, "POST", "/rest/v1/CRN", &body).await.unwrap();
            (answer, began.elapsed())
        }
    };
    let (first, second) = tokio::join!(
        submit("+380671234567", Duration::ZERO),
        submit("+380671234569", Duration::from_secs(2))
    );
    for ((status, body), waited) in [first, second] {
        assert_eq!(status, 503, "{body}");
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["code"], "PGRST000", "{body}");
        assert!(waited < Duration::from_millis(7500), "a visitor waited {waited:?}");
    }

    lock.release().await;
    let (status, body) = http(server.port, "POST", "/rest/v1/CRN", &lead("+380671234568")).await.unwrap();
    assert_eq!(status, 201, "{body}");
    let stored = server.export_jsonl().await;
    assert_eq!(stored.len(), 1, "only the acknowledged lead: {stored:?}");
    assert_eq!(stored[0]["phone"], "+380671234568");
}

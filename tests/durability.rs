//! A 201 means the lead is on disk: kill the server with SIGKILL in the middle of a burst of
//! concurrent inserts, start it again on the same file, and find every acknowledged lead.

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

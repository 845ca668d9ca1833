//! Leads that arrive together are written together (one commit on SQLite, one transaction per
//! batch on PostgreSQL), and each request is still answered as if it had been stored alone: a lead
//! the database refuses fails alone, and one phone sent many times at once is one first lead and
//! its repeats.
//!
//! The leads table is locked while the inserts are queued, so that they wait for the writers
//! together and are taken in batches once it is released.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use common::test_app;
use zayavka::lead::NewLead;

fn lead(name: &str, phone_e164: &str, confirmation: &str) -> NewLead {
    NewLead {
        name: name.into(),
        phone: phone_e164.into(),
        phone_e164: phone_e164.into(),
        phone_in_plan: true,
        confirmation: confirmation.into(),
        comment: None,
        held: Vec::new(),
        attribution: Default::default(),
    }
}

/// Everything this test binary logs.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    #[derive(Clone)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Buffer(Arc::default());
        let logs = buffer.0.clone();
        // As `zayavka serve` logs at its most verbose: tokio-postgres (which logs query
        // parameters at debug) capped at info.
        let filter = tracing_subscriber::EnvFilter::new("trace,tokio_postgres=info");
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(move || buffer.clone()).init();
        logs
    })
    .clone()
}

/// Polls each insert once, in order: that queues it for the writer, where it waits.
async fn queue<F: Future>(inserts: Vec<F>) -> Vec<Pin<Box<F>>> {
    let mut inserts: Vec<_> = inserts.into_iter().map(Box::pin).collect();
    for insert in &mut inserts {
        tokio::select! {
            biased;
            _ = insert.as_mut() => panic!("an insert was answered while the leads table was locked"),
            _ = std::future::ready(()) => {}
        }
    }
    inserts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lead_the_database_refuses_fails_alone_and_its_neighbours_are_stored_once() {
    let logs = captured_logs();
    let app = test_app().await;
    let store = &app.state.store;
    let context = &app.state.insert_context;
    let lock = app.database.lock_leads_table().await;
    // The 13th is refused by the table itself (it allows only Так and Ні).
    let sent: Vec<NewLead> = (0..24)
        .map(|n| {
            lead(
                &format!("Сусід {n}"),
                &format!("+38067{:07}", 1000 + n),
                if n == 12 { "Може" } else { "Так" },
            )
        })
        .collect();
    let inserts = queue(sent.iter().map(|l| store.insert(vec![l.clone()], context, None)).collect()).await;
    lock.release().await;

    for (n, answer) in futures_util::future::join_all(inserts).await.into_iter().enumerate() {
        match answer {
            Ok(stored) if n != 12 => assert_eq!(stored[0].lead.name, sent[n].name),
            Err(_) if n == 12 => {}
            answer => panic!("lead {n}: {answer:?}"),
        }
    }
    let mut names: Vec<String> = app.stored().await.into_iter().map(|l| l.name).collect();
    names.sort();
    let mut expected: Vec<String> =
        sent.iter().enumerate().filter(|(n, _)| *n != 12).map(|(_, l)| l.name.clone()).collect();
    expected.sort();
    assert_eq!(names, expected, "every lead but the refused one, each once");
    // The database's refusal quotes the row; the log must not.
    let logs = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    for secret in ["Сусід 12", "0001012", "Може"] {
        assert!(!logs.contains(secret), "{secret:?} in the log:\n{logs}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_phone_sent_many_times_at_once_is_one_first_lead_and_its_repeats() {
    let app = test_app().await;
    let store = &app.state.store;
    let context = &app.state.insert_context;
    let lock = app.database.lock_leads_table().await;
    let sent = lead("Та сама", "+380671112233", "Так");
    let inserts = queue((0..40).map(|_| store.insert(vec![sent.clone()], context, None)).collect()).await;
    lock.release().await;

    let mut stored: Vec<_> =
        futures_util::future::join_all(inserts).await.into_iter().map(|a| a.unwrap().remove(0)).collect();
    stored.sort_by_key(|s| s.lead.id);
    let first = stored[0].lead.id;
    assert_eq!(stored[0].repeat_of, None, "the oldest row is the first lead");
    for later in &stored[1..] {
        assert_eq!(later.repeat_of, Some(first), "lead {} is a repeat of the first", later.lead.id);
    }
    let exported = app.stored().await;
    assert_eq!(exported.len(), 40);
    assert_eq!(exported.iter().filter(|l| l.repeat_of.is_none()).count(), 1);
}

//! Retention and erasure delete in many short writes (ADR 0029, 0046): more leads than one write
//! deletes all go, with their repeats, and nothing newer goes with them. Runs on SQLite, and on
//! PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use common::{TestApp, test_app_without_chores};
use zayavka::lead::NewLead;

/// More than two of PostgreSQL's batches of 1,000; SQLite's writes stop after 10 ms, at fewer.
const OLD_LEADS: usize = 2_500;

fn lead(name: String, phone_e164: String) -> NewLead {
    NewLead {
        name,
        phone: phone_e164.clone(),
        phone_e164,
        phone_in_plan: true,
        confirmation: "Так".into(),
        comment: None,
        held: Vec::new(),
        attribution: Default::default(),
    }
}

/// Stores `count` leads named `prefix N`, their phones taken in turn from `phones` numbers from
/// `first_phone` on (a phone sent again within the duplicate window is stored as a repeat).
async fn store_leads(app: &TestApp, prefix: &str, count: usize, first_phone: usize, phones: usize) {
    let leads: Vec<_> = (0..count)
        .map(|n| lead(format!("{prefix} {n}"), format!("+38067{:07}", first_phone + n % phones)))
        .collect();
    for request in leads.chunks(250) {
        app.state.store.insert(request.to_vec(), &app.state.insert_context, None).await.unwrap();
    }
}

#[tokio::test]
async fn a_purge_of_more_leads_than_one_batch_deletes_them_all_and_keeps_the_newer_ones() {
    let app = test_app_without_chores(|_| {}).await;
    // 1,000 people, most of them with repeats: a repeat and its first lead may fall in different
    // writes.
    store_leads(&app, "Давня", OLD_LEADS, 0, 1_000).await;
    assert!(app.stored().await.iter().any(|lead| lead.repeat_of.is_some()), "repeats are there");
    app.clock.advance_minutes(1);
    let cutoff = app.state.clock.now();
    store_leads(&app, "Недавня", 3, 5_000, 3).await;

    assert_eq!(app.state.store.purge_leads(cutoff).await.unwrap(), OLD_LEADS);

    let names: Vec<_> = app.stored().await.into_iter().map(|lead| lead.name).collect();
    assert_eq!(names, ["Недавня 0", "Недавня 1", "Недавня 2"]);
    assert_eq!(app.state.store.purge_leads(cutoff).await.unwrap(), 0, "nothing left to purge");
}

#[tokio::test]
async fn erasing_a_phone_with_more_leads_than_one_batch_deletes_every_one() {
    let app = test_app_without_chores(|_| {}).await;
    store_leads(&app, "Та сама", 1_200, 0, 1).await;
    store_leads(&app, "Інша", 2, 7_000, 2).await;

    assert_eq!(app.state.store.erase_phone("+380670000000").await.unwrap(), 1_200);

    let names: Vec<_> = app.stored().await.into_iter().map(|lead| lead.name).collect();
    assert_eq!(names, ["Інша 0", "Інша 1"]);
}

/// On PostgreSQL the hourly purge of held leads and an operator's release can cross. The purge
/// picks the lead as held, then waits for its row, which the release holds; once the release
/// commits, the lead is in the call list and must stay there, with its notification.
#[tokio::test]
async fn a_held_lead_released_while_the_purge_waits_for_it_stays() {
    let database = common::TestDatabase::postgres().await;
    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    let context = zayavka::store::InsertContext {
        channels: Vec::new().into(),
        policy_version: "policy-1".into(),
        duplicate_window: None,
    };
    let held = NewLead { held: vec!["no_proof"], ..lead("Олена".into(), "+380671234567".into()) };
    let id = store.insert(vec![held], &context, None).await.unwrap()[0].lead.id;

    let (release, connection) = tokio_postgres::connect(&database.url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    release.batch_execute("BEGIN").await.unwrap();
    release.execute("UPDATE \"CRN\" SET held = NULL WHERE id = $1", &[&id]).await.unwrap();
    let purge = tokio::spawn({
        let store = store.clone();
        async move { store.purge_held(jiff::Timestamp::now() + jiff::SignedDuration::from_hours(1)).await }
    });
    // Until the purge waits for the lead's row.
    let waiting = "SELECT count(*) FROM pg_locks WHERE NOT granted";
    while release.query_one(waiting, &[]).await.unwrap().get::<_, i64>(0) == 0 {
        assert!(!purge.is_finished(), "the purge did not wait for the row being released");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    release.batch_execute("COMMIT").await.unwrap();

    assert_eq!(purge.await.unwrap().unwrap(), 0, "released, no longer held");
    assert!(store.lead(id).await.unwrap().is_some(), "the released lead is still there");
}

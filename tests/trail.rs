//! The audit trail keeps every change an operator makes to a lead: a call, a take, a give-back, a
//! hand-over and a release are written with their entry, or not at all (ADR 0088). Here the
//! database refuses the trail's entries, as it would if it went away between the change and its
//! entry: the inbox says the change failed, and nothing of it was made. Runs on SQLite, and on
//! PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use common::{TestApp, new_lead};
use serde_json::{Value, json};
use zayavka::config::DatabaseUrl;
use zayavka::lead::NewLead;
use zayavka::team::Role;

const ADMIN: &str = "admin@example.org";
const OLENA: &str = "olena@example.org";

/// Makes the database refuse every new entry of the trail (`true`), or take them again.
async fn refuse_entries(app: &TestApp, refuse: bool) {
    let sql = match (app.database.settings_url(), refuse) {
        (DatabaseUrl::Sqlite(_), true) => {
            "CREATE TRIGGER refuse_entries BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'refused'); END;"
        }
        (DatabaseUrl::Sqlite(_), false) => "DROP TRIGGER refuse_entries;",
        (DatabaseUrl::Postgres(_), true) => {
            "CREATE OR REPLACE FUNCTION refuse_entries() RETURNS trigger LANGUAGE plpgsql AS \
             $$ BEGIN RAISE EXCEPTION 'refused'; END $$; \
             CREATE TRIGGER refuse_entries BEFORE INSERT ON audit \
             FOR EACH ROW EXECUTE FUNCTION refuse_entries();"
        }
        (DatabaseUrl::Postgres(_), false) => "DROP TRIGGER refuse_entries ON audit;",
    };
    app.database.execute(sql).await;
}

/// `path` posted with `body` while the trail refuses entries: the inbox says it could not be done.
async fn refused(app: &TestApp, who: &SignedIn, path: &str, body: Value) {
    refuse_entries(app, true).await;
    let answer = who.post(app, path, body.clone()).await;
    refuse_entries(app, false).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{path}: {}", answer.text());
}

/// The same once the trail takes entries again: done.
async fn done(app: &TestApp, who: &SignedIn, path: &str, body: Value) -> Value {
    let answer = who.post(app, path, body).await;
    assert!(answer.status.is_success(), "{path}: {}", answer.text());
    answer.json()
}

/// The actions of the trail's entries about lead `id`, oldest first.
async fn entries_about(app: &TestApp, admin: &SignedIn, id: i64) -> Vec<String> {
    let trail = admin.audit(app).await;
    let about = trail.iter().rev().filter(|entry| entry["lead_id"] == id);
    about.map(|entry| entry["action"].as_str().unwrap().to_owned()).collect()
}

async fn lead(app: &TestApp, who: &SignedIn, id: i64) -> Value {
    let answer = who.get(app, &format!("/admin/api/leads/{id}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()
}

#[tokio::test]
async fn a_change_whose_entry_cannot_be_written_is_not_made() {
    let app = common::test_app_without_chores(|_| {}).await;
    let store = &app.state.store;
    for (email, role) in [(ADMIN, Role::Admin), (OLENA, Role::Operator)] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        assert!(store.add_operator(email.into(), hash, Some(role)).await.unwrap());
    }
    let (admin, olena) = (signed_in(&app, ADMIN).await, signed_in(&app, OLENA).await);
    let context = &app.state.insert_context;
    let open = new_lead("Ганна Мельник", "+380671234567");
    let open = store.insert(vec![open], context, None).await.unwrap()[0].lead.id;
    let held = NewLead { held: vec!["no_proof"], ..new_lead("Богдан Коваль", "+380501112233") };
    let held = store.insert(vec![held], context, None).await.unwrap()[0].lead.id;
    let path = |id: i64, action: &str| format!("/admin/api/leads/{id}/{action}");

    // Taken, given back, handed over: each refused leaves the lead with whoever had it.
    refused(&app, &olena, &path(open, "take"), json!({})).await;
    assert_eq!(lead(&app, &olena, open).await["lead"]["claimed_by"], Value::Null);
    done(&app, &olena, &path(open, "take"), json!({})).await;
    refused(&app, &olena, &path(open, "give-back"), json!({})).await;
    assert_eq!(lead(&app, &olena, open).await["lead"]["claimed_by"], OLENA);
    done(&app, &olena, &path(open, "give-back"), json!({})).await;
    refused(&app, &admin, &path(open, "assign"), json!({ "email": OLENA })).await;
    assert_eq!(lead(&app, &olena, open).await["lead"]["claimed_by"], Value::Null);
    done(&app, &admin, &path(open, "assign"), json!({ "email": OLENA })).await;

    // A call refused is not logged: the lead is as new, and the same request then logs it once.
    let call = json!({ "outcome": "no_answer" });
    refused(&app, &olena, &path(open, "attempts"), call.clone()).await;
    let before = lead(&app, &olena, open).await;
    assert_eq!((&before["lead"]["status"], &before["attempts"]), (&json!("new"), &json!([])));
    let after = done(&app, &olena, &path(open, "attempts"), call).await;
    assert_eq!(after["lead"]["status"], "attempt_1");

    // A release refused leaves the lead held, out of the call list.
    refused(&app, &admin, &path(held, "release"), json!({})).await;
    assert_eq!(admin.listed(&app, "held").await, [held]);
    done(&app, &admin, &path(held, "release"), json!({})).await;
    assert_eq!(admin.listed(&app, "held").await, Vec::<i64>::new());

    // Each change that was made is in the trail once; none that was refused is.
    let opened = "opened_lead".to_owned();
    let open_entries: Vec<String> =
        entries_about(&app, &admin, open).await.into_iter().filter(|a| *a != opened).collect();
    assert_eq!(open_entries, ["took_lead", "gave_back", "handed_over", "recorded_call"]);
    assert_eq!(entries_about(&app, &admin, held).await, ["released"]);
}

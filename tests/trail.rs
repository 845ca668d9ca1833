//! The audit trail keeps every change made from the inbox or the command line: to a lead (a call,
//! a take, a give-back, a hand-over, a release), to an account, to the closed days, to a waiting
//! notification. Each is written with its entry, or not at all (ADR 0088). Here the database
//! refuses the trail's entries, as it would if it went away between the change and its entry: the
//! answer says the change failed, and nothing of it was made. Runs on SQLite, and on PostgreSQL
//! with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use common::{TestApp, new_lead};
use serde_json::{Value, json};
use zayavka::application::{Actor, accounts};
use zayavka::lead::NewLead;
use zayavka::store::FactorConfirmed;
use zayavka::team::{Action, Role};

const ADMIN: &str = "admin@example.org";
const OLENA: &str = "olena@example.org";
const PETRO: &str = "petro@example.org";

/// `path` posted with `body` while the trail refuses entries: the inbox says it could not be done.
async fn refused(app: &TestApp, who: &SignedIn, path: &str, body: Value) {
    app.database.refuse_audit_entries(true).await;
    let answer = who.post(app, path, body).await;
    app.database.refuse_audit_entries(false).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{path}: {}", answer.text());
}

/// The same once the trail takes entries again: done.
async fn done(app: &TestApp, who: &SignedIn, path: &str, body: Value) {
    let answer = who.post(app, path, body).await;
    assert!(answer.status.is_success(), "{path}: {}", answer.text());
}

/// The actions of the trail's entries about lead `id`, oldest first.
async fn entries_about(app: &TestApp, admin: &SignedIn, id: i64) -> Vec<String> {
    let trail = admin.audit(app).await;
    let about = trail.iter().rev().filter(|entry| entry["lead_id"] == id);
    about.map(|entry| entry["action"].as_str().unwrap().to_owned()).collect()
}

/// Each account's e-mail and role.
async fn roles(app: &TestApp, admin: &SignedIn) -> Vec<(String, String)> {
    let answer = admin.get(app, "/admin/api/operators").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let accounts = answer.json()["operators"].as_array().unwrap().clone();
    accounts
        .iter()
        .map(|a| (a["email"].as_str().unwrap().into(), a["role"].as_str().unwrap().into()))
        .collect()
}

/// The actions of the trail's entries, oldest first, but for reading and signing in.
async fn changes(app: &TestApp, admin: &SignedIn) -> Vec<String> {
    let trail = admin.audit(app).await;
    let actions = trail.iter().rev().map(|entry| entry["action"].as_str().unwrap().to_owned());
    actions
        .filter(|action| !["listed_leads", "opened_lead", "signed_in"].contains(&action.as_str()))
        .collect()
}

async fn lead(app: &TestApp, who: &SignedIn, id: i64) -> Value {
    let answer = who.get(app, &format!("/admin/api/leads/{id}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()
}

/// The accounts, each signed in: an admin and two operators.
async fn team(app: &TestApp) -> (SignedIn, SignedIn, SignedIn) {
    for (email, role) in [(ADMIN, Role::Admin), (OLENA, Role::Operator), (PETRO, Role::Operator)] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        common::add_account(&app.state.store, email, hash, Some(role)).await;
    }
    (signed_in(app, ADMIN).await, signed_in(app, OLENA).await, signed_in(app, PETRO).await)
}

#[tokio::test]
async fn a_change_of_a_lead_whose_entry_cannot_be_written_is_not_made() {
    let app = common::test_app_without_chores(|_| {}).await;
    let store = &app.state.store;
    let (admin, olena, _) = team(&app).await;
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
    done(&app, &olena, &path(open, "attempts"), call).await;
    assert_eq!(lead(&app, &olena, open).await["lead"]["status"], "attempt_1");

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

#[tokio::test]
async fn a_change_of_an_account_a_day_or_a_notification_whose_entry_cannot_be_written_is_not_made() {
    let app = common::test_app_without_chores(|s| {
        // Nothing sends (no chores): a lead's notification waits for an admin.
        let url = "http://127.0.0.1:9/hooks".into();
        s.notify.webhook = Some(zayavka::config::Webhook { url, secret: None });
    })
    .await;
    let store = &app.state.store;
    let (admin, _, _) = team(&app).await;
    let team_before = roles(&app, &admin).await;

    // From the inbox: an account, a role, a removal.
    let ivan = json!({ "email": "ivan@example.org", "password": PASSWORD, "role": "operator" });
    refused(&app, &admin, "/admin/api/operators", ivan.clone()).await;
    assert_eq!(roles(&app, &admin).await, team_before, "no account for Ivan");
    done(&app, &admin, "/admin/api/operators", ivan).await;
    let role = json!({ "email": PETRO, "role": "admin" });
    refused(&app, &admin, "/admin/api/operators/role", role.clone()).await;
    let petro = (PETRO.to_owned(), "operator".to_owned());
    assert!(roles(&app, &admin).await.contains(&petro), "Petro is still an operator");
    done(&app, &admin, "/admin/api/operators/role", role).await;
    refused(&app, &admin, "/admin/api/operators/remove", json!({ "email": OLENA })).await;
    assert!(roles(&app, &admin).await.iter().any(|(email, _)| email == OLENA), "Olena is still there");
    done(&app, &admin, "/admin/api/operators/remove", json!({ "email": OLENA })).await;

    // From the command line: a password, a second factor reset (the same use cases as the inbox's).
    let actor = Actor { name: "command line (root)".into(), address: None };
    let account = accounts::new_account(PETRO, "another long secret".into()).await.unwrap();
    app.database.refuse_audit_entries(true).await;
    assert!(accounts::set_password(app.state.services(), account, &actor).await.is_err());
    app.database.refuse_audit_entries(false).await;
    assert!(signed_in_as(&app, PETRO, PASSWORD).await, "the old password still holds");
    let account = accounts::new_account(PETRO, "another long secret".into()).await.unwrap();
    assert!(accounts::set_password(app.state.services(), account, &actor).await.unwrap());
    let id = store.operator(PETRO.into()).await.unwrap().unwrap().id;
    assert!(store.start_second_factor(id, "SECRET".into()).await.unwrap());
    let confirmed = FactorConfirmed {
        operator_id: id,
        secret: "SECRET".into(),
        step: 1,
        code_hashes: Vec::new(),
        session_token_hash: "none".into(),
    };
    let trail = common::by(PETRO).did(Action::SecondFactorOn, None, None);
    assert!(store.confirm_second_factor(confirmed, trail).await.unwrap());
    app.database.refuse_audit_entries(true).await;
    assert!(accounts::reset_second_factor(app.state.services(), PETRO, &actor).await.is_err());
    app.database.refuse_audit_entries(false).await;
    let factor = store.operator(PETRO.into()).await.unwrap().unwrap().totp_secret;
    assert_eq!(factor.as_deref(), Some("SECRET"), "the factor stays");
    assert!(accounts::reset_second_factor(app.state.services(), PETRO, &actor).await.unwrap());

    // A closed day, added and taken off.
    let day = zayavka::notice::operators_date(app.state.clock.now())
        .checked_add(jiff::Span::new().days(7))
        .unwrap();
    let closed = || async { admin.get(&app, "/admin/api/closed-days").await.json()["days"].to_string() };
    let none = closed().await;
    refused(&app, &admin, "/admin/api/closed-days", json!({ "day": day.to_string() })).await;
    assert_eq!(closed().await, none);
    done(&app, &admin, "/admin/api/closed-days", json!({ "day": day.to_string() })).await;
    let one = closed().await;
    assert_ne!(one, none);
    app.database.refuse_audit_entries(true).await;
    let answer = admin.delete(&app, &format!("/admin/api/closed-days/{day}")).await;
    app.database.refuse_audit_entries(false).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{}", answer.text());
    assert_eq!(closed().await, one, "the day is still closed");
    assert_eq!(
        admin.delete(&app, &format!("/admin/api/closed-days/{day}")).await.status,
        StatusCode::NO_CONTENT
    );

    // A waiting notification, sent again and dropped.
    let context = &app.state.insert_context;
    store.insert(vec![new_lead("Ганна Мельник", "+380671234567")], context, None).await.unwrap();
    let waiting = store.pending_notifications(10).await.unwrap();
    let path = |what: &str| format!("/admin/api/notifications/{}/{what}", waiting[0].id);
    // An hour on, "send again" makes it due then.
    app.clock.advance(jiff::SignedDuration::from_hours(1));
    let due = || async { store.pending_notifications(10).await.unwrap()[0].next_attempt_at.clone() };
    refused(&app, &admin, &path("send-again"), json!({})).await;
    assert_eq!(due().await, waiting[0].next_attempt_at, "not moved");
    done(&app, &admin, &path("send-again"), json!({})).await;
    assert_ne!(due().await, waiting[0].next_attempt_at, "due now");
    refused(&app, &admin, &path("drop"), json!({})).await;
    assert_eq!(store.pending_notifications(10).await.unwrap().len(), 1, "it still waits");
    done(&app, &admin, &path("drop"), json!({})).await;
    assert!(store.pending_notifications(10).await.unwrap().is_empty());

    // Each change that was made is in the trail once (the team's three accounts first); none that
    // was refused is.
    let made = [
        "added_operator",
        "added_operator",
        "added_operator",
        "added_operator",
        "changed_role",
        "removed_operator",
        "changed_password",
        "second_factor_on",
        "second_factor_reset",
        "added_closed_day",
        "removed_closed_day",
        "resent_notification",
        "dropped_notification",
    ];
    assert_eq!(changes(&app, &admin).await, made);
}

/// Whether `email` signs in with `password`.
async fn signed_in_as(app: &TestApp, email: &str, password: &str) -> bool {
    common::inbox::sign_in(app, email, password, "").await.status == StatusCode::OK
}

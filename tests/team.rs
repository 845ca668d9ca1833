//! A team behind the inbox: roles (admins manage accounts, export, erase and read the audit trail;
//! operators work leads), the last admin kept, and an append-only audit trail that names leads by
//! id only and outlives their erasure. In-process and through the `zayavka` command; runs on
//! SQLite, and on PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, sign_in, signed_in};
use serde_json::{Value, json};

const ADMIN: &str = "admin@example.org";
const OPERATOR: &str = "operator@example.org";
/// In-process requests come from 127.0.0.1; trusted as a proxy, `X-Forwarded-For` names the client.
async fn test_app() -> TestApp {
    common::test_app_with(|s| s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await
}

/// The first account (no role given) is an admin; it adds an operator through the API.
async fn team(app: &TestApp) -> (SignedIn, SignedIn) {
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, ADMIN, hash, None).await;
    let admin = signed_in(app, ADMIN).await;
    let added = admin
        .post(
            app,
            "/admin/api/operators",
            json!({ "email": OPERATOR, "password": PASSWORD, "role": "operator" }),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text());
    let operator = signed_in(app, OPERATOR).await;
    (admin, operator)
}

async fn submit(app: &TestApp, name: &str, phone: &str) -> i64 {
    let body = json!({ "name": name, "phone": phone, "confirmation": "Так", "comment": "таємний коментар" });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

#[tokio::test]
async fn an_operator_works_leads_and_only_an_admin_manages_the_team_exports_and_erases() {
    let app = test_app().await;
    let (admin, operator) = team(&app).await;
    assert_eq!(operator.get(&app, "/admin/api/session").await.json()["role"], "operator");
    assert_eq!(admin.get(&app, "/admin/api/session").await.json()["role"], "admin");
    let id = submit(&app, "Олена Коваль", "067 123 45 67").await;

    // An operator opens the lead and logs a call…
    assert_eq!(operator.get(&app, &format!("/admin/api/leads/{id}")).await.status, StatusCode::OK);
    let call = json!({ "outcome": "interested", "note": "" });
    assert_eq!(
        operator.post(&app, &format!("/admin/api/leads/{id}/attempts"), call).await.status,
        StatusCode::CREATED
    );
    // …but may not export, erase, manage accounts or read the trail.
    for path in
        ["/admin/api/export.csv", "/admin/api/export.xlsx", "/admin/api/operators", "/admin/api/audit"]
    {
        let answer = operator.get(&app, path).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{path}: {}", answer.text());
        assert!(answer.json()["error"].as_str().unwrap().contains("адміністратор"));
    }
    let erase = operator.post(&app, "/admin/api/erase", json!({ "phone": "067 123 45 67" })).await;
    assert_eq!(erase.status, StatusCode::FORBIDDEN);
    let promote =
        operator.post(&app, "/admin/api/operators/role", json!({ "email": OPERATOR, "role": "admin" })).await;
    assert_eq!(promote.status, StatusCode::FORBIDDEN);
    assert_eq!(app.stored().await.len(), 1, "nothing was erased");

    // The admin can; the list shows both accounts with their roles.
    assert_eq!(admin.get(&app, "/admin/api/export.csv").await.status, StatusCode::OK);
    assert_eq!(admin.get(&app, "/admin/api/export.xlsx").await.status, StatusCode::OK);
    let accounts = admin.get(&app, "/admin/api/operators").await.json();
    let roles: Vec<(String, String)> = accounts["operators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["email"].as_str().unwrap().to_owned(), a["role"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(roles, [(ADMIN.to_owned(), "admin".to_owned()), (OPERATOR.to_owned(), "operator".to_owned())]);
}

#[tokio::test]
async fn the_last_admin_stays_and_a_new_role_takes_effect_at_once() {
    let app = test_app().await;
    let (admin, operator) = team(&app).await;
    let demote =
        admin.post(&app, "/admin/api/operators/role", json!({ "email": ADMIN, "role": "operator" })).await;
    assert_eq!(demote.status, StatusCode::CONFLICT, "{}", demote.text());
    let remove = admin.post(&app, "/admin/api/operators/remove", json!({ "email": ADMIN })).await;
    assert_eq!(remove.status, StatusCode::CONFLICT);
    let nobody =
        admin.post(&app, "/admin/api/operators/remove", json!({ "email": "nobody@example.org" })).await;
    assert_eq!(nobody.status, StatusCode::NOT_FOUND);

    // Promoted, the operator's old session ends; signed in again, they are an admin.
    let promote =
        admin.post(&app, "/admin/api/operators/role", json!({ "email": OPERATOR, "role": "admin" })).await;
    assert_eq!(promote.status, StatusCode::OK, "{}", promote.text());
    assert_eq!(operator.get(&app, "/admin/api/session").await.status, StatusCode::UNAUTHORIZED);
    let second_admin = signed_in(&app, OPERATOR).await;
    assert_eq!(second_admin.get(&app, "/admin/api/operators").await.status, StatusCode::OK);
    // Now there are two admins, the first may step down, and then be removed.
    let demote = second_admin
        .post(&app, "/admin/api/operators/role", json!({ "email": ADMIN, "role": "operator" }))
        .await;
    assert_eq!(demote.status, StatusCode::OK);
    let remove = second_admin.post(&app, "/admin/api/operators/remove", json!({ "email": ADMIN })).await;
    assert_eq!(remove.status, StatusCode::NO_CONTENT);
    assert_eq!(sign_in(&app, ADMIN, PASSWORD, "").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_audit_trail_says_who_did_what_from_where_and_never_names_a_visitor() {
    let app = test_app().await;
    let (admin, operator) = team(&app).await;
    let id = submit(&app, "Олена Коваль", "067 123 45 67").await;
    assert_eq!(operator.get(&app, &format!("/admin/api/leads/{id}")).await.status, StatusCode::OK);
    assert_eq!(admin.get(&app, "/admin/api/export.csv").await.status, StatusCode::OK);
    let erased = admin.post(&app, "/admin/api/erase", json!({ "phone": "+380671234567" })).await;
    assert_eq!(erased.json()["erased"], 1);
    assert_eq!(sign_in(&app, OPERATOR, "a wrong password!", "").await.status, StatusCode::UNAUTHORIZED);

    let entries = admin.audit(&app).await;
    let seen: Vec<(String, String)> = entries
        .iter()
        .rev()
        .map(|e| (e["actor"].as_str().unwrap().to_owned(), e["action"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [
        ("a test", "added_operator"),
        (ADMIN, "signed_in"),
        (ADMIN, "added_operator"),
        (OPERATOR, "signed_in"),
        (OPERATOR, "opened_lead"),
        (ADMIN, "exported"),
        (ADMIN, "erased"),
        (OPERATOR, "sign_in_failed"),
    ];
    let expected: Vec<(String, String)> =
        expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(seen, expected);
    // The opened lead is named by id, and the entry outlived the lead's erasure.
    let opened = entries.iter().find(|e| e["action"] == "opened_lead").unwrap();
    assert_eq!(opened["lead_id"], id);
    assert!(app.state.store.lead(id).await.unwrap().is_none(), "the lead itself is gone");
    assert_eq!(opened["address"], "203.0.113.7", "{opened}");
    assert!(opened["at"].as_str().unwrap().ends_with('Z'));
    let text = serde_json::to_string(&entries).unwrap();
    // The phone in the forms it was typed and stored in (a bare "067" could be a timestamp's digits).
    for secret in ["Олена", "Коваль", "067 123 45 67", "+380671234567", "таємний"] {
        assert!(!text.contains(secret), "{secret:?} in the audit trail: {text}");
    }
}

#[tokio::test]
async fn the_audit_trail_cannot_be_changed_or_deleted() {
    let app = test_app().await;
    let (_admin, _operator) = team(&app).await;
    for statement in ["UPDATE audit SET actor = 'someone else'", "DELETE FROM audit"] {
        let error = app.database.try_execute(statement).await.unwrap_err();
        assert!(error.contains("append-only"), "{statement}: {error}");
    }
    let entries = app.state.store.audit_page(None, 100).await.unwrap();
    assert_eq!(entries.len(), 4, "{entries:?}");
}

#[tokio::test]
async fn the_command_line_manages_roles_and_prints_the_trail() {
    let database = common::TestDatabase::new().await;
    let cli = |args: &[&str]| {
        let mut command = common::zayavka();
        command.args(args).env("ZAYAVKA_DATABASE_URL", &database.url).env("USER", "maria");
        command
    };
    let add = |email: &'static str, role: Option<&'static str>| {
        let mut args = vec!["admin", "add-user", email, "--password-stdin"];
        if let Some(role) = role {
            args.extend(["--role", role]);
        }
        let mut command = cli(&args);
        async move {
            use tokio::io::AsyncWriteExt;
            let mut child = command
                .stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(format!("{PASSWORD}\n").as_bytes()).await.unwrap();
            let output = child.wait_with_output().await.unwrap();
            (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
        }
    };
    let (ok, said) = add(ADMIN, None).await;
    assert!(ok && said.contains("as admin"), "the first account is an admin: {said}");
    let (ok, said) = add(OPERATOR, None).await;
    assert!(ok && said.contains("as operator"), "{said}");
    let (ok, said) = add("second@example.org", Some("admin")).await;
    assert!(ok && said.contains("as admin"), "{said}");

    let run = |args: &'static [&'static str]| {
        let mut command = cli(args);
        async move {
            let output = command.output().await.unwrap();
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stdout).into_owned(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            )
        }
    };
    let (ok, _, said) = run(&["admin", "role", OPERATOR, "admin"]).await;
    assert!(ok, "{said}");
    let (ok, _, _) = run(&["admin", "remove-user", "second@example.org"]).await;
    assert!(ok);
    let (ok, users, _) = run(&["admin", "users"]).await;
    assert!(ok);
    assert!(users.contains(ADMIN) && users.contains(OPERATOR) && !users.contains("second@"), "{users}");
    assert!(users.lines().all(|l| l.starts_with("admin")), "both left are admins: {users}");
    // Two admins: one may go. Then the other is the last one and stays.
    let (ok, _, _) = run(&["admin", "remove-user", ADMIN]).await;
    assert!(ok);
    let (ok, _, said) = run(&["admin", "role", OPERATOR, "operator"]).await;
    assert!(!ok && said.contains("last admin"), "{said}");

    let (ok, trail, _) = run(&["admin", "audit", "--format", "jsonl"]).await;
    assert!(ok);
    let entries: Vec<Value> = trail.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let actions: Vec<&str> = entries.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(
        actions,
        [
            "added_operator",
            "added_operator",
            "added_operator",
            "changed_role",
            "removed_operator",
            "removed_operator"
        ],
        "oldest first: {trail}"
    );
    assert!(
        entries.iter().all(|e| e["actor"] == "command line (maria)" && e["address"].is_null()),
        "{trail}"
    );
    let (ok, text, _) = run(&["admin", "audit"]).await;
    assert!(ok && text.lines().count() == 6 && text.contains("changed_role"), "{text}");
}

#[tokio::test]
async fn reading_the_list_taking_giving_back_and_calling_are_in_the_trail_without_a_visitors_data() {
    let app = test_app().await;
    let (admin, operator) = team(&app).await;
    let first = submit(&app, "Ганна Мельник", "067 123 45 71").await;
    let second = submit(&app, "Петро Коваль", "067 123 45 72").await;
    let third = submit(&app, "Ірина Бондар", "067 123 45 73").await;

    let page = operator.get(&app, "/admin/api/leads?filter=open&limit=2").await;
    assert_eq!(page.status, StatusCode::OK);
    let searched = operator.get(&app, "/admin/api/leads?q=0671234571").await;
    assert_eq!(searched.json()["leads"].as_array().unwrap().len(), 1);
    let nothing = operator.get(&app, "/admin/api/leads?q=Нікого").await;
    assert!(nothing.json()["leads"].as_array().unwrap().is_empty());
    assert_eq!(
        operator.post(&app, &format!("/admin/api/leads/{second}/take"), json!({})).await.status,
        StatusCode::OK
    );
    let given = operator.post(&app, &format!("/admin/api/leads/{second}/give-back"), json!({})).await;
    assert_eq!(given.status, StatusCode::OK);
    let called = operator
        .post(&app, &format!("/admin/api/leads/{first}/attempts"), json!({ "outcome": "no_answer" }))
        .await;
    assert_eq!(called.status, StatusCode::CREATED);

    let trail = admin.audit(&app).await;
    let of_operator: Vec<(String, Value, Value)> = trail
        .iter()
        .filter(|e| e["actor"] == OPERATOR && e["action"] != "signed_in")
        .map(|e| (e["action"].as_str().unwrap().to_owned(), e["lead_id"].clone(), e["detail"].clone()))
        .rev()
        .collect();
    assert_eq!(
        of_operator,
        [
            ("listed_leads".to_owned(), Value::Null, json!(format!("open: {third} {second}"))),
            ("listed_leads".to_owned(), Value::Null, json!(format!("all, search by phone: {first}"))),
            ("took_lead".to_owned(), json!(second), Value::Null),
            ("gave_back".to_owned(), json!(second), Value::Null),
            ("recorded_call".to_owned(), json!(first), json!("no_answer")),
        ],
        "an empty page shows nobody and is not recorded"
    );
    let text = serde_json::to_string(&trail).unwrap();
    for secret in ["Ганна", "Мельник", "0671234571", "67 123 45 71", "Нікого", "таємний"]
    {
        assert!(!text.contains(secret), "{secret} in the trail: {text}");
    }
}

#[tokio::test]
async fn a_strangers_typed_email_cannot_forge_or_hide_lines_of_the_trail() {
    let app = test_app().await;
    let forged =
        "x@example.org\n2026-11-25T09:00:00Z  signed_in        admin@example.org\u{1b}[8m hidden \u{202e}";
    let refused = sign_in(&app, forged, "a wrong password", "").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let output = common::zayavka()
        .args(["admin", "audit"])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .output()
        .await
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one failed sign-in, one line: {text}");
    assert!(
        text.contains("sign_in_failed") && text.contains(r"x@example.org\n2026-11-25t09:00:00z"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'), "{text:?}");
    assert!(text.contains(r"\u{1b}[8m hidden \u{202e}"), "shown, not acted on: {text}");
}

/// The trail grows with every page of the list read (a year: millions of entries): the command
/// line prints it oldest first a page at a time, every entry once, in order, across pages.
#[tokio::test]
async fn the_command_line_prints_a_long_trail_in_order_a_page_at_a_time() {
    let app = test_app().await;
    app.database
        .execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500) \
             INSERT INTO audit (at, actor, action, lead_id, detail, address) \
             SELECT '2026-12-01T08:00:00Z', 'olena@example.org', 'listed_leads', NULL, 'leads ' || i, NULL FROM n",
        )
        .await;
    let output = common::zayavka()
        .args(["admin", "audit", "--format", "jsonl"])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let details: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["detail"].as_str().unwrap().to_owned())
        .collect();
    let written: Vec<String> = (1..=2500).map(|i| format!("leads {i}")).collect();
    assert_eq!(details, written);
}

/// An erase and a role change are one use case each, whichever way they are asked for:
/// from the command line they leave the same entries in the trail as from the inbox, bar who and
/// from where.
#[tokio::test]
async fn the_command_line_and_the_inbox_leave_the_same_entries_in_the_trail() {
    let app = test_app().await;
    let (admin, _) = team(&app).await;
    submit(&app, "Олена", "+380671234567").await;
    submit(&app, "Іван", "+380501234567").await;
    let cli = |args: &[&str]| {
        let mut command = common::zayavka();
        command.args(args).env("ZAYAVKA_DATABASE_URL", &app.database.url).env("USER", "ops");
        async move {
            let output = command.output().await.unwrap();
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        }
    };

    let erased = admin.post(&app, "/admin/api/erase", json!({ "phone": "067 123 45 67" })).await;
    assert_eq!(erased.status, StatusCode::OK, "{}", erased.text());
    cli(&["leads", "erase", "--phone", "050 123 45 67"]).await;
    let role = json!({ "email": OPERATOR, "role": "admin" });
    assert_eq!(admin.post(&app, "/admin/api/operators/role", role).await.status, StatusCode::OK);
    cli(&["admin", "role", OPERATOR, "operator"]).await;

    let trail = admin.audit(&app).await;
    let entries = |action: &str| -> Vec<(Value, Value, Value, Value)> {
        trail
            .iter()
            .filter(|entry| entry["action"] == action)
            .map(|e| (e["actor"].clone(), e["address"].clone(), e["lead_id"].clone(), e["detail"].clone()))
            .collect()
    };
    let inbox = (json!(ADMIN), json!("203.0.113.7"));
    let command_line = (json!("command line (ops)"), Value::Null);
    assert_eq!(
        entries("erased"),
        [
            (command_line.0.clone(), command_line.1.clone(), Value::Null, json!("1 lead(s)")),
            (inbox.0.clone(), inbox.1.clone(), Value::Null, json!("1 lead(s)")),
        ]
    );
    assert_eq!(
        entries("changed_role"),
        [
            (command_line.0, command_line.1, Value::Null, json!(format!("{OPERATOR} (operator)"))),
            (inbox.0, inbox.1, Value::Null, json!(format!("{OPERATOR} (admin)"))),
        ]
    );
}

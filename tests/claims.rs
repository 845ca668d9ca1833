//! Who calls whom: an operator takes a lead before calling, the others see who has it and cannot
//! take it; the claim ends with their call or when its time is up; admins hand leads over; new
//! leads may be handed out in turn; the figures per source and per operator. Runs on SQLite, and
//! on PostgreSQL with ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{Answer, TestApp};
use serde_json::{Value, json};
use zayavka::config::Assign;

const ADMIN: &str = "admin@example.org";
const OLENA: &str = "olena@example.org";
const PETRO: &str = "petro@example.org";
const PASSWORD: &str = "a long enough secret";

struct SignedIn {
    cookie: String,
    csrf: String,
}

impl SignedIn {
    async fn get(&self, app: &TestApp, path: &str) -> Answer {
        let request = Request::get(path).header("cookie", &self.cookie).body(Body::empty()).unwrap();
        app.call(request).await
    }

    async fn post(&self, app: &TestApp, path: &str, body: Value) -> Answer {
        let request = Request::post(path)
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        app.call(request).await
    }

    async fn take(&self, app: &TestApp, id: i64) -> Answer {
        self.post(app, &format!("/admin/api/leads/{id}/take"), json!({})).await
    }

    /// The ids a list filter shows this operator.
    async fn listed(&self, app: &TestApp, filter: &str) -> Vec<i64> {
        let answer = self.get(app, &format!("/admin/api/leads?filter={filter}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["leads"].as_array().unwrap().iter().map(|l| l["id"].as_i64().unwrap()).collect()
    }

    async fn lead(&self, app: &TestApp, id: i64) -> Value {
        let answer = self.get(app, &format!("/admin/api/leads/{id}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["lead"].clone()
    }
}

async fn sign_in(app: &TestApp, email: &str) -> SignedIn {
    let request = Request::post("/admin/api/login")
        .header("content-type", "application/json")
        .body(Body::from(json!({ "email": email, "password": PASSWORD }).to_string()))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let cookie = answer.header("set-cookie").split(';').next().unwrap().to_owned();
    SignedIn { cookie, csrf: answer.json()["csrf_token"].as_str().unwrap().to_owned() }
}

/// An admin and two operators, each signed in.
async fn team(app: &TestApp) -> (SignedIn, SignedIn, SignedIn) {
    for (email, role) in [(ADMIN, "admin"), (OLENA, "operator"), (PETRO, "operator")] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        let role = zayavka::team::Role::from_name(role);
        common::add_account(&app.state.store, email, hash, role).await;
    }
    (sign_in(app, ADMIN).await, sign_in(app, OLENA).await, sign_in(app, PETRO).await)
}

/// Sends a lead as the site does; its id, once a round-robin hand-out (which runs after the
/// answer) is done.
async fn submit(app: &TestApp, lead: Value) -> i64 {
    let answer = app.insert(&lead.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    app.state.hand_outs.settled().await;
    answer.json()[0]["id"].as_i64().unwrap()
}

fn person(phone: &str) -> Value {
    json!({ "name": "Ганна Мельник", "phone": phone, "confirmation": "Так" })
}

async fn call(app: &TestApp, who: &SignedIn, id: i64, outcome: &str) {
    let answer =
        who.post(app, &format!("/admin/api/leads/{id}/attempts"), json!({ "outcome": outcome })).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
}

#[tokio::test]
async fn one_operator_takes_a_lead_and_the_other_sees_who_and_cannot_take_it() {
    let app = common::test_app_with(|s| s.claim_minutes = 20).await;
    let (_admin, olena, petro) = team(&app).await;
    let id = submit(&app, person("067 123 45 67")).await;
    assert_eq!(petro.listed(&app, "free").await, [id]);

    let taken = olena.take(&app, id).await;
    assert_eq!(taken.status, StatusCode::OK, "{}", taken.text());
    let lead = &taken.json()["lead"];
    assert_eq!(lead["claimed_by"], OLENA);
    let until: jiff::Timestamp = lead["claimed_until"].as_str().unwrap().parse().unwrap();
    assert_eq!(until.duration_since(app.state.clock.now()), jiff::SignedDuration::from_mins(20));

    // Petro sees who has it, and cannot take it.
    assert_eq!(petro.lead(&app, id).await["claimed_by"], OLENA);
    let refused = petro.take(&app, id).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.json()["error"], "Цю заявку вже взяв інший оператор.");
    let given = petro.post(&app, &format!("/admin/api/leads/{id}/give-back"), json!({})).await;
    assert_eq!(given.status, StatusCode::CONFLICT);
    assert_eq!(given.json()["error"], "Ця заявка не у вас.");
    assert!(petro.listed(&app, "free").await.is_empty());
    assert!(petro.listed(&app, "mine").await.is_empty());
    assert_eq!(olena.listed(&app, "mine").await, [id]);
    assert_eq!(petro.listed(&app, "all").await, [id], "the whole list still shows it");
    assert_eq!(olena.take(&app, id).await.status, StatusCode::OK, "taking it again is harmless");

    // Her call ends the claim: the lead is free for the next try, by anyone.
    call(&app, &olena, id, "no_answer").await;
    assert_eq!(olena.lead(&app, id).await["claimed_by"], Value::Null);
    assert_eq!(petro.listed(&app, "free").await, [id]);

    // Petro takes it and leaves it; when his time is up it is free again without a call.
    assert_eq!(petro.take(&app, id).await.status, StatusCode::OK);
    assert_eq!(olena.take(&app, id).await.status, StatusCode::CONFLICT);
    app.clock.advance_minutes(19);
    assert_eq!(olena.take(&app, id).await.status, StatusCode::CONFLICT, "his 20 minutes are not up");
    app.clock.advance_minutes(1);
    assert_eq!(olena.lead(&app, id).await["claimed_by"], Value::Null);
    assert_eq!(olena.listed(&app, "free").await, [id]);
    assert!(petro.listed(&app, "mine").await.is_empty());
    assert_eq!(olena.take(&app, id).await.status, StatusCode::OK);

    // A lead whose call reached the person is closed: nothing to take.
    call(&app, &olena, id, "interested").await;
    let closed = petro.take(&app, id).await;
    assert_eq!(closed.status, StatusCode::CONFLICT);
    assert_eq!(closed.json()["error"], "Ця заявка вже закрита.");
    assert!(olena.listed(&app, "mine").await.is_empty(), "mine and free hold open leads only");
    assert_eq!(petro.take(&app, 999_999).await.status, StatusCode::NOT_FOUND);
    let unknown = petro.get(&app, "/admin/api/leads?filter=someone").await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
}

/// Only a lead of the call list is handed over, as only one is taken: a held lead is released
/// first, and a repeat's calls go on the person's first lead, which is the one to hand over.
#[tokio::test]
async fn a_held_lead_or_a_repeat_is_not_handed_over() {
    let app = common::test_app().await;
    let (admin, ..) = team(&app).await;
    // No Ukrainian line starts 00: held as an impossible number.
    let held = submit(&app, person("+380001234567")).await;
    let first = submit(&app, person("067 123 45 69")).await;
    let repeat = submit(&app, person("067 123 45 69")).await;
    assert_eq!(admin.lead(&app, repeat).await["repeat_of"], first);

    let assign = |id: i64| {
        let path = format!("/admin/api/leads/{id}/assign");
        let admin = &admin;
        let app = &app;
        async move { admin.post(app, &path, json!({ "email": OLENA })).await }
    };
    let refused = assign(held).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text());
    assert!(refused.json()["error"].as_str().unwrap().contains("на перевірці"), "{}", refused.text());
    let refused = assign(repeat).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text());
    assert!(
        refused.json()["error"].as_str().unwrap().contains("передайте першу заявку"),
        "{}",
        refused.text()
    );
    for id in [held, repeat] {
        assert_eq!(admin.lead(&app, id).await["claimed_by"], Value::Null, "nobody has it");
    }
    assert_eq!(assign(first).await.status, StatusCode::OK);
}

#[tokio::test]
async fn an_admin_hands_a_lead_over_and_an_operator_gives_back_their_own() {
    let app = common::test_app().await;
    let (admin, olena, petro) = team(&app).await;
    let id = submit(&app, person("067 123 45 68")).await;
    let path = format!("/admin/api/leads/{id}/assign");

    let refused = olena.post(&app, &path, json!({ "email": OLENA })).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.json()["error"], "Це може зробити лише адміністратор.");
    let nobody = admin.post(&app, &path, json!({ "email": "ghost@example.org" })).await;
    assert_eq!(nobody.status, StatusCode::BAD_REQUEST);
    assert_eq!(nobody.json()["error"], "Такого облікового запису немає.");

    let handed = admin.post(&app, &path, json!({ "email": PETRO })).await;
    assert_eq!(handed.status, StatusCode::OK, "{}", handed.text());
    assert_eq!(handed.json()["lead"]["claimed_by"], PETRO);
    assert_eq!(handed.json()["lead"]["claimed_until"], Value::Null, "a lead handed over has no end");
    assert_eq!(petro.listed(&app, "mine").await, [id]);
    assert_eq!(olena.take(&app, id).await.status, StatusCode::CONFLICT);
    let his = petro.take(&app, id).await;
    assert_eq!(his.json()["lead"]["claimed_until"], Value::Null, "taking it keeps it his, with no end");
    // His call leaves it his; he gives it back.
    call(&app, &petro, id, "no_answer").await;
    assert_eq!(petro.lead(&app, id).await["claimed_by"], PETRO);
    let given = petro.post(&app, &format!("/admin/api/leads/{id}/give-back"), json!({})).await;
    assert_eq!(given.status, StatusCode::OK, "{}", given.text());
    assert_eq!(given.json()["lead"]["claimed_by"], Value::Null);
    assert_eq!(olena.listed(&app, "free").await, [id]);

    // Handed to Olena, then back to the pool by the admin; removing an account frees its leads.
    assert_eq!(admin.post(&app, &path, json!({ "email": OLENA })).await.status, StatusCode::OK);
    assert_eq!(
        admin.post(&app, &path, json!({ "email": null })).await.json()["lead"]["claimed_by"],
        Value::Null
    );
    assert_eq!(admin.post(&app, &path, json!({ "email": OLENA })).await.status, StatusCode::OK);
    let removed = admin.post(&app, "/admin/api/operators/remove", json!({ "email": OLENA })).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT, "{}", removed.text());
    assert_eq!(petro.listed(&app, "free").await, [id]);
    // The hand-overs are in the audit trail, naming the lead by id.
    let trail = admin.get(&app, "/admin/api/audit").await.json();
    let handed: Vec<(String, i64)> = trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "handed_over")
        .map(|e| (e["detail"].as_str().unwrap().to_owned(), e["lead_id"].as_i64().unwrap()))
        .collect();
    let to = |who: &str| (who.to_owned(), id);
    let (to_olena, to_petro) = (format!("{OLENA} (operator)"), format!("{PETRO} (operator)"));
    assert_eq!(handed, [to(&to_olena), to("pool"), to(&to_olena), to(&to_petro)], "newest first");
}

#[tokio::test]
async fn a_held_lead_cannot_be_taken_until_it_is_released() {
    let app = common::test_app_with(|s| s.hold_without_proof = true).await;
    let (_admin, olena, _petro) = team(&app).await;
    let id = submit(&app, person("067 123 45 69")).await;
    let refused = olena.take(&app, id).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.json()["error"], "Ця заявка на перевірці: спершу передайте її в роботу.");
    let released = olena.post(&app, &format!("/admin/api/leads/{id}/release"), json!({})).await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text());
    assert_eq!(olena.take(&app, id).await.status, StatusCode::OK);
}

#[tokio::test]
async fn round_robin_hands_new_leads_in_turn_to_the_signed_in_operators() {
    let app = common::test_app_with(|s| s.assign = Assign::RoundRobin).await;
    let (admin, olena, petro) = team(&app).await;
    let mut ids = Vec::new();
    for phone in ["067 000 00 01", "067 000 00 02", "067 000 00 03"] {
        ids.push(submit(&app, person(phone)).await);
    }
    let holders: Vec<Value> = {
        let mut holders = Vec::new();
        for id in &ids {
            holders.push(admin.lead(&app, *id).await["claimed_by"].clone());
        }
        holders
    };
    // Operators only (not the admin), in turn.
    assert_eq!(holders, [json!(OLENA), json!(PETRO), json!(OLENA)]);
    assert_eq!(olena.listed(&app, "mine").await, [ids[2], ids[0]]);
    assert_eq!(petro.listed(&app, "mine").await, [ids[1]]);
    assert!(admin.listed(&app, "free").await.is_empty());

    // A repeat of a person is not a new lead to call; a signed-out operator gets none.
    let repeat = submit(&app, person("067 000 00 01")).await;
    assert_eq!(admin.lead(&app, repeat).await["claimed_by"], Value::Null);
    let out = olena.post(&app, "/admin/api/logout", json!({})).await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    let next = submit(&app, person("067 000 00 04")).await;
    let after = submit(&app, person("067 000 00 05")).await;
    assert_eq!(admin.lead(&app, next).await["claimed_by"], PETRO);
    assert_eq!(admin.lead(&app, after).await["claimed_by"], PETRO);
}

#[tokio::test]
async fn round_robin_passes_over_an_operator_away_from_the_inbox_for_an_hour() {
    let app = common::test_app_with(|s| s.assign = Assign::RoundRobin).await;
    let (admin, olena, petro) = team(&app).await;
    let holder = async |phone: &str| {
        let id = submit(&app, person(phone)).await;
        admin.lead(&app, id).await["claimed_by"].clone()
    };
    // Both signed in (sessions last a week) but away from the inbox for over an hour: the lead
    // waits in the pool, where everyone sees it.
    app.clock.advance_minutes(61);
    assert_eq!(holder("067 000 00 11").await, Value::Null);

    // Petro comes back to the inbox: new leads are his, not Olena's.
    assert_eq!(petro.get(&app, "/admin/api/session").await.status, StatusCode::OK);
    assert_eq!(holder("067 000 00 12").await, PETRO);
    assert_eq!(holder("067 000 00 13").await, PETRO);

    // Then Olena: the two take turns again.
    assert_eq!(olena.get(&app, "/admin/api/leads").await.status, StatusCode::OK);
    assert_eq!(holder("067 000 00 14").await, OLENA);
    assert_eq!(holder("067 000 00 15").await, PETRO);
}

#[tokio::test]
async fn round_robin_passes_over_an_operator_who_must_first_set_up_the_second_factor() {
    let app = common::test_app_with(|s| {
        s.assign = Assign::RoundRobin;
        s.require_2fa = true;
    })
    .await;
    let (_admin, olena, _petro) = team(&app).await;
    // Signed in and at work, but the inbox opens no lead for them until they set it up.
    let id = submit(&app, person("067 000 00 21")).await;
    assert_eq!(app.state.store.lead(id).await.unwrap().unwrap().claim, None);
    let refused = olena.get(&app, &format!("/admin/api/leads/{id}")).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_figures_per_source_and_per_operator() {
    let app = common::test_app().await;
    let (admin, olena, petro) = team(&app).await;
    let with = |phone: &str, extra: Value| {
        let mut lead = person(phone);
        lead.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        lead
    };
    let facebook = submit(&app, with("067 111 00 01", json!({ "utm_source": "facebook" }))).await;
    submit(
        &app,
        with("067 111 00 02", json!({ "utm_source": "facebook", "referrer": "https://m.facebook.com/" })),
    )
    .await;
    let google =
        submit(&app, with("067 111 00 03", json!({ "referrer": "https://www.google.com/search?q=x" }))).await;
    submit(&app, person("067 111 00 04")).await;

    call(&app, &olena, facebook, "no_answer").await;
    call(&app, &olena, facebook, "interested").await;
    call(&app, &petro, google, "unreachable").await;

    let figures = admin.get(&app, "/admin/api/stats/breakdown").await;
    assert_eq!(figures.status, StatusCode::OK, "{}", figures.text());
    let figures = figures.json();
    assert_eq!(
        figures["sources"],
        json!([
            { "source": "facebook", "leads": 2, "reached": 1 },
            { "source": null, "leads": 1, "reached": 0 },
            { "source": "www.google.com", "leads": 1, "reached": 0 },
        ])
    );
    assert_eq!(
        figures["operators"],
        json!([
            { "email": ADMIN, "calls": 0, "reached": 0 },
            { "email": OLENA, "calls": 2, "reached": 1 },
            { "email": PETRO, "calls": 1, "reached": 0 },
        ])
    );
    // An operator sees their own figures only.
    let own = petro.get(&app, "/admin/api/stats/breakdown").await.json();
    assert_eq!(own["operators"], json!([{ "email": PETRO, "calls": 1, "reached": 0 }]));
    assert_eq!(own["sources"], figures["sources"]);
}

#[tokio::test]
async fn a_first_lead_is_answered_before_it_is_handed_out_so_its_timing_tells_nothing() {
    // On PostgreSQL a test can hold the turn's row locked: the hand-out then waits, and the
    // answer must not. (Answering only after the hand-out, a first lead took one committed write
    // longer than a repeat, and the time told whether the phone had applied before.)
    let database = common::TestDatabase::postgres().await;
    let mut settings = zayavka::config::Settings::defaults();
    settings.database_url = database.settings_url();
    settings.anon_key = Some(common::KEY.to_owned());
    settings.rate_limit_per_minute = 0;
    settings.hold_without_proof = false;
    settings.assign = Assign::RoundRobin;
    let (clock, hand) = zayavka::clock::Clock::manual(jiff::Timestamp::now());
    let store = zayavka::store::Store::open(&settings.database_url).await.unwrap().with_clock(clock);
    let state = zayavka::http::AppState::new(settings, store).await.unwrap();
    let app = TestApp { router: zayavka::app::app(state.clone()), state, database, clock: hand };
    let (_admin, _olena, _petro) = team(&app).await;

    let (holder, connection) =
        tokio_postgres::connect(&app.database.url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    holder
        .batch_execute(
            "BEGIN; INSERT INTO zayavka_meta (key, value) VALUES ('assign_turn', '0') ON CONFLICT (key) DO NOTHING; \
             SELECT value FROM zayavka_meta WHERE key = 'assign_turn' FOR UPDATE;",
        )
        .await
        .unwrap();
    // The store waits 5 s for a lock before giving up: an answer that waited for the hand-out
    // would come only then.
    let answer = tokio::time::timeout(
        std::time::Duration::from_millis(2500),
        app.insert(&person("067 000 00 31").to_string(), "return=representation"),
    )
    .await
    .expect("the answer does not wait for the hand-out");
    assert_eq!(answer.status, StatusCode::CREATED);
    let id = answer.json()[0]["id"].as_i64().unwrap();
    assert_eq!(app.state.store.lead(id).await.unwrap().unwrap().claim, None, "still waiting for its turn");

    holder.batch_execute("COMMIT").await.unwrap();
    app.state.hand_outs.settled().await;
    assert!(
        app.state.store.lead(id).await.unwrap().unwrap().claim.is_some(),
        "handed out once the turn is free"
    );
}

#[tokio::test]
async fn a_lead_released_from_the_command_line_is_handed_out_in_turn_as_from_the_inbox() {
    let app = common::test_app_with(|s| {
        s.assign = Assign::RoundRobin;
        s.hold_without_proof = true;
    })
    .await;
    let (admin, _olena, _petro) = team(&app).await;
    let from_inbox = submit(&app, person("067 000 00 41")).await;
    let from_command_line = submit(&app, person("067 000 00 42")).await;
    assert_eq!(admin.lead(&app, from_command_line).await["claimed_by"], Value::Null, "held: nobody's");

    let released = admin.post(&app, &format!("/admin/api/leads/{from_inbox}/release"), json!({})).await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text());
    let output = common::zayavka()
        .args(["leads", "release", &from_command_line.to_string()])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .env("ZAYAVKA_ASSIGN", "round-robin")
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    // The two releases took turns: one lead each, as two releases in the inbox would.
    let holders = [
        admin.lead(&app, from_inbox).await["claimed_by"].clone(),
        admin.lead(&app, from_command_line).await["claimed_by"].clone(),
    ];
    assert_eq!(holders, [json!(OLENA), json!(PETRO)]);
    let lead = admin.lead(&app, from_command_line).await;
    assert!(lead["next_call_at"].is_string(), "due for a call: {lead}");
}

//! The second factor: an operator sets up an authenticator app (the code from it confirms it and
//! gives recovery codes, shown once); from then on signing in asks for a code, each code works
//! once, a recovery code works once, wrong codes count against the login limit and, from any
//! address, against the account (a refusal that grows, and a notice to the team), a setting makes
//! it required, `zayavka admin reset-2fa` clears a lost phone's, and the database keeps the
//! secrets encrypted with a key kept outside it. Runs on SQLite, and on PostgreSQL with
//! ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, sign_in, sign_in_from, signed_in, signed_in_with};
use common::receivers::{HttpReceiver, Reply};
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use zayavka::auth::second_factor::{CODE_LIMIT, code_step};
use zayavka::auth::secret_key::SecretKey;
use zayavka::http::AppState;
use zayavka::notice::Channel;
use zayavka::store::Store;

const EMAIL: &str = "olena@example.org";

async fn app_with_operator(require_2fa: bool) -> TestApp {
    let app = common::test_app_with(|s| {
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        s.require_2fa = require_2fa;
    })
    .await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, EMAIL, hash, None).await;
    app
}

/// The code an authenticator app with this secret shows `seconds_from_now` by the app's clock.
fn app_code(app: &TestApp, secret: &str, seconds_from_now: i64) -> String {
    let totp = totp_rs::Builder::new()
        .with_secret(totp_rs::Secret::try_from_base32(secret).unwrap())
        .build()
        .unwrap();
    totp.generate((app.state.clock.now().as_second() + seconds_from_now) as u64).to_string()
}

struct Factor {
    secret: String,
    /// The code that confirmed it: its time step is spent.
    first_code: String,
    recovery_codes: Vec<String>,
}

/// Sets the factor up through the API as the inbox does.
async fn set_up(app: &TestApp, operator: &SignedIn) -> Factor {
    let started = operator.post(app, "/admin/api/second-factor/start", json!({})).await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.text());
    let started = started.json();
    let secret = started["secret"].as_str().unwrap().to_owned();
    assert!(started["uri"].as_str().unwrap().starts_with("otpauth://totp/zayavka:"));
    assert!(started["qr"].as_str().unwrap().starts_with("data:image/svg+xml;base64,"));
    let first_code = app_code(app, &secret, 0);
    let confirmed =
        operator.post(app, "/admin/api/second-factor/confirm", json!({ "code": first_code })).await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    let recovery_codes = confirmed.json()["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    Factor { secret, first_code, recovery_codes }
}

/// The factor and its entry in the audit trail are written together (ADR 0088): a confirmation
/// whose entry cannot be written leaves the factor off, and the same code then turns it on with
/// its recovery codes shown.
#[tokio::test]
async fn a_factor_whose_audit_entry_cannot_be_written_stays_off() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    let started = operator.post(&app, "/admin/api/second-factor/start", json!({})).await;
    let code = app_code(&app, started.json()["secret"].as_str().unwrap(), 0);
    app.database.refuse_audit_entries(true).await;
    let refused = operator.post(&app, "/admin/api/second-factor/confirm", json!({ "code": code })).await;
    app.database.refuse_audit_entries(false).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE, "{}", refused.text());
    let account = app.state.store.operator(EMAIL.into()).await.unwrap().unwrap();
    assert_eq!(account.totp_secret, None, "still off");

    let confirmed = operator.post(&app, "/admin/api/second-factor/confirm", json!({ "code": code })).await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text());
    assert_eq!(confirmed.json()["recovery_codes"].as_array().unwrap().len(), 10);
    let trail = app.state.store.audit_page(None, 10).await.unwrap();
    let on = trail.iter().filter(|entry| entry.action == "second_factor_on").count();
    assert_eq!(on, 1);
}

#[tokio::test]
async fn once_set_up_signing_in_asks_for_a_code_and_each_code_works_once() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    let session = operator.get(&app, "/admin/api/session").await.json();
    assert_eq!(session["second_factor"], json!({ "on": false, "required": false }));

    // A wrong first code does not turn it on.
    operator.post(&app, "/admin/api/second-factor/start", json!({})).await;
    let wrong = operator.post(&app, "/admin/api/second-factor/confirm", json!({ "code": "000000" })).await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(wrong.json()["error"].as_str().unwrap().contains("Код не підходить"));
    assert_eq!(sign_in(&app, EMAIL, PASSWORD, "").await.status, StatusCode::OK, "still the password alone");

    let Factor { secret, first_code, recovery_codes: codes } = set_up(&app, &operator).await;
    assert_eq!(codes.len(), 10);
    let again = operator.post(&app, "/admin/api/second-factor/start", json!({})).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "set up already: a new secret needs reset-2fa");
    let status = operator.get(&app, "/admin/api/second-factor").await.json();
    assert_eq!(status, json!({ "on": true, "required": false, "recovery_codes_left": 10 }));
    let accounts = operator.get(&app, "/admin/api/operators").await.json();
    assert_eq!(accounts["operators"][0]["second_factor"], true, "the team page shows it: {accounts}");

    // The password alone: asked for the code, no session.
    let asked = sign_in(&app, EMAIL, PASSWORD, "").await;
    assert_eq!(asked.status, StatusCode::UNAUTHORIZED);
    assert_eq!(asked.json()["code_required"], true);
    assert!(asked.header("set-cookie").is_empty());
    // A wrong password with a right code is refused as any wrong password.
    let wrong_password = sign_in(&app, EMAIL, "not the password", &app_code(&app, &secret, 30)).await;
    assert_eq!(wrong_password.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong_password.json()["code_required"], Value::Null);

    // The code that confirmed it is spent; a later one (the phone's clock a little ahead, within
    // one step) works, once. (From another address: this one has used its five tries at once.)
    let elsewhere = "198.51.100.9";
    assert_eq!(
        sign_in_from(&app, elsewhere, EMAIL, PASSWORD, &first_code).await.status,
        StatusCode::UNAUTHORIZED
    );
    let code = app_code(&app, &secret, 30);
    let signed = signed_in_with(&app, elsewhere, EMAIL, &code).await;
    let session = signed.get(&app, "/admin/api/session").await.json();
    assert_eq!(session["second_factor"]["on"], true);
    let replayed = sign_in_from(&app, elsewhere, EMAIL, PASSWORD, &code).await;
    assert_eq!(replayed.status, StatusCode::UNAUTHORIZED, "a code seen once is no good to whoever saw it");
    assert_eq!(replayed.json()["code_required"], true);

    // A recovery code, typed from paper in capitals with a space, works once.
    let typed = codes[3].to_uppercase().replace('-', " ");
    let another = "192.0.2.44";
    signed_in_with(&app, another, EMAIL, &typed).await;
    assert_eq!(sign_in_from(&app, another, EMAIL, PASSWORD, &typed).await.status, StatusCode::UNAUTHORIZED);
    let status = signed.get(&app, "/admin/api/second-factor").await.json();
    assert_eq!(status["recovery_codes_left"], 9);

    // The audit trail says what happened, and never a code.
    let trail: Vec<(String, String)> = app
        .state
        .store
        .audit_page(None, 100)
        .await
        .unwrap()
        .iter()
        .map(|e| (e.action.clone(), e.detail.clone().unwrap_or_default()))
        .collect();
    assert!(trail.contains(&("second_factor_on".into(), String::new())), "{trail:?}");
    assert!(trail.contains(&("sign_in_failed".into(), "wrong second-factor code".into())), "{trail:?}");
    assert!(trail.contains(&("signed_in".into(), "with a recovery code, 9 left".into())), "{trail:?}");
    let stored = format!("{trail:?}");
    assert!(!codes.iter().any(|c| stored.contains(c.as_str())) && !stored.contains(&code));
}

#[tokio::test]
async fn wrong_codes_count_against_the_login_limit() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    set_up(&app, &operator).await;
    // The sign-in above was one of the five an address may make at once.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(sign_in(&app, EMAIL, PASSWORD, "123456").await.status);
    }
    assert_eq!(statuses[..4], [StatusCode::UNAUTHORIZED; 4]);
    assert_eq!(
        statuses[4],
        StatusCode::TOO_MANY_REQUESTS,
        "a guesser of codes is slowed like one of passwords"
    );
}

#[tokio::test]
async fn when_required_an_operator_without_it_may_only_set_it_up() {
    let app = app_with_operator(true).await;
    let operator = signed_in(&app, EMAIL).await;
    let session = operator.get(&app, "/admin/api/session").await.json();
    assert_eq!(session["second_factor"], json!({ "on": false, "required": true }));
    for path in ["/admin/api/leads", "/admin/api/stats"] {
        let refused = operator.get(&app, path).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{path}");
        assert_eq!(refused.json()["second_factor_required"], true);
        assert_eq!(refused.json()["error"], "Спершу увімкніть двоетапну перевірку.");
    }
    set_up(&app, &operator).await;
    assert_eq!(
        operator.get(&app, "/admin/api/leads").await.status,
        StatusCode::OK,
        "the same session, now set up"
    );
}

#[tokio::test]
async fn reset_2fa_clears_a_lost_phones_factor_and_ends_the_sessions() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    let factor = set_up(&app, &operator).await;

    let output = common::zayavka()
        .args(["admin", "reset-2fa", "Olena@Example.org"])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .env("USER", "maria")
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("second factor of olena@example.org is off"), "{said}");

    assert_eq!(operator.get(&app, "/admin/api/session").await.status, StatusCode::UNAUTHORIZED);
    let signed = signed_in(&app, EMAIL).await;
    assert_eq!(signed.get(&app, "/admin/api/session").await.json()["second_factor"]["on"], false);
    assert_eq!(
        sign_in(&app, EMAIL, PASSWORD, &factor.recovery_codes[0]).await.status,
        StatusCode::OK,
        "the code is ignored: the account has no second factor now"
    );
    assert_ne!(set_up(&app, &signed).await.secret, factor.secret);

    let trail = app.state.store.audit_page(None, 100).await.unwrap();
    let reset = trail.iter().find(|e| e.action == "second_factor_reset").expect("the reset is in the trail");
    assert_eq!((reset.actor.as_str(), reset.detail.as_deref()), ("command line (maria)", Some(EMAIL)));

    let unknown = common::zayavka()
        .args(["admin", "reset-2fa", "nobody@example.org"])
        .env("ZAYAVKA_DATABASE_URL", &app.database.url)
        .output()
        .await
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("there is no operator nobody@example.org"));
}

#[tokio::test]
async fn a_session_that_never_passed_the_factor_does_not_get_in_once_it_is_required_and_on() {
    let app = app_with_operator(true).await;
    // A stranger with the password only: the leads are refused (set the factor up first).
    let stranger = signed_in_with(&app, "198.51.100.66", EMAIL, "").await;
    assert_eq!(stranger.get(&app, "/admin/api/leads").await.status, StatusCode::FORBIDDEN);
    // The owner turns the factor on from another session.
    let owner = signed_in(&app, EMAIL).await;
    set_up(&app, &owner).await;
    assert_eq!(owner.get(&app, "/admin/api/leads").await.status, StatusCode::OK);
    // The stranger's session ended with it: waiting did not get it past the factor.
    assert_eq!(stranger.get(&app, "/admin/api/leads").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(stranger.get(&app, "/admin/api/session").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn sessions_made_before_the_factor_was_turned_on_end() {
    let app = app_with_operator(false).await;
    let laptop = signed_in(&app, EMAIL).await;
    let phone = signed_in_with(&app, "198.51.100.67", EMAIL, "").await;
    set_up(&app, &phone).await;
    assert_eq!(laptop.get(&app, "/admin/api/leads").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        phone.get(&app, "/admin/api/leads").await.status,
        StatusCode::OK,
        "the session that set it up"
    );
}

#[tokio::test]
async fn a_session_is_no_session_once_its_account_has_a_factor_it_did_not_pass() {
    let app = app_with_operator(false).await;
    let before = signed_in(&app, EMAIL).await;
    // The factor turned on by another way than the inbox (an older version, a restored backup):
    // the session recorded that it did not pass one.
    app.database.execute("UPDATE operators SET totp_secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'").await;
    assert_eq!(before.get(&app, "/admin/api/session").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_right_password_without_a_code_is_in_the_trail() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    set_up(&app, &operator).await;
    let asked = sign_in_from(&app, "198.51.100.68", EMAIL, PASSWORD, "").await;
    assert_eq!(asked.json()["code_required"], true);
    let trail = operator.audit(&app).await;
    let newest = &trail[0];
    assert_eq!(
        (&newest["action"], &newest["actor"], &newest["detail"], &newest["address"]),
        (
            &json!("sign_in_failed"),
            &json!(EMAIL),
            &json!("right password, no second-factor code"),
            &json!("198.51.100.68")
        )
    );
}

/// Six digits that are none of the codes the app shows around now.
fn wrong_code(app: &TestApp, secret: &str) -> String {
    let right: Vec<String> = [-60, -30, 0, 30, 60].iter().map(|s| app_code(app, secret, *s)).collect();
    (0..).map(|n| format!("{:06}", 100_000 + n)).find(|code| !right.contains(code)).unwrap()
}

#[tokio::test]
async fn wrong_codes_from_many_networks_refuse_the_accounts_codes_for_a_while_and_tell_the_team() {
    let webhook = HttpReceiver::start(Reply::status(200)).await;
    let app = common::test_app_with(|s| {
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        s.notify.webhook = Some(zayavka::config::Webhook { url: webhook.url("/hooks"), secret: None });
    })
    .await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, EMAIL, hash, None).await;
    let operator = signed_in(&app, EMAIL).await;
    let Factor { secret, .. } = set_up(&app, &operator).await;

    // Wrong passwords do not count against the account: anyone may type them.
    for network in 1..=6 {
        let client = format!("198.18.{network}.1");
        let refused = sign_in_from(&app, &client, EMAIL, "not the password", "").await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    }
    // Six wrong codes after the right password, each from a network of its own (within every
    // per-address and per-network limit).
    let wrong = wrong_code(&app, &secret);
    let mut statuses = Vec::new();
    for network in 11..=16 {
        let client = format!("198.18.{network}.1");
        statuses.push(sign_in_from(&app, &client, EMAIL, PASSWORD, &wrong).await.status);
    }
    assert_eq!(statuses[..4], [StatusCode::UNAUTHORIZED; 4], "{statuses:?}");
    assert_eq!(statuses[4..], [StatusCode::TOO_MANY_REQUESTS; 2], "the fifth wrong code in a row refuses");

    // The right code, from yet another network, is refused too, with when it works again.
    let right = app_code(&app, &secret, 30);
    let refused = sign_in_from(&app, "198.18.21.1", EMAIL, PASSWORD, &right).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "{}", refused.text());
    let retry_after: u64 = refused.header("retry-after").parse().unwrap();
    assert!((14 * 60..=15 * 60).contains(&retry_after), "{retry_after}");
    let said = refused.json()["error"].as_str().unwrap().to_owned();
    let operator_id = app.state.store.operator(EMAIL.into()).await.unwrap().unwrap().id;
    let until =
        app.state.store.codes_refused_until(operator_id, app.state.clock.now()).await.unwrap().unwrap();
    let until_in_kyiv = until.to_zoned(zayavka::notice::operators_zone()).strftime("%H:%M").to_string();
    assert!(said.contains("призупинено до") && said.contains(&until_in_kyiv), "{said}");

    // The team hears of it once, without the account's full address or any code.
    let notices =
        webhook.wait_for("the account notice", std::time::Duration::from_secs(10), |r| !r.is_empty()).await;
    let notice = notices[0].json();
    assert_eq!(notice["event"], "account.codes_refused", "{notice}");
    assert_eq!(notice["account"], "o…@example.org", "{notice}");
    assert!(notice["text"].as_str().unwrap().contains(&until_in_kyiv), "{notice}");
    let sent = String::from_utf8_lossy(&notices[0].body).into_owned();
    assert!(!sent.contains(EMAIL) && !sent.contains(&wrong) && !sent.contains(&right), "{sent}");

    // A minute before the refusal ends, still refused; once it has passed, the right code signs in.
    app.clock.advance(until.duration_since(app.state.clock.now()) - SignedDuration::from_mins(1));
    let early = sign_in_from(&app, "198.18.22.1", EMAIL, PASSWORD, &app_code(&app, &secret, 0)).await;
    assert_eq!(early.status, StatusCode::TOO_MANY_REQUESTS, "{}", early.text());
    app.clock.advance_minutes(1);
    signed_in_with(&app, "198.18.22.1", EMAIL, &app_code(&app, &secret, 0)).await;
    assert_eq!(webhook.requests().len(), 1, "one notice for one run of wrong codes");
}

#[tokio::test]
async fn a_refusal_is_kept_in_the_database_and_grows_with_each_run() {
    let app = app_with_operator(false).await;
    let store = &app.state.store;
    let id = store.operator(EMAIL.into()).await.unwrap().unwrap().id;
    let channels: std::sync::Arc<[Channel]> = std::sync::Arc::from([]);
    // To the microsecond, as both engines keep times.
    let now = Timestamp::from_microsecond(Timestamp::now().as_microsecond()).unwrap();
    for _ in 1..CODE_LIMIT.in_a_row {
        assert_eq!(store.code_failed(id, now, CODE_LIMIT, channels.clone()).await.unwrap(), None);
    }
    let until = store.code_failed(id, now, CODE_LIMIT, channels.clone()).await.unwrap().unwrap();
    assert_eq!(until, now + SignedDuration::from_mins(15));

    // Another store on the same database (a restart, a second instance) sees the same refusal.
    let other = Store::open(&app.state.settings.database_url).await.unwrap();
    let minutes = |m: i64| now + SignedDuration::from_mins(m);
    assert!(other.codes_refused_until(id, minutes(14)).await.unwrap().is_some_and(|t| t == until));
    assert_eq!(other.codes_refused_until(id, minutes(15)).await.unwrap(), None);

    // The next run, after it, refuses for twice as long; a right code starts the count afresh.
    let later = minutes(16);
    for _ in 1..CODE_LIMIT.in_a_row {
        assert_eq!(other.code_failed(id, later, CODE_LIMIT, channels.clone()).await.unwrap(), None);
    }
    let until = other.code_failed(id, later, CODE_LIMIT, channels.clone()).await.unwrap().unwrap();
    assert_eq!(until, later + SignedDuration::from_mins(30));
    assert!(store.use_code_step(id, 1).await.unwrap());
    for _ in 1..CODE_LIMIT.in_a_row {
        assert_eq!(store.code_failed(id, later, CODE_LIMIT, channels.clone()).await.unwrap(), None);
    }
    let until = store.code_failed(id, later, CODE_LIMIT, channels.clone()).await.unwrap().unwrap();
    assert_eq!(until, later + SignedDuration::from_mins(15), "back to the first refusal");
    other.close().await;
}

/// The same database under a new `AppState`, as after a restart, with these settings.
async fn restarted(app: TestApp, settings: zayavka::config::Settings) -> TestApp {
    app.state.store.close().await;
    let TestApp { database, clock, .. } = app;
    let store = Store::open(&settings.database_url).await.unwrap().with_clock(clock.clock());
    let state = AppState::new(settings, store).await.unwrap();
    TestApp { router: zayavka::app::app(state.clone()), state, database, clock }
}

#[tokio::test]
async fn the_database_keeps_second_factor_secrets_encrypted_with_a_key_kept_outside_it() {
    let app = app_with_operator(false).await;
    let operator = signed_in(&app, EMAIL).await;
    let Factor { secret, .. } = set_up(&app, &operator).await;

    // The row holds neither the base32 secret nor anything that gives codes.
    let row = app.state.store.operator(EMAIL.into()).await.unwrap().unwrap().totp_secret.unwrap();
    assert!(row.starts_with("v1:") && !row.contains(&secret), "{row}");
    assert_eq!(code_step(&row, &app_code(&app, &secret, 0), app.state.clock.now()), None);
    let nonce_and_ciphertext = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, &row[3..]);
    assert!(nonce_and_ciphertext.is_ok_and(|bytes| bytes.len() == 12 + 32 + 16), "{row}");

    // A copy of the database without the key file gives no codes: it does not start, nor with
    // another deployment's key, and the row does not open with another key.
    let settings = app.state.settings.as_ref().clone();
    let elsewhere = app.database.dir.path().join("elsewhere").join("secret.key");
    let mut without_key = settings.clone();
    without_key.secret_key_file = Some(elsewhere.clone());
    let store = Store::open(&settings.database_url).await.unwrap();
    let refused =
        AppState::new(without_key.clone(), store.clone()).await.err().expect("no start without the key");
    assert!(refused.to_string().contains("is missing"), "{refused}");
    assert!(!elsewhere.exists(), "no new key made while the secrets need the old one");
    let other_key = SecretKey::load_or_create(&elsewhere, true).unwrap();
    let refused = AppState::new(without_key, store.clone()).await.err().expect("no start with another key");
    assert!(refused.to_string().contains("does not open"), "{refused}");
    assert_eq!(other_key.open(1, &row), None);
    store.close().await;

    // After a restart with the key, codes still sign in.
    let app = restarted(app, settings.clone()).await;
    signed_in_with(&app, "198.51.100.31", EMAIL, &app_code(&app, &secret, 30)).await;

    // A secret kept in plain text by an earlier version still works, and the start encrypts it.
    let plain = zayavka::auth::second_factor::new_secret();
    app.database
        .execute(&format!("UPDATE operators SET totp_secret = '{plain}', totp_last_step = NULL"))
        .await;
    let app = restarted(app, settings).await;
    let row = app.state.store.operator(EMAIL.into()).await.unwrap().unwrap().totp_secret.unwrap();
    assert!(row.starts_with("v1:") && !row.contains(&plain), "{row}");
    signed_in_with(&app, "198.51.100.32", EMAIL, &app_code(&app, &plain, 0)).await;
}

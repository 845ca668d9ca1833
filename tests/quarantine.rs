//! Held, never dropped: a submission that looks automated is stored outside the call list, with
//! the reasons, not notified, until a person releases or erases it. The visitor's answer is the
//! same either way. People (a quick one included) are never held; scripts that do not drive a
//! browser almost always are.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestApp, test_app_with, test_app_without_chores};
use serde_json::json;

use zayavka::config::Settings;
use zayavka::team::Action;

/// The defaults a deployment runs with (the test helpers turn the proof rule and the volume checks
/// off for other tests), and a webhook so that notifications are queued.
fn defaults(s: &mut Settings) {
    let d = Settings::defaults();
    s.hold_without_proof = d.hold_without_proof;
    s.rate_limit_per_minute = d.rate_limit_per_minute;
    s.min_fill_seconds = d.min_fill_seconds;
    s.notify.webhook = Some(zayavka::config::Webhook { url: "http://127.0.0.1:9/hook".into(), secret: None });
}

fn lead(name: &str, phone: &str) -> String {
    json!({ "name": name, "phone": phone, "confirmation": "Так", "comment": null }).to_string()
}

/// A proof as `GET /proof` hands it out, issued `seconds_ago`.
fn proof(app: &TestApp, seconds_ago: i64) -> String {
    app.state.proof_key.issue(app.state.clock.unix_seconds() - seconds_ago)
}

/// `POST /rest/v1/CRN` with extra headers, asking for the stored row back.
async fn insert(app: &TestApp, body: &str, headers: &[(&str, &str)]) -> common::Answer {
    let mut all = vec![("prefer", "return=representation")];
    all.extend_from_slice(headers);
    app.insert_with(body, &all).await
}

/// Where the lead the answer names ended up: `None` in the call list, else the held reasons.
async fn held_of(app: &TestApp, answer: &common::Answer) -> Option<Vec<String>> {
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let id = answer.json()[0]["id"].as_i64().unwrap();
    app.stored().await.into_iter().find(|l| l.id == id).expect("stored").held
}

async fn outbox_rows(app: &TestApp) -> i64 {
    app.state.store.outbox_queues().await.unwrap().iter().map(|q| q.waiting).sum()
}

type Headers<'a> = &'a [(&'a str, &'a str)];
/// The headers a script sends with its `n`th lead.
type HeadersOf = fn(&TestApp, u32) -> Vec<(String, String)>;

fn codes(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|c| c.to_string()).collect())
}

#[tokio::test]
async fn a_script_that_never_loaded_the_page_is_stored_held_and_not_notified() {
    let app = test_app_with(defaults).await;
    let answer = insert(&app, &lead("Бот", "067 123 45 01"), &[]).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["no_proof"]));
    assert_eq!(outbox_rows(&app).await, 0, "a held lead is not notified");
    // Not in the call list, its figures or its 48-hour clock; counted as held.
    let stats = app.state.store.counts(zayavka::store::CountsAt {
        overdue_before: jiff::Timestamp::now() + jiff::SignedDuration::from_hours(1),
        window_start: jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1),
    });
    let stats = stats.await.unwrap();
    assert_eq!((stats.held, stats.open, stats.overdue, stats.due), (1, 0, 0, 0));
}

#[tokio::test]
async fn a_forged_or_expired_proof_holds_the_lead() {
    let app = test_app_with(defaults).await;
    let forged =
        format!("{}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", app.state.clock.unix_seconds() - 60);
    let answer = insert(&app, &lead("Бот", "067 123 45 02"), &[("x-zayavka-proof", &forged)]).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["forged_proof"]));
    // A forged cookie (the old unsigned timestamp, say) is no better.
    let answer = insert(&app, &lead("Бот", "067 123 45 03"), &[("cookie", "zayavka_proof=1000")]).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["forged_proof"]));
    let expired = proof(&app, 25 * 3600);
    let answer = insert(&app, &lead("Бот", "067 123 45 04"), &[("x-zayavka-proof", &expired)]).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["expired_proof"]));
}

#[tokio::test]
async fn a_person_with_a_proof_goes_to_the_call_list_even_when_quick() {
    let app = test_app_with(defaults).await;
    let answer =
        insert(&app, &lead("Олена", "067 123 45 05"), &[("x-zayavka-proof", &proof(&app, 40))]).await;
    assert_eq!(held_of(&app, &answer).await, None);
    assert_eq!(outbox_rows(&app).await, 1, "notified");
    // Autofill and send within a second: speed alone never holds a lead.
    let quick = insert(&app, &lead("Іван", "067 123 45 06"), &[("x-zayavka-proof", &proof(&app, 1))]).await;
    assert_eq!(held_of(&app, &quick).await, None);
    // The cookie the page set works as the header does.
    let cookie = format!("zayavka_proof={}", proof(&app, 30));
    let answer = insert(&app, &lead("Марко", "067 123 45 07"), &[("cookie", &cookie)]).await;
    assert_eq!(held_of(&app, &answer).await, None);
}

#[tokio::test]
async fn signals_a_person_does_not_give_hold_the_lead_with_their_reasons() {
    let app = test_app_with(defaults).await;
    let quick = [proof(&app, 1), proof(&app, 1), proof(&app, 1)];
    let cases: [(Headers, &str, &[&str]); 3] = [
        (
            &[("x-zayavka-proof", &quick[0]), ("x-zayavka-flags", "honeypot")],
            "067 123 45 11",
            &["too_fast", "honeypot"],
        ),
        (
            &[("x-zayavka-proof", &quick[1]), ("x-zayavka-flags", "webdriver")],
            "067 123 45 12",
            &["too_fast", "automation"],
        ),
        (
            &[
                ("x-zayavka-proof", &quick[2]),
                ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0"),
            ],
            "067 123 45 13",
            &["too_fast", "automation"],
        ),
    ];
    for (headers, phone, reasons) in cases {
        let answer = insert(&app, &lead("Хтось", phone), headers).await;
        assert_eq!(held_of(&app, &answer).await, codes(reasons), "{phone}");
    }
    // No Ukrainian line starts 00 (a fourth phone from this client would also be a burst).
    let other_client = test_app_with(defaults).await;
    let answer = insert(
        &other_client,
        &lead("Хтось", "+380001234567"),
        &[("x-zayavka-proof", &proof(&other_client, 60))],
    )
    .await;
    assert_eq!(held_of(&other_client, &answer).await, codes(&["impossible_number"]));
    assert_eq!(outbox_rows(&app).await, 0);
    let metrics = app.get("/metrics").await.text();
    assert!(metrics.contains("zayavka_leads_held_total{reason=\"automation\"} 2"), "{metrics}");
    let metrics = other_client.get("/metrics").await.text();
    assert!(metrics.contains("zayavka_leads_held_total{reason=\"impossible_number\"} 1"), "{metrics}");
}

#[tokio::test]
async fn the_answer_is_the_same_whether_or_not_the_lead_was_held() {
    let app = test_app_with(defaults).await;
    let person =
        insert(&app, &lead("Олена", "067 123 45 21"), &[("x-zayavka-proof", &proof(&app, 60))]).await;
    let script = insert(&app, &lead("Олена", "067 123 45 22"), &[]).await;
    assert_eq!(held_of(&app, &person).await, None);
    assert!(held_of(&app, &script).await.is_some());
    assert_eq!(person.status, script.status);
    let keys = |a: &common::Answer| a.json()[0].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&person), keys(&script));
    let names = |a: &common::Answer| a.headers.keys().map(|k| k.to_string()).collect::<Vec<_>>();
    assert_eq!(names(&person), names(&script));
}

#[tokio::test]
async fn a_burst_from_one_client_or_one_name_is_held_past_the_third_phone() {
    let app = test_app_with(defaults).await;
    let good = proof(&app, 60);
    let mut held = Vec::new();
    for n in 0..6 {
        let answer = insert(
            &app,
            &lead(&format!("Ім'я {n}"), &format!("06712346{n:02}")),
            &[("x-zayavka-proof", &good)],
        )
        .await;
        // One proof for every lead, as a script would replay it.
        held.push(held_of(&app, &answer).await);
    }
    assert_eq!(&held[..2], &[None, None]);
    assert_eq!(held[2], codes(&["reused_proof"]), "a third phone on one page's proof");
    assert_eq!(held[3], codes(&["reused_proof", "burst"]));

    // The same person sending twice is no burst and no reuse.
    let again = test_app_with(defaults).await;
    let proof_again = proof(&again, 60);
    for _ in 0..3 {
        let answer =
            insert(&again, &lead("Олена", "067 123 45 31"), &[("x-zayavka-proof", &proof_again)]).await;
        assert_eq!(held_of(&again, &answer).await, None);
    }
}

/// A name's count takes anyone's submissions: three with a common name from a script (no proof)
/// must not hold the real people of that name who come next with their page's proof. Without a
/// proof, a fourth phone under one name is still a burst.
#[tokio::test]
async fn a_script_sending_a_common_name_does_not_hold_the_people_of_that_name() {
    let app = test_app_with(|s| {
        defaults(s);
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    for n in 0..3 {
        let client = format!("198.51.100.{}", n + 1);
        insert(&app, &lead("Олена", &format!("067 123 46 7{n}")), &[("x-forwarded-for", &client)]).await;
    }
    let good = proof(&app, 60);
    let headers = [("x-forwarded-for", "198.51.100.20"), ("x-zayavka-proof", good.as_str())];
    let person = insert(&app, &lead("Олена", "067 123 46 80"), &headers).await;
    assert_eq!(held_of(&app, &person).await, None, "a person with the page's proof");
    let script = insert(&app, &lead("Олена", "067 123 46 81"), &[("x-forwarded-for", "198.51.100.21")]).await;
    assert_eq!(held_of(&app, &script).await, codes(&["no_proof", "burst"]));
}

#[tokio::test]
async fn without_the_proof_rule_a_lead_is_weighed_by_the_other_signals() {
    let app = test_app_with(|s| {
        defaults(s);
        s.hold_without_proof = false;
    })
    .await;
    let answer = insert(&app, &lead("Олена", "067 123 45 41"), &[]).await;
    assert_eq!(held_of(&app, &answer).await, None, "a supabase-js site sends only the key");
    let answer = insert(&app, &lead("Бот", "067 123 45 42"), &[("x-zayavka-flags", "honeypot")]).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["no_proof", "honeypot"]));
}

#[tokio::test]
async fn the_form_without_javascript_carries_the_pages_proof_and_a_filled_honeypot_is_held() {
    let app = test_app_with(defaults).await;
    // The landing page hands out the proof in a cookie.
    let page = app.get("/").await;
    let set_cookie = page.header("set-cookie").to_owned();
    assert!(set_cookie.starts_with("zayavka_proof=") && set_cookie.contains("HttpOnly"), "{set_cookie}");
    let cookie = set_cookie.split(';').next().unwrap().to_owned();

    let form = |body: &str, cookie: Option<&str>| {
        let mut request = Request::post("/leads").header("content-type", "application/x-www-form-urlencoded");
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        request.body(Body::from(body.to_owned())).unwrap()
    };
    let person = "name=Olena&phone=0671234551&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on";
    let answer = app.call(form(person, Some(&cookie))).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    let stored = app.stored().await;
    assert_eq!(stored.last().unwrap().held, None, "sent at once after loading: quick, not held");

    let bot = "name=Bot&phone=0671234552&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on&website=spam.example";
    let answer = app.call(form(bot, Some(&cookie))).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "the same answer as a person's");
    assert_eq!(app.stored().await.last().unwrap().held, codes(&["too_fast", "honeypot"]));

    let answer =
        app.call(form("name=Bot&phone=0671234553&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on", None)).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.last().unwrap().held, codes(&["no_proof"]));
    assert_eq!(app.stored().await.len(), 3, "nothing that passed validation was dropped");
}

/// The value of the landing page's proof field, as the answer's encoding carried it.
fn proof_field_of(answer: &common::Answer) -> String {
    use std::io::Read;
    let mut html = Vec::new();
    match answer.header("content-encoding") {
        "br" => brotli::BrotliDecompress(&mut &answer.body[..], &mut html).unwrap(),
        "gzip" => _ = flate2::read::GzDecoder::new(&answer.body[..]).read_to_end(&mut html).unwrap(),
        _ => html = answer.body.to_vec(),
    }
    let html = String::from_utf8(html).unwrap();
    let field = r#"<input type="hidden" form="lead-form" name="zayavka_proof" value=""#;
    let at = html.find(field).expect("the landing page carries the form's proof field") + field.len();
    html[at..].split('"').next().unwrap().to_owned()
}

/// A browser that keeps no cookie and runs no script: the landing page writes its proof into the
/// form, in every encoding, and the form sends it back (ADR 0066).
#[tokio::test]
async fn a_browser_that_keeps_no_cookie_sends_the_proof_the_page_wrote_into_the_form() {
    let app = test_app_with(defaults).await;
    let mut proofs = Vec::new();
    for encoding in ["br", "gzip", "identity"] {
        let page = app
            .call(Request::get("/").header("accept-encoding", encoding).body(Body::empty()).unwrap())
            .await;
        assert_eq!(page.status, StatusCode::OK);
        let proof = proof_field_of(&page);
        let cookie = page.header("set-cookie").split(';').next().unwrap().to_owned();
        assert_eq!(cookie, format!("zayavka_proof={proof}"), "the form's proof is the cookie's");
        proofs.push(proof);
    }
    // A visitor whose cookie came back gets the same proof in the form: the fill time still counts.
    let again = app
        .call(
            Request::get("/")
                .header("cookie", format!("zayavka_proof={}", proofs[0]))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(proof_field_of(&again), proofs[0]);
    assert_eq!(again.headers.get("set-cookie"), None);

    let form = |body: String| {
        Request::post("/leads")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap()
    };
    let fields = |phone: &str, proof: &str| {
        format!("name=Olena&phone={phone}&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on&zayavka_proof={proof}")
    };
    app.clock.advance_minutes(1);
    let answer = app.call(form(fields("0671234561", &proofs[1]))).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.last().unwrap().held, None, "a person without cookies is called");

    // A refused form carries the visitor's proof on to the next try.
    let refused = app.call(form("name=&phone=0671234562&zayavka_proof=".to_owned() + &proofs[2])).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(proof_field_of(&refused), proofs[2]);

    let answer = app.call(form(fields("0671234563", "1000.AAAA.BBBB"))).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.last().unwrap().held, codes(&["forged_proof"]));
    let answer = app.call(form(fields("0671234564", ""))).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.last().unwrap().held, codes(&["no_proof"]));
}

/// A cookie left from an earlier day does not outweigh the page's fresh proof in the form.
#[tokio::test]
async fn a_stale_cookie_does_not_outweigh_the_fresh_proof_in_the_form() {
    let app = test_app_with(defaults).await;
    let fresh = proof_field_of(&app.get("/").await);
    app.clock.advance_minutes(1);
    let body = format!(
        "name=Olena&phone=0671234571&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on&zayavka_proof={fresh}"
    );
    let request = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", format!("zayavka_proof={}", proof(&app, 2 * 24 * 3600)))
        .body(Body::from(body))
        .unwrap();
    assert_eq!(app.call(request).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.last().unwrap().held, None);
}

/// A copy of the landing page revalidated within the half-day it was served in is reused (304);
/// after it, the page comes anew, so a proof in a reused copy is never past its day.
#[tokio::test]
async fn a_revalidated_landing_page_never_holds_a_proof_past_its_day() {
    let app = test_app_with(defaults).await;
    let page = app.get("/").await;
    let etag = page.header("etag").to_owned();
    let revalidate = || Request::get("/").header("if-none-match", &etag).body(Body::empty()).unwrap();
    assert_eq!(app.call(revalidate()).await.status, StatusCode::NOT_MODIFIED);
    app.clock.advance_hours(12);
    let fresh = app.call(revalidate()).await;
    assert_eq!(fresh.status, StatusCode::OK);
    let proof = proof_field_of(&fresh);
    assert!(matches!(
        app.state.proof_key.check(Some(&proof), app.state.clock.unix_seconds()),
        zayavka::abuse::ProofCheck::Valid { age_seconds: 0 }
    ));
}

#[tokio::test]
async fn proof_is_served_to_any_origin_and_never_cached() {
    let app = test_app_with(defaults).await;
    let answer = app.get("/proof").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("access-control-allow-origin"), "*");
    assert_eq!(answer.header("cache-control"), "no-store");
    let proof = answer.json()["proof"].as_str().unwrap().to_owned();
    let sent = insert(&app, &lead("Олена", "067 123 45 61"), &[("x-zayavka-proof", &proof)]).await;
    assert_eq!(held_of(&app, &sent).await, None);
}

#[tokio::test]
async fn a_released_lead_joins_the_call_list_and_is_notified_once() {
    let app = test_app_with(defaults).await;
    let answer = insert(&app, &lead("Олена", "067 123 45 71"), &[]).await;
    let id = answer.json()[0]["id"].as_i64().unwrap();
    assert_eq!(outbox_rows(&app).await, 0);
    let channels = app.state.insert_context.channels.clone();
    assert!(
        app.state
            .store
            .release(id, channels.clone(), None, common::trail("admin@example.org", Action::Released, id))
            .await
            .unwrap()
    );
    assert_eq!(app.stored().await[0].held, None);
    assert_eq!(outbox_rows(&app).await, 1);
    assert!(
        !app.state
            .store
            .release(id, channels, None, common::trail("admin@example.org", Action::Released, id))
            .await
            .unwrap(),
        "a lead in the call list is not held"
    );
    assert_eq!(outbox_rows(&app).await, 1, "notified once");
}

/// A person whose first message was held, and who then wrote as people do, has a lead of the call
/// list. Releasing the held message must not give the desk a second lead to call them by: it
/// joins the open lead as its repeat, and whoever holds that lead is told the person wrote again
/// (ADR 0085). Released by the use case the inbox and `zayavka leads release` call.
#[tokio::test]
async fn a_held_lead_released_beside_the_persons_open_lead_is_its_repeat() {
    let app = test_app_with(defaults).await;
    let held = insert(&app, &lead("Олена", "067 123 45 72"), &[]).await;
    assert!(held_of(&app, &held).await.is_some(), "no proof: held");
    let held = held.json()[0]["id"].as_i64().unwrap();
    let open = insert(&app, &lead("Олена", "067 123 45 72"), &[("x-zayavka-proof", &proof(&app, 30))]).await;
    assert_eq!(held_of(&app, &open).await, None);
    let open = open.json()[0]["id"].as_i64().unwrap();
    let store = &app.state.store;
    common::add_account(store, "olena@example.org", "hash".into(), None).await;
    let operator = store.operator("olena@example.org".into()).await.unwrap().unwrap().id;
    let now = app.state.clock.now();
    assert!(
        store
            .take(
                open,
                operator,
                now + jiff::SignedDuration::from_mins(30),
                now,
                common::trail("olena@example.org", Action::TookLead, open)
            )
            .await
            .unwrap()
    );
    assert_eq!(outbox_rows(&app).await, 1, "the open lead's announcement");

    let actor = zayavka::application::Actor { name: "admin@example.org".into(), address: None };
    assert!(zayavka::application::leads::release(app.state.services(), held, &actor).await.unwrap());
    let released = app.stored().await.into_iter().find(|l| l.id == held).unwrap();
    assert_eq!((released.held, released.repeat_of, released.next_call_at), (None, Some(open), None));
    let due = store.due_leads(app.state.clock.now(), 10).await.unwrap();
    assert_eq!(due.iter().map(|l| l.id).collect::<Vec<_>>(), [open], "one lead to call the person by");
    let pending = store.pending_notifications(10).await.unwrap();
    let mut events: Vec<_> = pending.iter().map(|n| (n.lead_id, n.event.name())).collect();
    events.sort_unstable();
    assert_eq!(events, [(open, "new"), (open, "wrote_again")], "no second announcement");
}

#[tokio::test]
async fn held_leads_nobody_released_are_purged_after_their_days() {
    // The hourly purge's first run comes at start: without it, this test's run is the only one.
    let app = test_app_without_chores(defaults).await;
    insert(&app, &lead("Бот", "067 123 45 81"), &[]).await; // held: no page-load proof
    let kept = insert(&app, &lead("Олена", "067 123 45 82"), &[("x-zayavka-proof", &proof(&app, 60))]).await;
    let kept = kept.json()[0]["id"].as_i64().unwrap();
    app.clock.advance_hours(31 * 24);
    let cutoff = app.state.clock.now() - jiff::SignedDuration::from_hours(30 * 24);
    assert_eq!(app.state.store.purge_held(cutoff).await.unwrap(), 1);
    assert_eq!(app.stored().await.iter().map(|l| l.id).collect::<Vec<_>>(), vec![kept]);
}

/// Flows of scripts that do not drive a browser, each as many times as the README's table says;
/// how many of their leads reach the call list (the README quotes the result). 200 submissions
/// from one /64 in a minute go through the rate limit too.
#[tokio::test]
async fn scripts_that_do_not_drive_a_browser_rarely_reach_the_call_list() {
    let app = test_app_with(defaults).await;
    let mut stored = 0;
    let mut called = 0;
    let mut note = |held: Option<Vec<String>>| {
        stored += 1;
        if held.is_none() {
            called += 1;
        }
    };
    // Each flow from an address of its own (the in-process app sees every request from one
    // address unless a trusted proxy names another; here a fresh app per flow does that).
    let flows: [(&str, HeadersOf); 5] = [
        ("no page load", |_, _| vec![]),
        ("forged proof", |_, _| vec![("x-zayavka-proof".into(), "1000.AAAA".into())]),
        ("expired proof", |app, _| vec![("x-zayavka-proof".into(), proof(app, 2 * 24 * 3600))]),
        ("replayed proof", |app, _| vec![("x-zayavka-proof".into(), proof_once(app))]),
        ("honeypot filled at once", |app, _| {
            vec![("x-zayavka-proof".into(), proof(app, 0)), ("x-zayavka-flags".into(), "honeypot".into())]
        }),
    ];
    for (flow, headers_of) in flows {
        let app = test_app_with(defaults).await;
        for n in 0..20u32 {
            let headers = headers_of(&app, n);
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let answer = insert(&app, &lead("Bot", &format!("0673{n:06}")), &headers).await;
            if answer.status == StatusCode::CREATED {
                note(held_of(&app, &answer).await);
            }
        }
        eprintln!("{flow}: done");
    }
    // Random digits after +380, with a valid proof each (a script that loads the page first).
    for n in 0..40u32 {
        let digits = format!("{:09}", (u64::from(n) * 7_919_117 + 12_345) % 1_000_000_000);
        let answer =
            insert(&app, &lead("Bot", &format!("+380{digits}")), &[("x-zayavka-proof", &proof(&app, 60))])
                .await;
        if answer.status == StatusCode::CREATED {
            note(held_of(&app, &answer).await);
        }
    }
    eprintln!("scripts: {called} of {stored} stored leads in the call list");
    assert!(called * 20 <= stored, "at most 5 %: {called} of {stored}");
}

/// One proof per app, as a script that loaded the page once replays it.
fn proof_once(app: &TestApp) -> String {
    static ISSUED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<usize, String>>> =
        std::sync::OnceLock::new();
    let key = std::ptr::addr_of!(*app) as usize;
    ISSUED.get_or_init(Default::default).lock().unwrap().entry(key).or_insert_with(|| proof(app, 60)).clone()
}

/// 200 submissions in a minute from addresses of one IPv6 /64 (one host), each after loading the
/// page: the rate limit stores 60, and of those only the first three phones reach the call list.
#[tokio::test]
async fn two_hundred_submissions_from_one_64_in_a_minute_are_limited_and_then_held_as_a_burst() {
    let app = test_app_with(|s| {
        defaults(s);
        // The in-process app has no peer address: a trusted proxy names each request's client.
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    let (mut stored, mut limited, mut called) = (0, 0, 0);
    for n in 0..200u32 {
        let client = format!("2001:db8:1:2::{:x}", n + 1);
        let proof = proof(&app, 60);
        let headers = [("x-forwarded-for", client.as_str()), ("x-zayavka-proof", proof.as_str())];
        let answer = insert(&app, &lead(&format!("Ім'я {n}"), &format!("0675{n:06}")), &headers).await;
        match answer.status {
            StatusCode::CREATED => {
                stored += 1;
                if held_of(&app, &answer).await.is_none() {
                    called += 1;
                }
            }
            StatusCode::TOO_MANY_REQUESTS => limited += 1,
            other => panic!("{other}: {}", answer.text()),
        }
    }
    eprintln!("one /64: {stored} stored, {limited} limited, {called} in the call list");
    assert_eq!((stored, limited, called), (60, 140, 3));
}

/// The page script's proof of work for `proof`: the first counter that is (as `web/src/api/proof.ts`
/// finds it).
fn work_for(proof: &str) -> String {
    (0u64..).map(|n| n.to_string()).find(|work| zayavka::abuse::work_done(proof, work)).unwrap()
}

/// Scripts that do fetch `/proof` (a real GET), wait out the fill time (here the minimum is 0
/// rather than waited) and post with a curl User-Agent, each from an address and with a name of
/// its own so that no burst catches them, over HTTPS (where browsers have WebCrypto): without the
/// proof of work the page's script does, every one is held. People, whose page did the work, all
/// reach the call list. On plain HTTP the work cannot be asked for (no WebCrypto there).
#[tokio::test]
async fn scripts_that_fetch_the_proof_but_do_not_do_the_work_are_held() {
    let app = test_app_with(|s| {
        defaults(s);
        s.min_fill_seconds = 0;
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    // (in the call list, stored) for scripts and for people.
    let (mut scripts, mut people) = ((0, 0), (0, 0));
    for n in 0..40u32 {
        let proof = app.get("/proof").await.json()["proof"].as_str().unwrap().to_owned();
        let client = format!("2001:db8:{n:x}::1");
        let person = n % 2 == 1;
        let work = work_for(&proof);
        let mut headers = vec![
            ("x-forwarded-for", client.as_str()),
            ("x-forwarded-proto", "https"),
            ("x-zayavka-proof", proof.as_str()),
        ];
        headers.push(if person { ("x-zayavka-work", work.as_str()) } else { ("user-agent", "curl/8.11.1") });
        let answer = insert(&app, &lead(&format!("Ім'я {n}"), &format!("0676{n:06}")), &headers).await;
        let held = held_of(&app, &answer).await;
        let tally = if person { &mut people } else { &mut scripts };
        tally.1 += 1;
        match held {
            None => tally.0 += 1,
            Some(reasons) => assert_eq!(reasons, ["no_work"], "{n}"),
        }
    }
    eprintln!(
        "fetch /proof, wait, curl: {} of {} in the call list; people {} of {}",
        scripts.0, scripts.1, people.0, people.1
    );
    assert_eq!((scripts, people), ((0, 20), (20, 20)));

    // Wrong work is held anywhere; no work over plain HTTP is not (the page could not do it).
    let proof = app.get("/proof").await.json()["proof"].as_str().unwrap().to_owned();
    let wrong = (0u64..).map(|n| n.to_string()).find(|w| !zayavka::abuse::work_done(&proof, w)).unwrap();
    let headers = [("x-forwarded-for", "192.0.2.1"), ("x-zayavka-proof", &proof), ("x-zayavka-work", &wrong)];
    let answer = insert(&app, &lead("Хтось", "067 123 45 91"), &headers).await;
    assert_eq!(held_of(&app, &answer).await, codes(&["no_work"]));
    let headers = [("x-forwarded-for", "192.0.2.2"), ("x-zayavka-proof", proof.as_str())];
    let answer = insert(&app, &lead("Хтось інший", "067 123 45 92"), &headers).await;
    assert_eq!(held_of(&app, &answer).await, None);
}

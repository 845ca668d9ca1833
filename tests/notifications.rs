//! A failing channel, mended from the inbox (docs/admin-api.md, "Notifications"): admins see every
//! notification not yet delivered with its last error, have one sent again at once, or drop one
//! on purpose, and the audit trail says who did. Runs on SQLite, and on PostgreSQL with
//! ZAYAVKA_TEST_ENGINE=postgres.

use crate::common;

use std::time::Duration;

use axum::http::StatusCode;
use common::TestApp;
use common::inbox::{PASSWORD, SignedIn, signed_in};
use common::receivers::{HttpReceiver, Received, Reply};
use serde_json::{Value, json};

const ADMIN: &str = "admin@example.org";
const OPERATOR: &str = "olena@example.org";

async fn submit(app: &TestApp, phone: &str) -> i64 {
    let body = json!({ "name": "Ганна Мельник", "phone": phone, "confirmation": "Так" });
    let answer = app.insert(&body.to_string(), "return=representation").await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    answer.json()[0]["id"].as_i64().unwrap()
}

fn delivered(requests: &[Received], lead: i64) -> bool {
    requests.iter().any(|r| r.lead_id() == Some(lead) && r.status == 200)
}

async fn waiting(app: &TestApp, admin: &SignedIn) -> Value {
    let answer = admin.get(app, "/admin/api/notifications").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()
}

fn waiting_for(list: &Value, lead: i64) -> Option<Value> {
    list["notifications"].as_array().unwrap().iter().find(|n| n["lead_id"] == lead).cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sees_what_a_failing_channel_holds_and_sends_again_or_drops_it() {
    // The receiver refuses and asks to be left alone for ten minutes: nothing would go out
    // before then without an admin.
    let receiver = HttpReceiver::start(Reply::status(503).header("retry-after", "600")).await;
    let app = common::test_app_with(|s| {
        s.notify.webhook = Some(zayavka::config::Webhook { url: receiver.url("/hooks"), secret: None });
    })
    .await;
    for (email, role) in [(ADMIN, "admin"), (OPERATOR, "operator")] {
        let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
        let role = zayavka::team::Role::from_name(role);
        common::add_account(&app.state.store, email, hash, role).await;
    }
    let (admin, operator) = (signed_in(&app, ADMIN).await, signed_in(&app, OPERATOR).await);

    let first = submit(&app, "067 000 03 01").await;
    receiver.wait_for("the first refusal", Duration::from_secs(10), |r| !r.is_empty()).await;
    let second = submit(&app, "067 000 03 02").await;

    // Both wait: the first with its error, the second not tried (its channel rests).
    let list = waiting(&app, &admin).await;
    let failed = waiting_for(&list, first).expect("the refused notification waits");
    assert_eq!(failed["channel"], "webhook");
    assert_eq!(failed["event"], "new");
    assert!(failed["attempts"].as_i64().unwrap() >= 1, "{failed}");
    assert!(failed["last_error"].as_str().unwrap().contains("503"), "{failed}");
    let queued = waiting_for(&list, second).expect("the second waits too");
    let channel = &list["channels"][0];
    assert_eq!((channel["channel"].as_str(), channel["configured"].as_bool()), (Some("webhook"), Some(true)));
    assert_eq!(channel["waiting"], 2);

    // Operators work leads; mending channels is for admins.
    let refused = operator.get(&app, "/admin/api/notifications").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text());

    // The first is dropped on purpose: it never goes out, and it cannot be dropped twice.
    let path = |n: &Value, what: &str| format!("/admin/api/notifications/{}/{what}", n["id"]);
    let dropped = admin.post(&app, &path(&failed, "drop"), json!({})).await;
    assert_eq!(dropped.status, StatusCode::NO_CONTENT, "{}", dropped.text());
    let again = admin.post(&app, &path(&failed, "drop"), json!({})).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    assert!(again.json()["error"].as_str().unwrap().contains("немає в черзі"), "{}", again.text());

    // The receiver works again; "send again" sends the second now, not in ten minutes.
    receiver.set_default(Reply::status(200));
    let resent = admin.post(&app, &path(&queued, "send-again"), json!({})).await;
    assert_eq!(resent.status, StatusCode::NO_CONTENT, "{}", resent.text());
    receiver.wait_for("the second, sent again", Duration::from_secs(10), |r| delivered(r, second)).await;
    assert!(!delivered(&receiver.requests(), first), "a dropped notification was sent");
    let list = waiting(&app, &admin).await;
    assert_eq!(list["notifications"], json!([]), "{list}");

    // The trail names the admin, the lead and the channel, and no visitor's data.
    let trail = admin.get(&app, "/admin/api/audit").await.json();
    let entries = trail["entries"].as_array().unwrap();
    let entry = |action: &str| entries.iter().find(|e| e["action"] == action).cloned().unwrap_or_default();
    let drop_entry = entry("dropped_notification");
    assert_eq!((drop_entry["actor"].as_str(), drop_entry["lead_id"].as_i64()), (Some(ADMIN), Some(first)));
    assert!(drop_entry["detail"].as_str().unwrap().starts_with("webhook new: "), "{drop_entry}");
    let resend_entry = entry("resent_notification");
    assert_eq!(resend_entry["lead_id"].as_i64(), Some(second), "{resend_entry}");
    assert!(!trail.to_string().contains("Мельник"), "{trail}");
}

/// A notification a sender is sending at that moment (a slow channel) is left alone: sent again it
/// would arrive twice, and dropped it might arrive all the same. The admin is told to try later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_being_sent_is_neither_sent_again_nor_dropped() {
    // The receiver takes its time to answer: the send is under way while the admin clicks.
    let receiver = HttpReceiver::start(Reply::status(200).after(Duration::from_secs(5))).await;
    let app = common::test_app_with(|s| {
        s.notify.webhook = Some(zayavka::config::Webhook { url: receiver.url("/hooks"), secret: None });
    })
    .await;
    let hash = zayavka::auth::hash_password(PASSWORD).unwrap();
    common::add_account(&app.state.store, ADMIN, hash, None).await;
    let admin = signed_in(&app, ADMIN).await;
    let lead = submit(&app, "067 000 03 11").await;
    receiver.wait_for("the send under way", Duration::from_secs(10), |r| !r.is_empty()).await;

    let sending = waiting_for(&waiting(&app, &admin).await, lead).expect("listed until its send ends");
    for what in ["send-again", "drop"] {
        let answer =
            admin.post(&app, &format!("/admin/api/notifications/{}/{what}", sending["id"]), json!({})).await;
        assert_eq!(answer.status, StatusCode::CONFLICT, "{what}: {}", answer.text());
        assert!(answer.json()["error"].as_str().unwrap().contains("саме надсилається"), "{}", answer.text());
    }

    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while waiting(&app, &admin).await["notifications"] != json!([]) {
        assert!(std::time::Instant::now() < deadline, "the send did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(receiver.requests().len(), 1, "sent once");
    let trail = admin.get(&app, "/admin/api/audit").await.json().to_string();
    assert!(!trail.contains("resent_notification") && !trail.contains("dropped_notification"), "{trail}");
}

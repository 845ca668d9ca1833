//! The store's contract: the same cases, through the public `Store` API only, on whichever engine
//! `ZAYAVKA_TEST_ENGINE` names (SQLite in a temporary folder by default, a fresh PostgreSQL schema
//! with `postgres`); CI runs this file on both (scripts/test-all). An engine that keeps its rows
//! differently still answers the same. Times are passed in (`now`) and moved forward by the test,
//! never waited for; where an engine reads the clock itself (a lead's arrival, a call, the
//! PostgreSQL outbox's due times) the case works from the real now.

use crate::common;

use common::{TestDatabase, new_lead as lead};
use jiff::{SignedDuration, Timestamp};
use zayavka::clock::Clock;
use zayavka::inbox::{CallPlan, LeadRecord, Outcome, PROMISE, Status};
use zayavka::lead::{Attribution, NewLead};
use zayavka::notice::{Channel, Event};
use zayavka::store::{
    AuditEntry, CallLogged, CountsAt, Delivery, FactorConfirmed, Holder, Idempotency, InsertContext,
    LeadQuery, NewAttempt, Operator, OperatorCount, SourceCount, Store, StoreError,
};
use zayavka::team::{AccountChange, Action, Role};

const OLENA: &str = "olena@example.org";
const PETRO: &str = "petro@example.org";

/// A store on a database of its own, and that database (dropped with it).
struct Fixture {
    store: Store,
    database: TestDatabase,
}

async fn fixture() -> Fixture {
    let database = TestDatabase::new().await;
    let store = Store::open(&database.settings_url()).await.unwrap();
    Fixture { store, database }
}

/// The audit entry of a change of lead `lead_id` made here, by an admin.
fn trail(action: Action, lead_id: i64) -> AuditEntry {
    common::trail("admin@example.org", action, lead_id)
}

/// The audit entry of a change made here by `actor` that names no lead.
fn did(actor: &str, action: Action) -> AuditEntry {
    common::by(actor).did(action, None, None)
}

/// The same by an admin.
fn admin_did(action: Action) -> AuditEntry {
    did("admin@example.org", action)
}

/// Now, to the microsecond both engines keep.
fn now() -> Timestamp {
    Timestamp::from_microsecond(Timestamp::now().as_microsecond()).unwrap()
}

fn minutes(n: i64) -> SignedDuration {
    SignedDuration::from_mins(n)
}

fn time(text: &Option<String>) -> Timestamp {
    text.as_deref().expect("a time").parse().unwrap()
}

fn held(name: &str, phone_e164: &str) -> NewLead {
    NewLead { held: vec!["no_proof"], ..lead(name, phone_e164) }
}

fn context(channels: &[Channel]) -> InsertContext {
    InsertContext {
        channels: channels.into(),
        policy_version: "policy-1".into(),
        duplicate_window: Some(std::time::Duration::from_secs(24 * 3600)),
    }
}

impl Fixture {
    /// Stores one lead as its own request (no channels) and says its id.
    async fn add(&self, lead: NewLead) -> i64 {
        self.store.insert(vec![lead], &context(&[]), None).await.unwrap()[0].lead.id
    }

    async fn record(&self, id: i64) -> LeadRecord {
        self.store.lead(id).await.unwrap().expect("the lead is there")
    }

    async fn operator(&self, email: &str) -> i64 {
        common::add_account(&self.store, email, "hash".into(), Some(Role::Operator)).await;
        self.store.operator(email.into()).await.unwrap().unwrap().id
    }

    /// The call list's first leads, newest first, as `search` and `holder` pick them.
    async fn list(&self, search: &str, holder: Holder) -> Vec<i64> {
        ids(common::found_leads(&self.store, search, holder).await)
    }

    /// Every lead a search finds, page after page of 50, each page below the last one's end.
    async fn paged(&self, search: &str) -> Vec<i64> {
        let mut found = Vec::new();
        loop {
            let (name_pattern, phone) = zayavka::inbox::Search::parse(search).patterns();
            let query = LeadQuery {
                name_pattern,
                phone,
                open_only: false,
                overdue_before: None,
                before_id: found.last().copied(),
                held: false,
                holder: Holder::Anyone,
                limit: 50,
            };
            let page = ids(self.store.find_leads(query).await.unwrap());
            if page.is_empty() {
                return found;
            }
            found.extend(page);
            assert!(found.len() <= 1_000, "a page below the last one's end repeats it");
        }
    }

    async fn held_list(&self) -> Vec<i64> {
        let query = LeadQuery {
            name_pattern: None,
            phone: None,
            open_only: false,
            overdue_before: None,
            before_id: None,
            held: true,
            holder: Holder::Anyone,
            limit: 50,
        };
        ids(self.store.find_leads(query).await.unwrap())
    }

    async fn call(&self, id: i64, operator: &str, outcome: Outcome, plan: CallPlan) {
        let call = NewAttempt {
            lead_id: id,
            operator: operator.into(),
            outcome,
            note: "нотатка".into(),
            plan,
            request_key: None,
            trail: common::trail(operator, Action::RecordedCall, id),
        };
        assert_eq!(self.store.add_attempt(call).await.unwrap(), CallLogged::Logged);
    }

    async fn due(&self, at: Timestamp) -> Vec<i64> {
        ids(self.store.due_leads(at, 50).await.unwrap())
    }

    /// Every notification due now on `channels`, as (lead, event, channel), leased for a minute.
    async fn claim(&self, channels: &[Channel]) -> Vec<(i64, Event, Channel)> {
        let now = Timestamp::now();
        let jobs =
            self.store.claim_outbox(Vec::new(), now, now + minutes(1), 50, channels.into()).await.unwrap();
        jobs.iter().map(|job| (job.lead_id, job.event, job.channel)).collect()
    }
}

fn ids(records: Vec<LeadRecord>) -> Vec<i64> {
    records.iter().map(|record| record.id).collect()
}

/// A call that schedules nothing of its own: the store's default applies.
fn plain(now: Timestamp) -> CallPlan {
    CallPlan { at_once: now, call_back_at: None, retries: Vec::new() }
}

#[tokio::test]
async fn an_insert_reads_back_as_it_was_sent() {
    let f = fixture().await;
    let first = NewLead {
        comment: Some("Після 18:00".into()),
        attribution: Attribution { utm_source: Some("facebook".into()), ..Attribution::default() },
        ..lead("Ганна Мельник", "+380671234567")
    };
    let second = NewLead { confirmation: "Ні".into(), ..lead("Петро Коваль", "+380501112233") };
    let stored = f.store.insert(vec![first.clone(), second], &context(&[]), None).await.unwrap();
    assert_eq!(stored.len(), 2);
    assert!(stored[0].lead.id < stored[1].lead.id, "one request, ids in its order");
    assert_eq!(stored[0].repeat_of, None);

    let record = f.record(stored[0].lead.id).await;
    assert_eq!(record.created_at, stored[0].lead.created_at, "the same moment, the same spelling");
    let sent_at: Timestamp = record.created_at.parse().unwrap();
    assert!(Timestamp::now().duration_since(sent_at).abs() < minutes(1));
    assert_eq!(
        (record.name.as_str(), record.phone_e164.as_str(), record.confirmation.as_str()),
        ("Ганна Мельник", "+380671234567", "Так")
    );
    assert_eq!(record.comment.as_deref(), Some("Після 18:00"));
    assert_eq!(record.policy_version, "policy-1");
    assert_eq!(record.attribution, first.attribution);
    assert_eq!((record.status, record.attempt_count, record.repeat_count), (Status::New, 0, 0));
    assert_eq!((record.held, record.claim, record.reached_at), (None, None, None));
    assert_eq!(time(&record.next_call_at), sent_at, "a new lead is due for a call at once");

    let (a, b) = (stored[0].lead.id, stored[1].lead.id);
    let by_ids = f.store.leads_by_ids(vec![b, a + b + 100, a]).await.unwrap();
    assert_eq!(
        by_ids,
        vec![stored[1].lead.clone(), stored[0].lead.clone()],
        "the order asked, gaps left out"
    );
    assert_eq!(ids(f.store.leads_after(0, 10).await.unwrap()), vec![a, b]);
    assert_eq!(ids(f.store.leads_after(a, 10).await.unwrap()), vec![b]);
    assert_eq!(ids(f.store.leads_after(0, 1).await.unwrap()), vec![a]);
    assert!(f.store.lead(b + 1).await.unwrap().is_none());
}

#[tokio::test]
async fn an_idempotency_key_is_kept_with_its_leads_until_purged() {
    let f = fixture().await;
    let before = now() - minutes(1);
    let key = Idempotency { key: "key-1".into(), fingerprint: "fingerprint-1".into() };
    let stored = f
        .store
        .insert(
            vec![lead("Ганна", "+380671234567"), lead("Петро", "+380501112233")],
            &context(&[]),
            Some(key),
        )
        .await
        .unwrap();
    let lead_ids: Vec<i64> = stored.iter().map(|s| s.lead.id).collect();
    let record = f.store.idempotency_record("key-1", before).await.unwrap();
    assert_eq!(record, Some(("fingerprint-1".to_owned(), lead_ids)));
    assert_eq!(f.store.idempotency_record("key-2", before).await.unwrap(), None);
    let later = now() + minutes(1);
    assert_eq!(f.store.idempotency_record("key-1", later).await.unwrap(), None, "recorded before `since`");

    assert_eq!(f.store.purge_idempotency_keys(before).await.unwrap(), 0, "recorded after `before`");
    assert_eq!(f.store.purge_idempotency_keys(later).await.unwrap(), 1);
    assert_eq!(f.store.idempotency_record("key-1", before).await.unwrap(), None);
}

/// A key already recorded stores nothing more: the request that recorded it may have ended (its
/// client gone) before its write was done, and a retry that looked for the record too soon comes
/// here with the same key.
#[tokio::test]
async fn a_recorded_idempotency_key_stores_nothing_again() {
    let f = fixture().await;
    let key = || Some(Idempotency { key: "key-1".into(), fingerprint: "fingerprint-1".into() });
    f.store.insert(vec![lead("Ганна", "+380671234567")], &context(&[]), key()).await.unwrap();
    let again = f.store.insert(vec![lead("Ганна", "+380671234567")], &context(&[]), key()).await;
    assert!(matches!(again, Err(StoreError::IdempotencyKeyTaken)), "{again:?}");
    assert_eq!(f.store.leads_after(0, 10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn leads_of_one_request_keep_their_order_and_a_phone_sent_twice_is_a_repeat() {
    let f = fixture().await;
    let channels = [Channel::Telegram, Channel::Email];
    let sent = vec![
        lead("Ганна", "+380671234567"),
        lead("Петро", "+380501112233"),
        lead("Ганна знову", "+380671234567"),
        held("Бот", "+380671234567"),
        lead("Ірина", "+380931112233"),
        lead("Петро втретє", "+380501112233"),
    ];
    let stored = f.store.insert(sent.clone(), &context(&channels), None).await.unwrap();
    let names: Vec<&str> = stored.iter().map(|s| s.lead.name.as_str()).collect();
    assert_eq!(names, sent.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), "answered in the order sent");
    let ids: Vec<i64> = stored.iter().map(|s| s.lead.id).collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "ids in the order sent: {ids:?}");
    let repeats: Vec<Option<i64>> = stored.iter().map(|s| s.repeat_of).collect();
    assert_eq!(repeats, vec![None, None, Some(ids[0]), None, None, Some(ids[1])]);
    // Each first lead is notified once on each channel; a repeat and a held lead are not.
    let mut notified: Vec<(i64, &str)> =
        f.claim(&channels).await.iter().map(|job| (job.0, job.2.name())).collect();
    notified.sort_unstable();
    let each = |id: i64| [(id, "email"), (id, "telegram")];
    assert_eq!(notified, [each(ids[0]), each(ids[1]), each(ids[4])].concat());
}

#[tokio::test]
async fn a_repeat_within_the_window_is_linked_to_the_first_lead_and_not_notified() {
    let f = fixture().await;
    let channels = [Channel::Telegram];
    let insert = |lead: NewLead, context: InsertContext| {
        let store = f.store.clone();
        async move { store.insert(vec![lead], &context, None).await.unwrap().remove(0) }
    };
    let first = insert(lead("Ганна", "+380671234567"), context(&channels)).await;
    let repeat = insert(lead("Ганна М.", "+380671234567"), context(&channels)).await;
    assert_eq!(repeat.repeat_of, Some(first.lead.id));
    let no_window = InsertContext { duplicate_window: None, ..context(&channels) };
    let unlinked = insert(lead("Ганна", "+380671234567"), no_window).await;
    assert_eq!(unlinked.repeat_of, None, "without a duplicate window every lead stands alone");
    // A held lead is nobody's first lead, nor anybody's repeat.
    let held_first = insert(held("Бот", "+380501112233"), context(&channels)).await;
    let after_held = insert(lead("Петро", "+380501112233"), context(&channels)).await;
    assert_eq!((held_first.repeat_of, after_held.repeat_of), (None, None));

    let (first, repeat) = (first.lead.id, repeat.lead.id);
    assert_eq!(ids(f.store.repeats(first).await.unwrap()), vec![repeat]);
    assert_eq!(f.record(first).await.repeat_count, 1);
    let record = f.record(repeat).await;
    assert_eq!((record.repeat_of, record.next_call_at), (Some(first), None), "not on the call list again");
    let listed = f.list("", Holder::Anyone).await;
    assert_eq!(listed, vec![after_held.lead.id, unlinked.lead.id, first], "first leads only, newest first");
    let notified: Vec<i64> = f.claim(&channels).await.iter().map(|job| job.0).collect();
    assert_eq!(notified, vec![first, unlinked.lead.id, after_held.lead.id]);
}

#[tokio::test]
async fn a_repeat_of_a_lead_someone_holds_tells_them_once_with_its_insert() {
    let f = fixture().await;
    let channels = [Channel::Telegram, Channel::Webhook];
    let send = |name: &str, phone: &str| {
        let (store, lead) = (f.store.clone(), lead(name, phone));
        async move { store.insert(vec![lead], &context(&channels), None).await.unwrap().remove(0) }
    };
    let (ganna, petro) =
        (send("Ганна", "+380671234567").await.lead.id, send("Петро", "+380501112233").await.lead.id);
    assert_eq!(f.claim(&channels).await.len(), 4, "each first lead told as new");
    send("Ганна знову", "+380671234567").await;
    assert!(f.claim(&channels).await.is_empty(), "nobody holds Ганна's lead: nobody to tell");

    let olena = f.operator(OLENA).await;
    let t = now();
    assert!(f.store.take(ganna, olena, t + minutes(30), t, trail(Action::TookLead, ganna)).await.unwrap());
    // Petro's lead was taken an hour ago for 30 minutes: nobody holds it now.
    assert!(
        f.store
            .take(petro, olena, t - minutes(30), t - minutes(60), trail(Action::TookLead, petro))
            .await
            .unwrap()
    );
    let (again, also) =
        (send("Ганна втретє", "+380671234567").await, send("Петро знову", "+380501112233").await);
    assert_eq!((again.repeat_of, also.repeat_of), (Some(ganna), Some(petro)));
    let mut told = f.claim(&channels).await;
    told.sort_unstable_by_key(|job| job.2.name());
    assert_eq!(
        told,
        [(ganna, Event::WroteAgain, Channel::Telegram), (ganna, Event::WroteAgain, Channel::Webhook)]
    );
    send("Ганна вчетверте", "+380671234567").await;
    assert!(f.claim(&channels).await.is_empty(), "told once per lead");
}

#[tokio::test]
async fn a_held_lead_waits_apart_until_released_once() {
    let f = fixture().await;
    let channels = [Channel::Email];
    let id = f.store.insert(vec![held("Бот", "+380671234567")], &context(&channels), None).await.unwrap()[0]
        .lead
        .id;
    let record = f.record(id).await;
    assert_eq!((record.held, record.next_call_at), (Some(vec!["no_proof".to_owned()]), None));
    assert_eq!(f.held_list().await, vec![id]);
    assert_eq!(f.list("", Holder::Anyone).await, Vec::<i64>::new());
    assert!(f.claim(&channels).await.is_empty(), "a held lead is not notified");
    let olena = f.operator(OLENA).await;
    assert!(
        !f.store.take(id, olena, now() + minutes(30), now(), trail(Action::TookLead, id)).await.unwrap(),
        "not on the call list yet"
    );

    assert!(f.store.release(id, channels.into(), None, trail(Action::Released, id)).await.unwrap());
    let record = f.record(id).await;
    assert_eq!(record.held, None);
    assert!(record.next_call_at.is_some(), "released into the call list, due at once");
    assert_eq!(f.list("", Holder::Anyone).await, vec![id]);
    assert_eq!(f.claim(&channels).await, vec![(id, Event::New, Channel::Email)]);
    assert!(
        !f.store.release(id, channels.into(), None, trail(Action::Released, id)).await.unwrap(),
        "released once"
    );
    assert!(!f.store.release(id + 1, channels.into(), None, trail(Action::Released, id + 1)).await.unwrap());

    let unreleased = f.add(held("Бот", "+380501112233")).await;
    let later = now() + minutes(1);
    assert_eq!(f.store.purge_held(later).await.unwrap(), 1, "only the held lead nobody released");
    assert!(f.store.lead(unreleased).await.unwrap().is_none());
    assert!(f.store.lead(id).await.unwrap().is_some());
}

#[tokio::test]
async fn a_lead_is_taken_by_one_operator_until_given_back_or_its_time_is_up() {
    let f = fixture().await;
    let (olena, petro) = (f.operator(OLENA).await, f.operator(PETRO).await);
    let id = f.add(lead("Ганна", "+380671234567")).await;
    let t = now();
    let until = t + minutes(30);
    assert!(f.store.take(id, olena, until, t, trail(Action::TookLead, id)).await.unwrap());
    let claim = f.record(id).await.claim.expect("Olena has it");
    assert_eq!(
        (claim.by.as_str(), claim.until.as_ref().map(|u| u.parse::<Timestamp>().unwrap())),
        (OLENA, Some(until))
    );

    let meanwhile = t + minutes(10);
    assert!(
        !f.store
            .take(id, petro, meanwhile + minutes(30), meanwhile, trail(Action::TookLead, id))
            .await
            .unwrap(),
        "Olena has it"
    );
    assert!(
        !f.store.give_back(id, petro, meanwhile, trail(Action::GaveBack, id)).await.unwrap(),
        "not Petro's to give back"
    );
    assert_eq!(f.list("", Holder::Operator { id: olena, now: meanwhile }).await, vec![id]);
    assert_eq!(f.list("", Holder::Nobody { now: meanwhile }).await, Vec::<i64>::new());

    // Her 30 minutes are up without a call: the lead is nobody's, and Petro may take it.
    let after = t + minutes(31);
    assert_eq!(f.list("", Holder::Nobody { now: after }).await, vec![id]);
    assert_eq!(f.list("", Holder::Operator { id: olena, now: after }).await, Vec::<i64>::new());
    assert!(f.store.take(id, petro, after + minutes(30), after, trail(Action::TookLead, id)).await.unwrap());
    assert!(f.store.give_back(id, petro, after + minutes(1), trail(Action::GaveBack, id)).await.unwrap());
    assert_eq!(f.record(id).await.claim, None);

    // Handed to Olena by an admin: hers without an end, until handed to nobody.
    assert!(f.store.hand_to(id, Some(olena), trail(Action::HandedOver, id)).await.unwrap());
    assert_eq!(f.record(id).await.claim.unwrap().until, None);
    let much_later = t + SignedDuration::from_hours(24);
    assert!(
        !f.store
            .take(id, petro, much_later + minutes(30), much_later, trail(Action::TookLead, id))
            .await
            .unwrap()
    );
    assert!(f.store.hand_to(id, None, trail(Action::HandedOver, id)).await.unwrap());
    assert_eq!(f.record(id).await.claim, None);
    assert!(
        !f.store.hand_to(id + 1, Some(olena), trail(Action::HandedOver, id + 1)).await.unwrap(),
        "no such lead"
    );

    // A lead handed to her stays hers through her call. One she took stays hers through another's
    // call, and her own call ends it; a closed lead cannot be taken.
    let retry = CallPlan { retries: vec![Some(t + minutes(120))], ..plain(t) };
    assert!(f.store.hand_to(id, Some(olena), trail(Action::HandedOver, id)).await.unwrap());
    f.call(id, OLENA, Outcome::NoAnswer, retry.clone()).await;
    assert_eq!(f.record(id).await.claim.map(|claim| (claim.by, claim.until)), Some((OLENA.into(), None)));
    assert!(f.store.hand_to(id, None, trail(Action::HandedOver, id)).await.unwrap());
    assert!(f.store.take(id, olena, until, t, trail(Action::TookLead, id)).await.unwrap());
    f.call(id, PETRO, Outcome::NoAnswer, retry).await;
    assert_eq!(f.record(id).await.claim.map(|claim| claim.by), Some(OLENA.into()));
    f.call(id, OLENA, Outcome::Interested, plain(t)).await;
    assert_eq!(f.record(id).await.claim, None);
    assert!(
        !f.store.take(id, petro, until, t, trail(Action::TookLead, id)).await.unwrap(),
        "nothing left to call about"
    );
}

/// A call's request sent twice under its key, even within one batch of the writer, is logged
/// once; the key with another call logs nothing; another operator's key is their own (ADR 0084).
#[tokio::test]
async fn a_call_under_a_request_key_is_logged_once() {
    let f = fixture().await;
    let a = f.add(lead("Анна", "+380671111111")).await;
    let t = now();
    let call = |operator: &str, outcome, key: &str| NewAttempt {
        lead_id: a,
        operator: operator.into(),
        outcome,
        note: "нотатка".into(),
        plan: plain(t),
        request_key: Some(key.into()),
        trail: common::trail(operator, Action::RecordedCall, a),
    };
    let batch = vec![
        call(OLENA, Outcome::NoAnswer, "k1"),
        call(OLENA, Outcome::NoAnswer, "k1"),
        call(OLENA, Outcome::Interested, "k1"),
        call(PETRO, Outcome::NoAnswer, "k1"),
    ];
    let logged = f.store.add_attempts(batch).await.unwrap();
    use CallLogged::{Before, KeyTaken, Logged};
    assert_eq!(logged, [Logged, Before, KeyTaken, Logged]);
    assert_eq!(f.store.add_attempt(call(OLENA, Outcome::NoAnswer, "k1")).await.unwrap(), Before);
    let record = f.record(a).await;
    assert_eq!((record.status, record.attempt_count), (Status::Attempt2, 2));
}

#[tokio::test]
async fn calls_move_the_status_on_and_the_due_list_comes_in_calling_order() {
    let f = fixture().await;
    let a = f.add(lead("Анна", "+380671111111")).await;
    let b = f.add(lead("Богдан", "+380672222222")).await;
    let c = f.add(lead("Віра", "+380673333333")).await;
    let t = now();
    assert_eq!(f.due(t).await, vec![a, b, c], "new leads by the end of their 48 hours, nearest first");

    let retry = CallPlan { retries: vec![Some(t + minutes(120))], ..plain(t) };
    f.call(b, OLENA, Outcome::NoAnswer, retry).await;
    let record = f.record(b).await;
    assert_eq!((record.status, record.attempt_count), (Status::Attempt1, 1));
    assert_eq!(time(&record.next_call_at), t + minutes(120));
    let attempts = f.store.attempts(b).await.unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        (attempts[0].operator.as_str(), attempts[0].outcome.as_str(), attempts[0].note.as_str()),
        (OLENA, "no_answer", "нотатка")
    );
    assert_eq!(f.due(t + minutes(1)).await, vec![a, c], "a retry is not due before its time");

    let asked_for = CallPlan { call_back_at: Some(t + minutes(60)), ..plain(t) };
    f.call(c, OLENA, Outcome::CallBack, asked_for).await;
    assert_eq!(f.record(c).await.status, Status::New, "a call-back asked for is no unanswered call");
    assert_eq!(f.due(t + minutes(180)).await, vec![c, b, a], "call-backs first, the earliest first");

    f.call(a, PETRO, Outcome::Interested, plain(t)).await;
    let record = f.record(a).await;
    assert_eq!((record.status, record.next_call_at), (Status::Interested, None));
    assert!(record.reached_at.is_some());
    assert_eq!(f.due(t + minutes(180)).await, vec![c, b], "a closed lead is not called again");
    assert_eq!(ids(f.store.due_leads(t + minutes(180), 1).await.unwrap()), vec![c], "up to the limit");
    let call = NewAttempt {
        lead_id: c + 1,
        operator: OLENA.into(),
        outcome: Outcome::NoAnswer,
        note: String::new(),
        plan: plain(t),
        request_key: None,
        trail: common::trail(OLENA, Action::RecordedCall, c + 1),
    };
    assert_eq!(f.store.add_attempt(call).await.unwrap(), CallLogged::NotCallable);
}

#[tokio::test]
async fn the_figures_count_what_was_reached_within_the_promise() {
    let f = fixture().await;
    let source = |utm_source: Option<&str>, referrer: Option<&str>| Attribution {
        utm_source: utm_source.map(str::to_owned),
        referrer: referrer.map(str::to_owned),
        ..Attribution::default()
    };
    let with =
        |name: &str, phone: &str, attribution: Attribution| NewLead { attribution, ..lead(name, phone) };
    let late = f.add(with("Анна", "+380671111111", source(Some("facebook"), None))).await;
    let late_reached = f.add(with("Богдан", "+380672222222", source(Some("facebook"), None))).await;
    let reached = f.add(with("Віра", "+380673333333", source(None, Some("www.google.com")))).await;
    f.add(with("Гліб", "+380674444444", source(None, Some("www.google.com")))).await;
    f.add(lead("Гліб", "+380674444444")).await; // a repeat: counted with its first lead
    f.add(held("Бот", "+380675555555")).await;
    // Sent two hours past the promise: one never reached, one reached only now.
    let past_promise = (PROMISE + SignedDuration::from_hours(2)).as_hours();
    f.database.backdate(late, past_promise).await;
    f.database.backdate(late_reached, past_promise).await;
    let t = now();
    f.call(late, PETRO, Outcome::NoAnswer, plain(t)).await;
    f.call(late_reached, OLENA, Outcome::Interested, plain(t)).await;
    f.call(reached, OLENA, Outcome::NotInterested, plain(t)).await;

    let at = CountsAt { overdue_before: t - PROMISE, window_start: t - SignedDuration::from_hours(24 * 30) };
    let counts = f.store.counts(at).await.unwrap();
    assert_eq!((counts.held, counts.open, counts.overdue), (1, 2, 1), "{counts:?}");
    assert_eq!((counts.due, counts.reached_in_time), (3, 1), "{counts:?}");
    assert_eq!(
        counts.per_hour.iter().map(|(_, n)| n).sum::<i64>(),
        4,
        "first leads of the call list: {counts:?}"
    );

    let sources = f.store.source_counts(at).await.unwrap();
    let count = |utm: Option<&str>, referrer: Option<&str>, leads, reached| SourceCount {
        utm_source: utm.map(str::to_owned),
        referrer: referrer.map(str::to_owned),
        leads,
        reached,
    };
    assert_eq!(sources, vec![count(None, Some("www.google.com"), 2, 1), count(Some("facebook"), None, 2, 0)]);

    let operators = f.store.operator_counts(t - SignedDuration::from_hours(24)).await.unwrap();
    let calls = |email: &str, calls, reached| OperatorCount { email: email.into(), calls, reached };
    assert_eq!(operators, vec![calls(OLENA, 2, 1), calls(PETRO, 1, 0)]);
}

/// Sources with the same figures come in one order on both engines (the source's bytes), not in
/// whatever order an engine's grouping left them.
#[tokio::test]
async fn sources_with_the_same_figures_are_listed_by_name() {
    let f = fixture().await;
    let from = |utm: &str| Attribution { utm_source: Some(utm.into()), ..Attribution::default() };
    for (utm, phone) in [("zeta", "+380671111111"), ("alpha", "+380672222222"), ("mid", "+380673333333")] {
        f.add(NewLead { attribution: from(utm), ..lead("Анна", phone) }).await;
    }
    let t = now();
    let at = CountsAt { overdue_before: t - PROMISE, window_start: t - SignedDuration::from_hours(24) };
    let sources = f.store.source_counts(at).await.unwrap();
    let names: Vec<_> = sources.iter().map(|s| s.utm_source.as_deref().unwrap()).collect();
    assert_eq!(names, ["alpha", "mid", "zeta"]);
}

#[tokio::test]
async fn a_search_finds_leads_by_the_phones_end_or_start_or_part_of_the_name() {
    let f = fixture().await;
    let hanna = f.add(lead("Ганна Мельник", "+380671234567")).await;
    let maryana = f.add(lead("Мар’яна Коваль", "+380501112233")).await;
    let petro = f.add(lead("ПЕТРО МЕЛЬНИЧУК", "+380931234000")).await;
    // Every trigram of "мельни" but not the part itself: a name index without positions
    // (SQLite's, ADR 0065) offers it, and the search must not answer with it.
    f.add(lead("Мел Ельни", "+380631112233")).await;
    assert_eq!(f.list("067 123", Holder::Anyone).await, vec![hanna], "any spelling of the number");
    assert_eq!(f.list("+38050-111", Holder::Anyone).await, vec![maryana]);
    assert_eq!(f.list("4000", Holder::Anyone).await, vec![petro], "the number's end");
    assert!(f.list("1234", Holder::Anyone).await.is_empty(), "a part from the middle is not searched");
    assert_eq!(f.list("мельни", Holder::Anyone).await, vec![petro, hanna], "Cyrillic, whatever its case");
    assert_eq!(f.list("мар'яна", Holder::Anyone).await, vec![maryana], "apostrophes made one");
    assert_eq!(f.list("50%", Holder::Anyone).await, Vec::<i64>::new(), "% matches itself");
    assert!(f.list("ль\"ни", Holder::Anyone).await.is_empty(), "a quote is a character like any other");

    let query = LeadQuery {
        name_pattern: None,
        phone: None,
        open_only: false,
        overdue_before: None,
        before_id: Some(petro),
        held: false,
        holder: Holder::Anyone,
        limit: 1,
    };
    assert_eq!(ids(f.store.find_leads(query).await.unwrap()), vec![maryana], "the next page, newest first");
}

/// A text with a word inside no stored name's word, or two words in a row inside no name's two,
/// finds nothing, whatever trigrams and words the names share with it, and a text across words
/// finds its name, whatever space is inside a word or between two; an erased name is not found by
/// its words, and its words are gone (both engines answer from the words of names and their pairs,
/// ADR 0076, 0077).
#[tokio::test]
async fn a_text_with_a_word_no_name_holds_finds_nothing_and_one_across_words_finds_its_name() {
    let f = fixture().await;
    let taras = f.add(lead("Тарас Шевченко", "+380671234567")).await;
    let olena = f.add(lead("Олена Коваленко", "+380501112233")).await;
    f.add(lead("Ярема\tЗозуля  Зозуля", "+380931234000")).await;
    assert!(f.list("шевченкова", Holder::Anyone).await.is_empty(), "each trigram is there, the word is not");
    assert!(f.list("тарас коваленко", Holder::Anyone).await.is_empty());
    assert!(
        f.list("шевченко тарас", Holder::Anyone).await.is_empty(),
        "both words are there, not in that order"
    );
    assert_eq!(f.list("тарас шевченко", Holder::Anyone).await, vec![taras]);
    assert_eq!(f.list("ас шевч", Holder::Anyone).await, vec![taras], "a word's end and the next one's start");
    assert_eq!(f.list("енко", Holder::Anyone).await, vec![olena, taras]);
    let tab = f.list("ема\tзоз", Holder::Anyone).await;
    assert_eq!(tab.len(), 1, "a tab is part of a word, in the name and in the text");
    assert_eq!(f.list("ема\tзозуля  зозуля", Holder::Anyone).await, tab, "two spaces between two words");

    assert_eq!(f.store.erase_phone("+380931234000").await.unwrap(), 1);
    assert!(f.list("зозул", Holder::Anyone).await.is_empty());
    assert_words_recounted(&f.database).await;
}

#[tokio::test]
async fn a_name_search_pages_its_leads_newest_first_each_once() {
    // On PostgreSQL a name search reads the lists of leads of the pieces of names holding its
    // text (ADR 0078), two pages' worth of each at a time and more while the page is not full, and
    // the name index when more than 8 pieces hold it: each way, each lead once, newest first,
    // page by page.
    let f = fixture().await;
    let shevchuk = f.add(lead("Тарас Шевчук", "+380971234567")).await;
    let mut taras = Vec::new();
    for n in 0..55 {
        taras.push(f.add(lead("Тарас Шевченко", &format!("+38067{:07}", n))).await);
    }
    // The newest 51 of the list: 30 repeats, which the list does not show, and 21 leads.
    taras.push(f.add(lead("Тарас Шевченко", "+380671111111")).await);
    for _ in 0..30 {
        f.store.insert(vec![lead("Тарас Шевченко", "+380671111111")], &context(&[]), None).await.unwrap();
    }
    let mut kovals = Vec::new();
    for n in 0..70 {
        kovals.push(f.add(lead(&format!("Ольга{n} Коваль"), &format!("+38050{:07}", n))).await);
    }
    let twice = f.add(lead("Зозуля Ема Зозуля", "+380931234000")).await;
    let newest_first = |mut ids: Vec<i64>| {
        ids.reverse();
        ids
    };
    assert_eq!(f.list("тарас шевченко", Holder::Anyone).await.len(), 50, "a full page, past the repeats");
    assert_eq!(f.paged("тарас шевченко").await, newest_first(taras.clone()), "one pair's list");
    assert_eq!(f.paged("ас шевченко").await, newest_first(taras.clone()), "a word's end and the next");
    let shevch: Vec<i64> = [shevchuk].into_iter().chain(taras).collect();
    assert_eq!(f.paged("тарас шевч").await, newest_first(shevch), "two lists, one of one lead");
    assert_eq!(f.paged("коваль").await, newest_first(kovals), "in 70 pieces: the name index");
    assert_eq!(f.paged("зозуля").await, vec![twice], "inside both pairs of one name");
    assert_eq!(f.store.erase_phone("+380931234000").await.unwrap(), 1);
    assert!(f.paged("зозуля").await.is_empty());
    assert_words_recounted(&f.database).await;
}

/// On PostgreSQL, fails unless the words and pairs of names, counted and still queued, are those of
/// the stored names, as often as they hold them, the leads listed under them are the stored ones,
/// and an erased name's words are gone from all three (SQLite's own are checked in its unit tests).
async fn assert_words_recounted(database: &TestDatabase) {
    if !database.url.starts_with("postgres") {
        return;
    }
    let kept = "SELECT word, sum(names) FROM (SELECT word, names FROM name_words \
        UNION ALL SELECT word, names FROM name_word_changes) AS kept GROUP BY word HAVING sum(names) <> 0";
    let recounted =
        "SELECT word, count(*) FROM \"CRN\", zayavka_words_and_pairs_of(name) AS word GROUP BY word";
    database
        .execute(&format!(
            "DO $$ BEGIN IF EXISTS (({kept} EXCEPT {recounted}) UNION ALL ({recounted} EXCEPT {kept})) \
             THEN RAISE EXCEPTION 'the words of names differ from a recount'; END IF; END $$"
        ))
        .await;
    let listed = "SELECT piece, lead_id FROM name_piece_leads";
    let relisted = "SELECT piece, id FROM \"CRN\", zayavka_listed_pieces_of(name) AS piece";
    database
        .execute(&format!(
            "DO $$ BEGIN IF EXISTS (({listed} EXCEPT {relisted}) UNION ALL ({relisted} EXCEPT {listed})) \
             THEN RAISE EXCEPTION 'the leads listed under pieces of names differ from a relisting'; \
             END IF; END $$"
        ))
        .await;
    database
        .execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM name_words WHERE word LIKE '%зозул%' \
             UNION ALL SELECT 1 FROM name_word_changes WHERE word LIKE '%зозул%' \
             UNION ALL SELECT 1 FROM name_piece_leads WHERE piece LIKE '%зозул%') \
             THEN RAISE EXCEPTION 'an erased name''s word is left'; END IF; END $$",
        )
        .await;
}

#[tokio::test]
async fn a_number_is_found_repeated_and_erased_whatever_months_its_leads_came() {
    // Leads are kept by their month as well as their number (SQLite's indexes, ADR 0060): the
    // window of repeats crosses a month's end, and a search or an erasure reaches every month.
    let database = TestDatabase::new().await;
    let (clock, hand) = Clock::manual("2026-03-31T23:30:00Z".parse().unwrap());
    let store = Store::open(&database.settings_url()).await.unwrap().with_clock(clock);
    let f = Fixture { store, database };
    let insert = |lead: NewLead| {
        let store = f.store.clone();
        async move { store.insert(vec![lead], &context(&[]), None).await.unwrap().remove(0) }
    };
    let first = insert(lead("Ганна", "+380671234567")).await;
    hand.advance_hours(1);
    let repeat = insert(lead("Ганна", "+380671234567")).await;
    assert_eq!(repeat.repeat_of, Some(first.lead.id), "sent again in the next month, within 24 hours");
    hand.advance_hours(24 * 40);
    let later = insert(lead("Ганна", "+380671234567")).await;
    assert_eq!(later.repeat_of, None, "forty days on, a new first lead");
    hand.advance_hours(24 * 300);
    let other = f.add(lead("Петро", "+380501112233")).await;

    let (first, later) = (first.lead.id, later.lead.id);
    assert_eq!(f.list("067 123", Holder::Anyone).await, vec![later, first], "by the start, every month");
    assert_eq!(f.list("4567", Holder::Anyone).await, vec![later, first], "by the end, every month");
    assert_eq!(f.store.erase_phone("+380671234567").await.unwrap(), 3);
    assert_eq!(f.list("", Holder::Anyone).await, vec![other]);
    assert!(f.list("4567", Holder::Anyone).await.is_empty());
}

#[tokio::test]
async fn the_audit_trail_keeps_entries_in_order_and_names_no_forgery() {
    let f = fixture().await;
    let entry = |actor: &str, action, lead_id, detail: Option<&str>| AuditEntry {
        actor: actor.into(),
        action,
        lead_id,
        detail: detail.map(str::to_owned),
        address: Some("192.0.2.7".into()),
    };
    f.store.audit(entry(OLENA, Action::OpenedLead, Some(7), None)).await.unwrap();
    f.store.audit(entry(PETRO, Action::Exported, None, Some("csv, 3"))).await.unwrap();
    f.store.audit(entry("x\nadmin signed_in", Action::SignInFailed, None, None)).await.unwrap();

    let page = f.store.audit_page(None, 10).await.unwrap();
    let actions: Vec<&str> = page.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(actions, vec!["sign_in_failed", "exported", "opened_lead"], "newest first");
    assert_eq!(page[0].actor, "x\\nadmin signed_in", "a control character is kept as an escape");
    assert_eq!((page[1].actor.as_str(), page[1].detail.as_deref()), (PETRO, Some("csv, 3")));
    assert_eq!((page[2].lead_id, page[2].address.as_deref()), (Some(7), Some("192.0.2.7")));
    let at: Timestamp = page[2].at.parse().unwrap();
    assert!(Timestamp::now().duration_since(at).abs() < minutes(1));

    let older = f.store.audit_page(Some(page[1].id), 10).await.unwrap();
    assert_eq!(older, vec![page[2].clone()]);
    assert_eq!(f.store.audit_page(None, 1).await.unwrap(), vec![page[0].clone()]);

    // From the start, oldest first, a page after the last one read.
    let first = f.store.audit_after(0, 2).await.unwrap();
    assert_eq!(first, vec![page[2].clone(), page[1].clone()]);
    assert_eq!(f.store.audit_after(first[1].id, 2).await.unwrap(), vec![page[0].clone()]);
    assert!(f.store.audit_after(page[0].id, 2).await.unwrap().is_empty());
}

/// A notification whose event this release does not know (queued by a newer one, before a
/// rollback) stops nothing: the others are sent, and what was finished is recorded.
#[tokio::test]
async fn an_unknown_notification_leaves_the_others_to_be_sent() {
    let f = fixture().await;
    let channels = [Channel::Telegram];
    let add = |name: &'static str, phone: &'static str| {
        let store = f.store.clone();
        async move { store.insert(vec![lead(name, phone)], &context(&channels), None).await.unwrap()[0].lead.id }
    };
    add("Ганна", "+380671234567").await;
    let t = Timestamp::now();
    let being_sent = f.store.claim_outbox(Vec::new(), t, t + minutes(1), 10, channels.into()).await.unwrap();
    assert_eq!(being_sent.len(), 1);
    let unknown = add("Петро", "+380501112233").await;
    f.database
        .execute(&format!("UPDATE outbox SET event = 'from_a_newer_release' WHERE lead_id = {unknown}"))
        .await;
    let known = add("Ірина", "+380931112233").await;

    let t = Timestamp::now();
    let done = vec![Delivery::Sent(being_sent[0].id)];
    let jobs = f.store.claim_outbox(done, t, t + minutes(1), 10, channels.into()).await.unwrap();
    assert_eq!(jobs.iter().map(|job| job.lead_id).collect::<Vec<_>>(), vec![known]);
    let waiting: i64 = f.store.outbox_queues().await.unwrap().iter().map(|queue| queue.waiting).sum();
    assert_eq!(waiting, 2, "the one sent is recorded: the unknown one and the one just claimed wait");
}

#[tokio::test]
async fn the_outbox_leases_what_is_due_and_keeps_a_failure_for_later() {
    let f = fixture().await;
    let channels = [Channel::Telegram, Channel::Email];
    let id = f.store.insert(vec![lead("Ганна", "+380671234567")], &context(&channels), None).await.unwrap()
        [0]
    .lead
    .id;
    let t = Timestamp::now();
    let jobs = f.store.claim_outbox(Vec::new(), t, t + minutes(1), 10, channels.into()).await.unwrap();
    let claimed: Vec<_> =
        jobs.iter().map(|job| (job.lead_id, job.event, job.channel, job.attempts)).collect();
    assert_eq!(claimed, vec![(id, Event::New, Channel::Telegram, 1), (id, Event::New, Channel::Email, 1)]);
    assert!(f.claim(&channels).await.is_empty(), "leased to the first sender");
    assert!(f.claim(&[Channel::Webhook]).await.is_empty(), "only the channels asked for");

    let (telegram, email) = (jobs[0].id, jobs[1].id);
    let in_an_hour = Timestamp::now() + SignedDuration::from_hours(1);
    let retry = Delivery::Retry { id: email, at: in_an_hour, error: "HTTP 502".into() };
    // Recorded with no room to claim (a sender whose sends all still run).
    let t = Timestamp::now();
    let none =
        f.store.claim_outbox(vec![Delivery::Sent(telegram), retry], t, t + minutes(1), 0, channels.into());
    assert!(none.await.unwrap().is_empty());
    let queues = f.store.outbox_queues().await.unwrap();
    assert_eq!(queues.len(), 1, "the sent one is gone: {queues:?}");
    assert_eq!((queues[0].channel, queues[0].waiting, queues[0].failing), (Channel::Email, 1, 1));
    assert_eq!(queues[0].last_error.as_deref(), Some("HTTP 502"));
    assert!(f.claim(&channels).await.is_empty(), "the retry is an hour away");

    let retry_now =
        Delivery::Retry { id: email, at: Timestamp::now() - minutes(1), error: "HTTP 503".into() };
    // Recorded and claimed again in the same turn: the outcomes are written first.
    let t = Timestamp::now();
    let again = f.store.claim_outbox(vec![retry_now], t, t + minutes(1), 10, channels.into()).await.unwrap();
    assert_eq!(again.iter().map(|job| (job.id, job.attempts)).collect::<Vec<_>>(), vec![(email, 2)]);

    // Reminders: once per lead sent in the window.
    let window = (t - minutes(10), t + minutes(10));
    assert_eq!(
        f.store.queue_reminders(Event::Reminder, channels.into(), window.0, window.1).await.unwrap(),
        2
    );
    assert_eq!(
        f.store.queue_reminders(Event::Reminder, channels.into(), window.0, window.1).await.unwrap(),
        0
    );
    let reminders = f.claim(&[Channel::Telegram]).await;
    assert_eq!(reminders, vec![(id, Event::Reminder, Channel::Telegram)]);
}

/// The reminder and the overdue notice say nobody reached the person. A person who asked to be
/// called at another time answered: their lead gets neither, and that time's own notice comes when
/// it does. A later call that goes unanswered does not undo it (ADR 0086, 0087).
#[tokio::test]
async fn a_person_who_asked_for_a_later_call_is_not_reported_unreached() {
    let f = fixture().await;
    let channels = [Channel::Email];
    let add = |lead: NewLead| {
        let store = f.store.clone();
        async move { store.insert(vec![lead], &context(&channels), None).await.unwrap()[0].lead.id }
    };
    let asked = add(lead("Анна", "+380671111111")).await;
    let unanswered = add(lead("Богдан", "+380672222222")).await;
    let uncalled = add(lead("Віра", "+380673333333")).await;
    let t = now();
    let in_a_day = CallPlan { call_back_at: Some(t + minutes(24 * 60)), ..plain(t) };
    f.call(asked, OLENA, Outcome::CallBack, in_a_day).await;
    f.call(unanswered, OLENA, Outcome::NoAnswer, plain(t)).await;
    let window = (t - minutes(10), t + minutes(10));
    let remind = |event| f.store.queue_reminders(event, channels.into(), window.0, window.1);
    assert_eq!(remind(Event::Overdue).await.unwrap(), 2);
    let mut told: Vec<i64> = f
        .claim(&channels)
        .await
        .iter()
        .filter(|(_, event, _)| *event == Event::Overdue)
        .map(|(id, ..)| *id)
        .collect();
    told.sort_unstable();
    assert_eq!(told, [unanswered, uncalled]);

    f.call(asked, OLENA, Outcome::NoAnswer, plain(t)).await;
    assert_eq!(
        remind(Event::Reminder).await.unwrap(),
        2,
        "reached once, though unanswered at the agreed time"
    );
    let asked = f.store.lead(asked).await.unwrap().unwrap();
    assert!(asked.status.is_open() && asked.reached_at.is_some(), "{asked:?}");
}

#[tokio::test]
async fn erasing_a_phone_takes_its_leads_calls_notifications_and_keys() {
    let f = fixture().await;
    let channels = [Channel::Email];
    let key = Idempotency { key: "key-1".into(), fingerprint: "f".into() };
    let insert = |lead: NewLead, key: Option<Idempotency>| {
        let store = f.store.clone();
        async move { store.insert(vec![lead], &context(&channels), key).await.unwrap()[0].lead.id }
    };
    let first = insert(lead("Ганна", "+380671234567"), Some(key)).await;
    let repeat = insert(lead("Ганна", "+380671234567"), None).await;
    let other = insert(lead("Петро", "+380501112233"), None).await;
    f.call(first, OLENA, Outcome::NoAnswer, plain(now())).await;

    assert_eq!(f.store.erase_phone("+380671234567").await.unwrap(), 2);
    assert!(f.store.lead(first).await.unwrap().is_none());
    assert!(f.store.lead(repeat).await.unwrap().is_none());
    assert!(f.store.attempts(first).await.unwrap().is_empty());
    assert_eq!(f.store.idempotency_record("key-1", now() - minutes(10)).await.unwrap(), None);
    assert_eq!(f.list("", Holder::Anyone).await, vec![other]);
    assert_eq!(f.claim(&channels).await, vec![(other, Event::New, Channel::Email)]);
    assert_eq!(f.store.erase_phone("+380671234567").await.unwrap(), 0);
}

#[tokio::test]
async fn an_erased_lead_leaves_nothing_in_the_search_indexes() {
    let f = fixture().await;
    let erased = f.add(lead("Зоряна Щедрик", "+380671234567")).await;
    let kept = f.add(lead("Ганна", "+380501112233")).await;
    assert_eq!(f.list("щедрик", Holder::Anyone).await, vec![erased]);
    // The index's terms are written shortened by what they share with the one before: the end
    // of a trigram is there.
    let holds = |bytes: &[u8], text: &str| bytes.windows(text.len()).any(|w| w == text.as_bytes());
    if let Some(index) = f.database.name_index_bytes().await {
        assert!(holds(&index, "рик"));
    }

    assert_eq!(f.store.erase_phone("+380671234567").await.unwrap(), 1);
    if let Some(index) = f.database.name_index_bytes().await {
        assert!(!holds(&index, "рик"), "the erased name's trigrams are gone");
    }
    for search in ["щедрик", "4567", "0671234567"] {
        assert!(f.list(search, Holder::Anyone).await.is_empty(), "{search}");
    }
    assert_eq!(f.list("ганна", Holder::Anyone).await, vec![kept]);
}

#[tokio::test]
async fn retention_purges_leads_sent_before_a_moment() {
    let f = fixture().await;
    let old = f.add(lead("Ганна", "+380671234567")).await;
    let old_held = f.add(held("Бот", "+380501112233")).await;
    let recent = f.add(lead("Петро", "+380931234000")).await;
    f.database.backdate(old, 24 * 40).await;
    f.database.backdate(old_held, 24 * 40).await;
    let month_ago = now() - SignedDuration::from_hours(24 * 30);

    assert_eq!(f.store.purge_held(month_ago).await.unwrap(), 1, "held leads only");
    assert!(f.store.lead(old).await.unwrap().is_some());
    assert_eq!(f.store.purge_leads(month_ago).await.unwrap(), 1);
    assert!(f.store.lead(old).await.unwrap().is_none());
    assert_eq!(ids(f.store.leads_after(0, 10).await.unwrap()), vec![recent]);
    assert_eq!(f.store.purge_leads(month_ago).await.unwrap(), 0);
}

#[tokio::test]
async fn accounts_keep_an_admin_and_a_change_of_role_ends_the_sessions() {
    let f = fixture().await;
    let add = |email: &str| f.store.add_operator(email.into(), "hash".into(), None, common::account_added());
    let added = (add(OLENA).await.unwrap(), add(PETRO).await.unwrap());
    assert_eq!(added, (Some(Role::Admin), Some(Role::Operator)), "the first account is an admin");
    assert_eq!(add(PETRO).await.unwrap(), None, "one account per e-mail");
    let accounts = f.store.accounts().await.unwrap();
    let roles: Vec<_> = accounts.iter().map(|a| (a.email.as_str(), a.role)).collect();
    assert_eq!(roles, vec![(OLENA, Role::Admin), (PETRO, Role::Operator)], "the first account is an admin");
    assert_eq!(
        f.store.set_role(OLENA.into(), Role::Operator, admin_did(Action::ChangedRole)).await.unwrap(),
        AccountChange::LastAdmin
    );
    assert_eq!(
        f.store.remove_operator(OLENA.into(), admin_did(Action::RemovedOperator)).await.unwrap(),
        AccountChange::LastAdmin
    );
    let nobody = f
        .store
        .remove_operator("nobody@example.org".into(), admin_did(Action::RemovedOperator))
        .await
        .unwrap();
    assert_eq!(nobody, AccountChange::NoSuchOperator);

    let expires = now() + SignedDuration::from_hours(1);
    let checked = f.store.operator(PETRO.into()).await.unwrap().unwrap();
    assert!(f.store.create_session("token".into(), &checked, "csrf".into(), expires, false).await.unwrap());
    let session = f.store.session("token".into()).await.unwrap().expect("signed in");
    assert_eq!(
        (session.email.as_str(), session.role, session.csrf_token.as_str()),
        (PETRO, Role::Operator, "csrf")
    );
    assert_eq!(
        f.store.set_role(PETRO.into(), Role::Admin, admin_did(Action::ChangedRole)).await.unwrap(),
        AccountChange::Done
    );
    assert!(f.store.session("token".into()).await.unwrap().is_none(), "signed out by the change");
}

/// A sign-in checks the password (and the code) against the account as it read it, then waits its
/// turn to hash; a password changed or a second factor set up meanwhile ended the sessions there
/// were, and the sign-in must not start one that outlives the change.
#[tokio::test]
async fn a_session_is_not_started_for_a_password_or_a_factor_changed_since_the_check() {
    let f = fixture().await;
    let store = &f.store;
    common::add_account(store, PETRO, "old hash".into(), None).await;
    let account = || async { store.operator(PETRO.into()).await.unwrap().unwrap() };
    let expires = now() + SignedDuration::from_hours(1);
    let start = |token: &'static str, checked: Operator| async move {
        let created = store.create_session(token.into(), &checked, "csrf".into(), expires, false).await;
        (created.unwrap(), store.session(token.into()).await.unwrap().is_some())
    };

    let with_old_password = account().await;
    assert!(
        store
            .set_password(PETRO.into(), "new hash".into(), admin_did(Action::ChangedPassword))
            .await
            .unwrap()
    );
    assert_eq!(start("old password", with_old_password).await, (false, false));
    assert_eq!(start("new password", account().await).await, (true, true));

    let before_the_factor = account().await;
    assert!(store.start_second_factor(before_the_factor.id, "SECRET".into()).await.unwrap());
    let confirmed = FactorConfirmed {
        operator_id: before_the_factor.id,
        secret: "SECRET".into(),
        step: 1,
        code_hashes: Vec::new(),
        session_token_hash: "new password".into(),
    };
    assert!(store.confirm_second_factor(confirmed, did(PETRO, Action::SecondFactorOn)).await.unwrap());
    let created = store.create_session("no code".into(), &before_the_factor, "csrf".into(), expires, true);
    assert!(!created.await.unwrap(), "checked without the factor, it may not pass it");
    assert!(store.session("new password".into()).await.unwrap().is_some(), "the confirming session");
}

#[tokio::test]
async fn closed_days_are_kept_once_each_read_in_order_and_join_the_calendar() {
    let f = fixture().await;
    let day = |text: &str| text.parse::<jiff::civil::Date>().unwrap();
    let now = now();
    assert!(
        f.store
            .add_closed_day(day("2027-01-07"), None, now, did(OLENA, Action::AddedClosedDay))
            .await
            .unwrap()
    );
    assert!(
        f.store
            .add_closed_day(
                day("2027-01-01"),
                Some("Новий рік".into()),
                now,
                did(OLENA, Action::AddedClosedDay)
            )
            .await
            .unwrap()
    );
    // Again: nothing changes, the first note and who added it stay.
    assert!(
        !f.store
            .add_closed_day(day("2027-01-01"), None, now, did(PETRO, Action::AddedClosedDay))
            .await
            .unwrap()
    );
    let listed = f.store.closed_days(day("2026-12-31"), 10).await.unwrap();
    let read: Vec<(String, Option<String>, String)> =
        listed.iter().map(|c| (c.day.to_string(), c.note.clone(), c.added_by.clone())).collect();
    assert_eq!(
        read,
        [
            ("2027-01-01".to_owned(), Some("Новий рік".to_owned()), OLENA.to_owned()),
            ("2027-01-07".to_owned(), None, OLENA.to_owned()),
        ]
    );
    assert_eq!(listed[0].added_at.parse::<Timestamp>().unwrap(), now);
    // From a day on, and at most so many.
    assert_eq!(f.store.closed_days(day("2027-01-02"), 10).await.unwrap().len(), 1);
    assert_eq!(f.store.closed_days(day("2026-12-31"), 1).await.unwrap()[0].day, day("2027-01-01"));

    // The calendar at a moment before them has them on top of the settings' days.
    let settings = zayavka::calendar::Calendar {
        hours: None,
        closed: zayavka::calendar::ClosedDays::parse("2027-01-02").unwrap(),
    };
    let before = "2026-12-30T12:00:00+02:00".parse::<Timestamp>().unwrap();
    let calendar = f.store.calendar(settings.clone(), before).await.unwrap();
    for closed in ["2027-01-01", "2027-01-02", "2027-01-07"] {
        assert!(calendar.closed.contains(day(closed)), "{closed}");
    }
    assert!(!calendar.closed.contains(day("2027-01-03")));

    assert!(f.store.remove_closed_day(day("2027-01-01"), admin_did(Action::RemovedClosedDay)).await.unwrap());
    assert!(
        !f.store.remove_closed_day(day("2027-01-01"), admin_did(Action::RemovedClosedDay)).await.unwrap()
    );
    let calendar = f.store.calendar(settings, before).await.unwrap();
    assert!(!calendar.closed.contains(day("2027-01-01")) && calendar.closed.contains(day("2027-01-07")));
}

#[tokio::test]
async fn the_store_reopens_with_what_it_kept() {
    let f = fixture().await;
    let id = f.add(lead("Ганна", "+380671234567")).await;
    f.store.close().await;
    let reopened = Store::open(&f.database.settings_url()).await.unwrap();
    assert_eq!(reopened.lead(id).await.unwrap().map(|record| record.name), Some("Ганна".to_owned()));
    reopened.ping().await.unwrap();
}

#[tokio::test]
async fn an_export_writes_every_lead_once_in_order_across_the_ids_of_erased_ones() {
    // An export reads pages of a thousand ids side by side (src/export.rs): a run of 2,000 erased
    // leads leaves at least one page with nothing in it, and the pages after it still come, in order.
    let f = fixture().await;
    let insert = |leads: Vec<NewLead>| {
        let store = f.store.clone();
        async move {
            for request in leads.chunks(250) {
                store.insert(request.to_vec(), &context(&[]), None).await.unwrap();
            }
        }
    };
    let others = |from: usize| (from..from + 700).map(|n| lead("Олена", &format!("+38067{n:07}"))).collect();
    insert(others(0)).await;
    insert(vec![lead("Ганна", "+380501112233"); 2_000]).await;
    insert(others(700)).await;
    assert_eq!(f.store.erase_phone("+380501112233").await.unwrap(), 2_000);

    let file = common::exported(&f.store, zayavka::export::Format::Jsonl).await;
    let lines: Vec<serde_json::Value> =
        String::from_utf8(file).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let ids: Vec<i64> = lines.iter().map(|line| line["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), 1_400, "every lead but the erased ones");
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "oldest first, each once");
    assert!(lines.iter().all(|line| line["name"] == "Олена"));
}

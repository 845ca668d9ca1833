//! What both entry points of a lead (`/rest/v1/CRN` and `/leads`) do the same way: the rate limit,
//! weighing whether a lead looks automated (held for review, never dropped), storing, and counting
//! each outcome for `/metrics`.

use axum::http::HeaderMap;

use super::client::{ClientInfo, request_cookie};
use crate::abuse::{self, Limited, ProofCheck, Signal};
use crate::http::AppState;
use crate::lead::NewLead;
use crate::metrics::Refusal;
use crate::store::{Idempotency, StoreError, Stored};

/// Takes `leads` tokens from the client's bucket: a request of several rows is several submits.
/// On PostgreSQL the bucket is the database's, shared by every instance; should the database not
/// answer, this instance's own bucket decides (the insert will fail anyway).
pub async fn check_rate(state: &AppState, client: &ClientInfo, leads: u32) -> Result<(), Limited> {
    let Some(limiter) = &state.limiter else { return Ok(()) };
    let checked = async {
        let Some(cost) = limiter.cost(leads)? else { return Ok(()) };
        let key = state.volume.client_key(client.ip);
        match state.store.take_submit_tokens(key, cost, limiter.full()).await {
            Ok(Some(wait)) if wait.is_zero() => Ok(()),
            Ok(Some(wait)) => Err(limiter.limited(wait)),
            Ok(None) => limiter.check(client.ip, leads),
            Err(e) => {
                tracing::warn!(error = %e, "the shared rate limit did not answer; this instance's decides");
                limiter.check(client.ip, leads)
            }
        }
    };
    checked.await.inspect_err(|_| {
        state.metrics.refused(Refusal::RateLimited);
        tracing::info!("submit rate-limited");
    })
}

/// What a request says about who sent it, whatever its leads: read once per request.
pub struct Sender {
    signals: Vec<Signal>,
    /// A valid proof, to see one proof sent with many phones.
    proof: Option<String>,
}

/// Reads the page-load proof (the `X-Zayavka-Proof` header a script of ours sends, else the
/// cookie the page set) and its proof of work (`X-Zayavka-Work`), the `X-Zayavka-Flags` our script
/// sends (`honeypot`, `webdriver`), the form's own honeypot and the user agent. `work_due`: the
/// page's script does the work here (the JSON insert over HTTPS, where browsers have WebCrypto);
/// wrong work holds a lead anywhere.
pub fn sender(state: &AppState, headers: &HeaderMap, honeypot_filled: bool, work_due: bool) -> Sender {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let proof =
        text("x-zayavka-proof").map(str::to_owned).or_else(|| request_cookie(headers, abuse::PROOF_COOKIE));
    let flags: Vec<&str> = text("x-zayavka-flags").unwrap_or("").split_whitespace().collect();
    let mut signals = Vec::new();
    let mut valid_proof = None;
    match state.proof_key.check(proof.as_deref(), abuse::unix_now()) {
        ProofCheck::Valid { age_seconds } => {
            if age_seconds < i64::from(state.settings.min_fill_seconds) {
                signals.push(Signal::TooFast);
            }
            match (text("x-zayavka-work"), proof.as_deref()) {
                (Some(work), Some(proof)) if abuse::work_done(proof, work) => {}
                (None, _) if !work_due => {}
                _ => signals.push(Signal::NoWork),
            }
            valid_proof = proof;
        }
        ProofCheck::Missing => signals.push(Signal::NoProof),
        ProofCheck::Forged => signals.push(Signal::ForgedProof),
        ProofCheck::Expired => signals.push(Signal::ExpiredProof),
    }
    if honeypot_filled || flags.contains(&"honeypot") {
        signals.push(Signal::Honeypot);
    }
    if flags.contains(&"webdriver") || text("user-agent").is_some_and(abuse::automated_user_agent) {
        signals.push(Signal::Automation);
    }
    Sender { signals, proof: valid_proof }
}

/// Decides, lead by lead, whether it goes to the call list or is held for review, and notes it for
/// the burst counts (which, like the rate limit, are off when `ZAYAVKA_RATE_LIMIT_PER_MINUTE` is 0;
/// on PostgreSQL they are the database's, shared by every instance).
pub async fn weigh(state: &AppState, client: &ClientInfo, sender: &Sender, leads: &mut [NewLead]) {
    for lead in leads {
        let mut signals = sender.signals.clone();
        if !lead.phone_in_plan {
            signals.push(Signal::ImpossibleNumber);
        }
        if state.limiter.is_some() {
            let name = crate::inbox::fold(&lead.name);
            let tally = state.volume.tally(client.ip, &name, sender.proof.as_deref(), &lead.phone_e164);
            let phones = match state.store.count_phones(tally.keys.clone(), tally.phone).await {
                Ok(Some(shared)) => shared,
                Ok(None) => state.volume.note(&tally),
                Err(e) => {
                    tracing::warn!(error = %e, "the shared burst counts did not answer; this instance's decide");
                    state.volume.note(&tally)
                }
            };
            signals.extend(tally.signals(&phones));
        }
        if abuse::holds(&signals, state.settings.hold_without_proof) {
            lead.held =
                abuse::ALL_SIGNALS.into_iter().filter(|s| signals.contains(s)).map(Signal::code).collect();
        }
    }
}

pub fn invalid(state: &AppState) {
    state.metrics.refused(Refusal::Invalid);
}

/// Stores the leads (durably) and counts what happened. Logs ids only, never a name or phone.
pub async fn store(
    state: &AppState,
    leads: Vec<NewLead>,
    idempotency: Option<Idempotency>,
) -> Result<Vec<Stored>, StoreError> {
    if leads.is_empty() {
        return Ok(Vec::new());
    }
    let held: Vec<Vec<&'static str>> = leads.iter().map(|lead| lead.held.clone()).collect();
    match state.store.insert(leads, &state.insert_context, idempotency).await {
        Ok(stored) => {
            for (row, held) in stored.iter().zip(&held) {
                state.metrics.stored(row.repeat_of.is_some(), held);
                match (row.repeat_of, held.is_empty()) {
                    (_, false) => {
                        tracing::info!(
                            id = row.lead.id,
                            held = held.join(" "),
                            "lead stored, held for review"
                        )
                    }
                    (Some(first), true) => {
                        tracing::info!(id = row.lead.id, repeat_of = first, "lead stored as a repeat")
                    }
                    (None, true) => tracing::info!(id = row.lead.id, "lead stored"),
                }
            }
            let call_list: Vec<i64> = stored
                .iter()
                .zip(&held)
                .filter(|(row, held)| row.repeat_of.is_none() && held.is_empty())
                .map(|(row, _)| row.lead.id)
                .collect();
            if !call_list.is_empty() {
                state.notifier.wake();
                state.hand_outs.queue(call_list);
            }
            Ok(stored)
        }
        Err(StoreError::IdempotencyKeyTaken) => Err(StoreError::IdempotencyKeyTaken),
        Err(e) => {
            state.metrics.refused(Refusal::Unavailable);
            tracing::error!(error = %e, "storing a lead failed");
            Err(e)
        }
    }
}

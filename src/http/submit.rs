//! The adapters both entry points of a lead (`/rest/v1/CRN` and `/leads`) share: what a request
//! says about its sender (the page-load proof, flags, honeypot, user agent), read from its headers,
//! and the intake use cases (`application::intake`) called with this server's services.

use axum::http::HeaderMap;

use super::client::{ClientInfo, request_cookie};
use crate::abuse::{self, Limited, ProofCheck, Signal};
use crate::application::intake::{self, Sender};
use crate::http::AppState;
use crate::lead::NewLead;
use crate::metrics::Refusal;
use crate::store::{Idempotency, StoreError, Stored};

/// `application::intake::check_rate` for this client.
pub async fn check_rate(state: &AppState, client: &ClientInfo, leads: u32) -> Result<(), Limited> {
    intake::check_rate(state.services(), state.intake(), client.ip, leads).await
}

/// Reads the page-load proof (the first valid one of the `X-Zayavka-Proof` header a script of ours
/// sends, the cookie the page set and `form_proof`, the one the page wrote into the form; else the
/// first of them there is) and its proof of work (`X-Zayavka-Work`), the `X-Zayavka-Flags` our
/// script sends (`honeypot`, `webdriver`), the form's own honeypot and the user agent. `work_due`:
/// the page's script does the work here (the JSON insert over HTTPS, where browsers have
/// WebCrypto); wrong work holds a lead anywhere.
pub fn sender(
    state: &AppState,
    headers: &HeaderMap,
    form_proof: Option<&str>,
    honeypot_filled: bool,
    work_due: bool,
) -> Sender {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let now = state.clock.unix_seconds();
    let cookie = request_cookie(headers, abuse::PROOF_COOKIE);
    // A cookie left from an earlier page does not outweigh the fresh proof in the form. Each
    // proof is checked once, up to the first valid one.
    let mut first = None;
    let mut chosen = None;
    for given in [text("x-zayavka-proof"), cookie.as_deref(), form_proof].into_iter().flatten() {
        let check = state.proof_key.check(Some(given), now);
        first.get_or_insert((given, check));
        if matches!(check, ProofCheck::Valid { .. }) {
            chosen = Some((given, check));
            break;
        }
    }
    let (proof, check) = chosen.or(first).map_or((None, ProofCheck::Missing), |(p, c)| (Some(p), c));
    let flags: Vec<&str> = text("x-zayavka-flags").unwrap_or("").split_whitespace().collect();
    let mut signals = Vec::new();
    let mut valid_proof = None;
    match check {
        ProofCheck::Valid { age_seconds } => {
            if age_seconds < i64::from(state.settings.min_fill_seconds) {
                signals.push(Signal::TooFast);
            }
            match (text("x-zayavka-work"), proof) {
                (Some(work), Some(proof)) if abuse::work_done(proof, work) => {}
                (None, _) if !work_due => {}
                _ => signals.push(Signal::NoWork),
            }
            valid_proof = proof.map(str::to_owned);
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

/// `application::intake::weigh` for this client's leads.
pub async fn weigh(state: &AppState, client: &ClientInfo, sender: &Sender, leads: &mut [NewLead]) {
    intake::weigh(state.services(), state.intake(), client.ip, sender, leads).await;
}

pub fn invalid(state: &AppState) {
    state.metrics.refused(Refusal::Invalid);
}

/// `application::intake::store`: stores the leads and counts what happened.
pub async fn store(
    state: &AppState,
    leads: Vec<NewLead>,
    idempotency: Option<Idempotency>,
) -> Result<Vec<Stored>, StoreError> {
    intake::store(state.services(), state.intake(), leads, idempotency).await
}

//! What both entry points of a lead (`/rest/v1/CRN` and `/leads`) do the same way: the rate limit,
//! the bot checks, storing, and counting each outcome for `/metrics`.

use axum::http::HeaderMap;

use super::client::ClientInfo;
use crate::abuse::{self, Limited};
use crate::app::AppState;
use crate::lead::NewLead;
use crate::metrics::Refusal;
use crate::store::{Idempotency, StoreError, Stored};

/// Takes `leads` tokens from the client's bucket: a request of several rows is several submits.
pub fn check_rate(state: &AppState, client: &ClientInfo, leads: u32) -> Result<(), Limited> {
    let Some(limiter) = &state.limiter else { return Ok(()) };
    limiter.check(client.ip, leads).inspect_err(|_| {
        state.metrics.refused(Refusal::RateLimited);
        tracing::info!("submit rate-limited");
    })
}

/// Sent too soon after the page loaded: answered as a success, nothing stored.
pub fn sent_too_fast(state: &AppState, headers: &HeaderMap) -> bool {
    let too_fast = abuse::sent_too_fast(headers, state.settings.min_fill_seconds, abuse::unix_now());
    if too_fast {
        state.metrics.refused(Refusal::TooFast);
        tracing::info!("submit faster than a person; lead dropped");
    }
    too_fast
}

/// The honeypot was filled in: answered as a success, nothing stored.
pub fn honeypot(state: &AppState) {
    state.metrics.refused(Refusal::Honeypot);
    tracing::info!("honeypot filled; lead dropped");
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
    match state.store.insert(leads, &state.insert_context, idempotency).await {
        Ok(stored) => {
            for row in &stored {
                state.metrics.stored(row.repeat_of.is_some());
                match row.repeat_of {
                    Some(first) => {
                        tracing::info!(id = row.lead.id, repeat_of = first, "lead stored as a repeat")
                    }
                    None => tracing::info!(id = row.lead.id, "lead stored"),
                }
            }
            if stored.iter().any(|row| row.repeat_of.is_none()) {
                state.notifier.wake();
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

//! A submit's leads, from either entry point (`/rest/v1/CRN` and `/leads`): the rate limit,
//! weighing whether a lead looks automated (held for review, never dropped), storing durably,
//! counting each outcome for `/metrics`, then notifying and handing out the new leads of the call
//! list.

use std::net::IpAddr;

use super::Services;
use super::hand_out::HandOuts;
use crate::abuse::{self, Limited, Signal, SubmitLimiter, Volume};
use crate::lead::NewLead;
use crate::metrics::Refusal;
use crate::store::{Idempotency, InsertContext, StoreError, Stored};

/// What intake keeps beside the services, built once for the server.
#[derive(Clone, Copy)]
pub struct Intake<'a> {
    /// `None` when rate limiting (and with it the burst counts) is off.
    pub limiter: Option<&'a SubmitLimiter>,
    /// Recent submissions per client, name and proof, for the burst and reuse signals.
    pub volume: &'a Volume,
    /// What every insert carries: the channels to notify, the privacy policy's version, the
    /// duplicate window.
    pub insert_context: &'a InsertContext,
    pub hand_outs: &'a HandOuts,
}

/// What a request says about who sent it, whatever its leads: read once per request.
pub struct Sender {
    pub signals: Vec<Signal>,
    /// A valid page-load proof, to see one proof sent with many phones.
    pub proof: Option<String>,
}

/// Takes `leads` tokens from the client's bucket: a request of several rows is several submits.
/// On PostgreSQL the bucket is the database's, shared by every instance; should the database not
/// answer, this instance's own bucket decides (the insert will fail anyway).
pub async fn check_rate(
    services: Services<'_>,
    intake: Intake<'_>,
    client: IpAddr,
    leads: u32,
) -> Result<(), Limited> {
    let Some(limiter) = intake.limiter else { return Ok(()) };
    let checked = async {
        let Some(cost) = limiter.cost(leads)? else { return Ok(()) };
        let key = intake.volume.client_key(client);
        match services.store.take_submit_tokens(key, cost, limiter.full()).await {
            Ok(Some(wait)) if wait.is_zero() => Ok(()),
            Ok(Some(wait)) => Err(limiter.limited(wait)),
            Ok(None) => limiter.check(client, leads),
            Err(e) => {
                tracing::warn!(error = %e, "the shared rate limit did not answer; this instance's decides");
                limiter.check(client, leads)
            }
        }
    };
    checked.await.inspect_err(|_| {
        services.metrics.refused(Refusal::RateLimited);
        tracing::info!("submit rate-limited");
    })
}

/// Decides, lead by lead, whether it goes to the call list or is held for review, and notes it for
/// the burst counts (which, like the rate limit, are off when `ZAYAVKA_RATE_LIMIT_PER_MINUTE` is 0;
/// on PostgreSQL they are the database's, shared by every instance).
pub async fn weigh(
    services: Services<'_>,
    intake: Intake<'_>,
    client: IpAddr,
    sender: &Sender,
    leads: &mut [NewLead],
) {
    for lead in leads {
        let mut signals = sender.signals.clone();
        if !lead.phone_in_plan {
            signals.push(Signal::ImpossibleNumber);
        }
        if intake.limiter.is_some() {
            let name = crate::inbox::fold(&lead.name);
            let tally = intake.volume.tally(client, &name, sender.proof.as_deref(), &lead.phone_e164);
            let phones = match services.store.count_phones(tally.keys.clone(), tally.phone).await {
                Ok(Some(shared)) => shared,
                Ok(None) => intake.volume.note(&tally),
                Err(e) => {
                    tracing::warn!(error = %e, "the shared burst counts did not answer; this instance's decide");
                    intake.volume.note(&tally)
                }
            };
            let proved = sender.proof.is_some() && !sender.signals.contains(&Signal::NoWork);
            signals.extend(tally.signals(&phones, proved));
        }
        if abuse::holds(&signals, services.settings.hold_without_proof) {
            lead.held =
                abuse::ALL_SIGNALS.into_iter().filter(|s| signals.contains(s)).map(Signal::code).collect();
        }
    }
}

/// Stores the leads (durably) and counts what happened; then the new leads of the call list (not
/// repeats, not held) are notified and queued to be handed out. Logs ids only, never a name or
/// phone.
pub async fn store(
    services: Services<'_>,
    intake: Intake<'_>,
    leads: Vec<NewLead>,
    idempotency: Option<Idempotency>,
) -> Result<Vec<Stored>, StoreError> {
    if leads.is_empty() {
        return Ok(Vec::new());
    }
    let metrics = services.metrics;
    let held: Vec<Vec<&'static str>> = leads.iter().map(|lead| lead.held.clone()).collect();
    match services.store.insert(leads, intake.insert_context, idempotency).await {
        Ok(stored) => {
            for (row, held) in stored.iter().zip(&held) {
                metrics.stored(row.repeat_of.is_some(), held);
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
                services.wake_notifier();
                intake.hand_outs.queue(call_list);
            }
            // A repeat of a lead someone holds queued a "wrote again" notice with it.
            let repeats = stored.iter().any(|row| row.repeat_of.is_some());
            if repeats && !intake.insert_context.channels.is_empty() {
                services.wake_notifier();
            }
            Ok(stored)
        }
        Err(StoreError::IdempotencyKeyTaken) => Err(StoreError::IdempotencyKeyTaken),
        Err(e) => {
            metrics.refused(Refusal::Unavailable);
            tracing::error!(error = %e, "storing a lead failed");
            Err(e)
        }
    }
}

//! What is done to a lead: a call recorded, a held lead released to the call list, a person's
//! leads erased (a privacy request).

use jiff::Timestamp;

use super::{Actor, Services, hand_out};
use crate::inbox::{CallPlan, Outcome};
use crate::store::{CallLogged, NewAttempt, StoreError};
use crate::team::Action;

/// Longest call note, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;
/// The furthest ahead a call-back may be set.
pub const CALL_BACK_WITHIN: jiff::SignedDuration = jiff::SignedDuration::from_hours(24 * 90);
/// The earliest call-back taken. A past time is due at once, as the contract has it (an API client
/// cannot wait for a time to come); before this one the two engines would store and say it
/// differently (PostgreSQL's text loses the era), and no call-back is meant.
pub const CALL_BACK_FROM: Timestamp = Timestamp::UNIX_EPOCH;

/// A call as the operator reports it.
pub struct Call {
    /// The outcome's name (`no_answer`, …). Without one, a call that sets `call_back_at` is a
    /// `call_back`.
    pub outcome: Option<String>,
    pub note: String,
    /// "Передзвонити о …": when the person asked to be called.
    pub call_back_at: Option<Timestamp>,
    /// The request's `Idempotency-Key`: the same call sent again with it (its answer lost on the
    /// way) is logged once (ADR 0084).
    pub request_key: Option<String>,
}

/// A call recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    pub outcome: Outcome,
    /// Recorded by an earlier sending of the same request, not again now.
    pub before: bool,
}

/// Why a call was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum CallRefusal {
    #[error("no outcome")]
    NoOutcome,
    #[error("an unknown outcome")]
    UnknownOutcome,
    #[error("the call-back is more than 90 days ahead")]
    CallBackTooFar,
    #[error("the call-back is before 1970")]
    CallBackTooEarly,
    #[error("a call-back for a call that closes the lead")]
    CallBackOnClosed,
    #[error("a call-back without its time")]
    CallBackWithoutTime,
    #[error("the note is longer than {MAX_NOTE_CHARS} characters")]
    NoteTooLong,
    #[error("no such lead")]
    NoSuchLead,
    /// Held for review: released to the call list before anyone calls.
    #[error("the lead is held")]
    Held,
    /// A repeat: its calls go on the person's first lead.
    #[error("the lead is a repeat")]
    Repeat,
    /// The request's key names another call the operator recorded.
    #[error("the request key was used for another call")]
    KeyTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Records a call to lead `id` at `now`: its outcome moves the lead on, an unanswered call
/// schedules the next try by the retry cadence (working time only), and the trail says who called.
/// Only a lead of the call list is called, as the inbox offers it: not a held lead, nor a repeat.
/// A call whose request came before under the same key is not recorded twice.
pub async fn record_call(
    services: Services<'_>,
    id: i64,
    call: Call,
    actor: &Actor,
    now: Timestamp,
) -> Result<Recorded, CallRefusal> {
    let Call { outcome, note, call_back_at, request_key } = call;
    if call_back_at.is_some_and(|at| at > now + CALL_BACK_WITHIN) {
        return Err(CallRefusal::CallBackTooFar);
    }
    if call_back_at.is_some_and(|at| at < CALL_BACK_FROM) {
        return Err(CallRefusal::CallBackTooEarly);
    }
    let outcome = match (outcome, call_back_at) {
        (None, Some(_)) => Outcome::CallBack,
        (Some(name), _) => {
            Outcome::ALL.into_iter().find(|o| o.as_str() == name).ok_or(CallRefusal::UnknownOutcome)?
        }
        (None, None) => return Err(CallRefusal::NoOutcome),
    };
    if call_back_at.is_some() && !outcome.status_after(0).is_open() {
        return Err(CallRefusal::CallBackOnClosed);
    }
    if outcome == Outcome::CallBack && call_back_at.is_none() {
        return Err(CallRefusal::CallBackWithoutTime);
    }
    // The cadence's times (a walk through working time) only where a retry is to be scheduled.
    let settings = services.settings;
    let plan = if outcome == Outcome::NoAnswer && call_back_at.is_none() {
        let calendar = services.store.calendar(settings.settings_calendar(), now).await?;
        let at_once = calendar.next_working(now).unwrap_or(now);
        CallPlan { at_once, call_back_at, retries: settings.retry_cadence.retries_after(&calendar, now) }
    } else {
        CallPlan { at_once: now, call_back_at, retries: Vec::new() }
    };
    let note = crate::lead::clean::multi_line(&note);
    if note.chars().count() > MAX_NOTE_CHARS {
        return Err(CallRefusal::NoteTooLong);
    }
    let trail = actor.did(Action::RecordedCall, Some(id), Some(outcome.as_str().to_owned()));
    let call =
        NewAttempt { lead_id: id, operator: actor.name.clone(), outcome, note, plan, request_key, trail };
    match services.store.add_attempt(call).await? {
        CallLogged::Logged => {}
        CallLogged::Before => return Ok(Recorded { outcome, before: true }),
        CallLogged::KeyTaken => return Err(CallRefusal::KeyTaken),
        CallLogged::NotCallable => {
            let lead = services.store.lead(id).await?.ok_or(CallRefusal::NoSuchLead)?;
            return Err(if lead.held.is_some() {
                CallRefusal::Held
            } else if lead.repeat_of.is_some() {
                CallRefusal::Repeat
            } else {
                CallRefusal::NoSuchLead
            });
        }
    }
    Ok(Recorded { outcome, before: false })
}

/// Moves held lead `id` to the call list: due for a call at once, its notifications queued and
/// sent, handed out in turn under round-robin, and the release in the trail. Where the person has
/// an open lead of the call list already (within the duplicate window), the released lead is its
/// repeat instead: one person, one lead to call (ADR 0085). `false` if there is no held lead `id`.
pub async fn release(services: Services<'_>, id: i64, actor: &Actor) -> Result<bool, StoreError> {
    let Services { store, settings, .. } = services;
    let trail = actor.did(Action::Released, Some(id), None);
    if !store.release(id, settings.notify.channels(), settings.duplicate_window(), trail).await? {
        return Ok(false);
    }
    services.wake_notifier();
    // At once, not queued: whoever released it sees who has the lead now.
    hand_out::hand_out(store, settings, vec![id]).await;
    Ok(true)
}

/// Why a person's leads were not erased.
#[derive(Debug, thiserror::Error)]
pub enum EraseRefusal {
    /// The text read as no phone number: nothing is erased, rather than a guess.
    #[error("not a phone number")]
    NotAPhone,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Deletes every lead of the person with this phone (as typed: read the way a visitor's is), with
/// their calls and queued notifications; the trail keeps how many went, even if the engine's log
/// still holds them (then the answer is an error, and erasing again removes them). Returns that
/// number.
pub async fn erase(services: Services<'_>, phone: &str, actor: &Actor) -> Result<usize, EraseRefusal> {
    let phone_e164 = crate::lead::normalise_phone(phone).ok_or(EraseRefusal::NotAPhone)?;
    let erased = services.store.erase_phone(&phone_e164).await?;
    let detail = Some(format!("{erased} lead(s)"));
    services.store.audit(actor.did(Action::Erased, None, detail)).await?;
    services.store.scrub_log().await?;
    Ok(erased)
}

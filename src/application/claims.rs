//! Who calls whom (ADR 0016): an operator takes a lead before calling and may give it back, and
//! an admin hands a lead to someone or back to the pool. Round-robin is [`super::hand_out`].

use jiff::Timestamp;

use super::{Actor, Services};
use crate::inbox::{TakeRefusal, claim_until};
use crate::store::StoreError;
use crate::team::{Action, account_detail};

/// Why a lead was not taken, given back or handed over.
#[derive(Debug, thiserror::Error)]
pub enum ClaimRefusal {
    #[error("no such lead")]
    NoSuchLead,
    /// Not takeable: held, closed or a colleague's.
    #[error("the lead cannot be taken: {0:?}")]
    NotTakeable(TakeRefusal),
    /// Given back by someone who does not have it.
    #[error("the lead is not theirs")]
    NotTheirs,
    #[error("no such account")]
    NoSuchAccount,
    /// A repeat: the person's first lead is the one handed over.
    #[error("the lead is a repeat")]
    Repeat,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// "Я телефоную": lead `id` is the operator's for `ZAYAVKA_CLAIM_MINUTES`, or until their call.
pub async fn take(
    services: Services<'_>,
    id: i64,
    operator_id: i64,
    actor: &Actor,
    now: Timestamp,
) -> Result<(), ClaimRefusal> {
    let store = services.store;
    let until = claim_until(now, services.settings.claim_minutes);
    if !store.take(id, operator_id, until, now, actor.did(Action::TookLead, Some(id), None)).await? {
        let lead = store.lead(id).await?.ok_or(ClaimRefusal::NoSuchLead)?;
        // Taken by a colleague a moment ago (or so) when nothing else stands in the way.
        let refusal = lead.take_refusal(&actor.name, now).unwrap_or(TakeRefusal::Taken);
        return Err(ClaimRefusal::NotTakeable(refusal));
    }
    Ok(())
}

/// The operator puts a lead they have back in the pool.
pub async fn give_back(
    services: Services<'_>,
    id: i64,
    operator_id: i64,
    actor: &Actor,
    now: Timestamp,
) -> Result<(), ClaimRefusal> {
    let store = services.store;
    if !store.give_back(id, operator_id, now, actor.did(Action::GaveBack, Some(id), None)).await? {
        store.lead(id).await?.ok_or(ClaimRefusal::NoSuchLead)?;
        return Err(ClaimRefusal::NotTheirs);
    }
    Ok(())
}

/// Hands lead `id` to the account with this e-mail (with no end), or with `None` back to the pool.
/// Returns the account's id. Only a lead of the call list: a held lead is released first, and a
/// repeat's first lead is the one to hand over.
pub async fn hand_to(
    services: Services<'_>,
    id: i64,
    email: Option<&str>,
    actor: &Actor,
) -> Result<Option<i64>, ClaimRefusal> {
    let store = services.store;
    let account = match email {
        Some(email) => Some(
            store.operator(crate::auth::normalise_email(email)).await?.ok_or(ClaimRefusal::NoSuchAccount)?,
        ),
        None => None,
    };
    let operator_id = account.as_ref().map(|account| account.id);
    let detail = Some(account.map_or_else(|| "pool".to_owned(), |a| account_detail(&a.email, a.role)));
    if !store.hand_to(id, operator_id, actor.did(Action::HandedOver, Some(id), detail)).await? {
        let lead = store.lead(id).await?.ok_or(ClaimRefusal::NoSuchLead)?;
        return Err(if lead.held.is_some() {
            ClaimRefusal::NotTakeable(TakeRefusal::Held)
        } else {
            ClaimRefusal::Repeat
        });
    }
    Ok(operator_id)
}

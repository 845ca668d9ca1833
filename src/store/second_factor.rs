//! The second factor: secrets, used codes, recovery codes, refusals after wrong codes and the
//! notices they send.

use std::sync::Arc;

use super::{AuditEntry, Delivery, Engine, Store, StoreError};
use crate::notice::Channel;

/// When wrong second-factor codes refuse an account's codes: after `in_a_row` of them, for
/// `refusal(runs before)`, longer each run.
#[derive(Debug, Clone, Copy)]
pub struct CodeLimit {
    pub in_a_row: i64,
    pub refusal: fn(i64) -> jiff::SignedDuration,
}

/// An operator's second-factor secrets as the database keeps them (encrypted, or plain from
/// before encryption).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSecrets {
    pub operator_id: i64,
    pub secret: Option<String>,
    pub pending: Option<String>,
}

/// A second factor set up and confirmed by its first code (`Store::confirm_second_factor`).
#[derive(Debug, Clone)]
pub struct FactorConfirmed {
    pub operator_id: i64,
    /// The secret being set up, as the database keeps it.
    pub secret: String,
    /// The time step of the code that confirmed it.
    pub step: i64,
    /// The new recovery codes' hashes.
    pub code_hashes: Vec<String>,
    /// The session that confirmed it.
    pub session_token_hash: String,
}

/// A notice about an account a sender has claimed: its codes are refused until `refused_until`.
#[derive(Debug, Clone)]
pub struct AccountNoticeJob {
    pub id: i64,
    pub email: String,
    pub refused_until: jiff::Timestamp,
    pub channel: Channel,
    /// Including this one.
    pub attempts: i32,
}

impl Store {
    /// Keeps `secret` as the operator's second factor being set up (replacing one set up before
    /// and never confirmed); `false` if they have a confirmed one.
    pub async fn start_second_factor(&self, operator_id: i64, secret: String) -> Result<bool, StoreError> {
        dispatch!(self, start_second_factor(operator_id, secret))
    }

    /// Makes the secret being set up the operator's second factor, `step` its first code used,
    /// with these recovery codes (hashes) and with `trail`; `false` if that secret is no longer the
    /// one being set up. The session that confirmed it counts as having passed it; the operator's
    /// other sessions end, as none of them did.
    pub async fn confirm_second_factor(
        &self,
        confirmed: FactorConfirmed,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, confirm_second_factor(confirmed, self.clock.now(), trail.printable()))
    }

    /// Records a code's time step as used; `false` if it or a later one was used already (a code
    /// signs in once).
    pub async fn use_code_step(&self, operator_id: i64, step: i64) -> Result<bool, StoreError> {
        dispatch!(self, use_code_step(operator_id, step))
    }

    /// Uses up a recovery code (by its hash); `false` if it is not one of theirs or was used.
    pub async fn use_recovery_code(&self, operator_id: i64, code_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, use_recovery_code(operator_id, code_hash, self.clock.now()))
    }

    pub async fn recovery_codes_left(&self, operator_id: i64) -> Result<i64, StoreError> {
        dispatch!(self, recovery_codes_left(operator_id))
    }

    /// Every operator's second-factor secrets, of those who have any.
    pub async fn second_factor_secrets(&self) -> Result<Vec<StoredSecrets>, StoreError> {
        dispatch!(self, second_factor_secrets())
    }

    /// Replaces an operator's secrets as kept (`before`) with `after` (the same, encrypted);
    /// `false` if they changed meanwhile (set up or reset: the next start sees them again).
    pub async fn replace_second_factor_secrets(
        &self,
        before: StoredSecrets,
        after: StoredSecrets,
    ) -> Result<bool, StoreError> {
        dispatch!(self, replace_second_factor_secrets(before, after))
    }

    /// Counts a wrong code typed after a right password. The `limit.in_a_row`th in a row refuses
    /// the account's codes until `now` + the refusal, queues a notice on each of `channels` in
    /// the same transaction, and says until when.
    pub async fn code_failed(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
        limit: CodeLimit,
        channels: Arc<[Channel]>,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        dispatch!(self, code_failed(operator_id, now, limit, channels))
    }

    /// Until when the account's codes are refused, if they are at `now`.
    pub async fn codes_refused_until(
        &self,
        operator_id: i64,
        now: jiff::Timestamp,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        dispatch!(self, codes_refused_until(operator_id, now))
    }

    /// Claims due account notices on `channels` until `lease_until`, as `claim_outbox` does.
    pub async fn claim_account_notices(
        &self,
        now: jiff::Timestamp,
        lease_until: jiff::Timestamp,
        channels: Arc<[Channel]>,
    ) -> Result<Vec<AccountNoticeJob>, StoreError> {
        dispatch!(self, claim_account_notices(now, lease_until, channels))
    }

    pub async fn account_notices_done(&self, deliveries: Vec<Delivery>) -> Result<(), StoreError> {
        dispatch!(self, account_notices_done(deliveries, self.clock.now()))
    }

    /// Forgets an operator's second factor and recovery codes and ends their sessions (a lost
    /// phone); `false` if there is no such account.
    pub async fn reset_second_factor(&self, email: String, trail: AuditEntry) -> Result<bool, StoreError> {
        dispatch!(self, reset_second_factor(email, self.clock.now(), trail.printable()))
    }
}

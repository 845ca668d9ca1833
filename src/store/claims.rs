//! Who has a lead (taken, or handed out in turn) and the figures per source and per operator.

use super::{AuditEntry, CountsAt, Engine, Store, StoreError};

/// Leads and how many were reached within 48 hours, per stored `(utm_source, referrer)`; the
/// caller names the source (`crate::inbox::source_of`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceCount {
    pub utm_source: Option<String>,
    pub referrer: Option<String>,
    pub leads: i64,
    pub reached: i64,
}

/// One operator's calls (by the e-mail the call log keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorCount {
    pub email: String,
    /// Calls made.
    pub calls: i64,
    /// Leads this operator's call reached within 48 hours of their sending.
    pub reached: i64,
}

impl Store {
    /// Gives the lead to the operator until `until`, if it is an open first lead of the call list
    /// that nobody else has at `now` (`crate::inbox::LeadRecord::take_refusal` says why not).
    /// One already handed to them stays theirs without an end. `false` if it was not given.
    /// `trail` is written with the claim, or neither is (as with every change of one lead here).
    pub async fn take(
        &self,
        id: i64,
        operator_id: i64,
        until: jiff::Timestamp,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, take(id, operator_id, until, now, trail.printable()))
    }

    /// Puts the lead back in the pool if this operator has it at `now`; `false` if not.
    pub async fn give_back(
        &self,
        id: i64,
        operator_id: i64,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, give_back(id, operator_id, now, trail.printable()))
    }

    /// Hands the lead to the operator (an id) with no end, or to nobody; `false` if there is no
    /// such lead of the call list (none, a held one or a repeat).
    pub async fn hand_to(
        &self,
        id: i64,
        operator_id: Option<i64>,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, hand_to(id, operator_id, self.clock.now(), trail.printable()))
    }

    /// Hands each of these leads that is a first lead of the call list nobody has to the next
    /// account of role `operator` at work (signed in, used the inbox within `team::ON_SHIFT`, and
    /// with a second factor if one is required, so able to open the lead) after the one that got
    /// the previous lead (round-robin, shared by instances through the database); with nobody at
    /// work they stay in the pool. Returns how many were handed out.
    pub async fn hand_out_in_turn(&self, ids: Vec<i64>, require_2fa: bool) -> Result<usize, StoreError> {
        let now = self.clock.now();
        dispatch!(self, hand_out_in_turn(ids, now, now - crate::team::ON_SHIFT, require_2fa))
    }

    /// Per source: the first leads of the call list sent since `at.window_start`, and how many of
    /// them were reached within 48 hours. Most leads first.
    pub async fn source_counts(&self, at: CountsAt) -> Result<Vec<SourceCount>, StoreError> {
        dispatch!(self, source_counts(at))
    }

    /// Per operator who made calls since `since`: the calls, and the leads they reached within
    /// 48 hours. By e-mail.
    pub async fn operator_counts(&self, since: jiff::Timestamp) -> Result<Vec<OperatorCount>, StoreError> {
        dispatch!(self, operator_counts(since))
    }
}

//! The inbox's reads and the call log: lists, a lead with its repeats and calls, the call queue
//! and the figures.

use super::{AuditEntry, Engine, Store, StoreError};
use crate::inbox::{CallPlan, LeadRecord, Outcome, Status};

/// Which leads the inbox lists, newest first.
#[derive(Debug, Clone)]
pub struct LeadQuery {
    /// A `LIKE` pattern over the lower-cased name.
    pub name_pattern: Option<String>,
    /// The phones searched for.
    pub phone: Option<crate::inbox::PhoneSearch>,
    /// Only open leads (`crate::inbox::OPEN_STATUSES`)...
    pub open_only: bool,
    /// ...and of them only those whose 48 hours ran out: sent before this time, no call reached
    /// the person (overdue, ADR 0087).
    pub overdue_before: Option<jiff::Timestamp>,
    /// Leads with a smaller id (the next page).
    pub before_id: Option<i64>,
    /// The held leads instead of the call list.
    pub held: bool,
    /// Only the leads of the call list someone (or no one) has.
    pub holder: Holder,
    pub limit: u32,
}

#[cfg(test)]
impl LeadQuery {
    /// The leads whose name holds `part`, below `before_id`: the engines' own tests of name search.
    pub(crate) fn by_name(part: &str, before_id: Option<i64>, limit: u32) -> LeadQuery {
        LeadQuery {
            name_pattern: Some(format!("%{part}%")),
            phone: None,
            open_only: false,
            overdue_before: None,
            before_id,
            held: false,
            holder: Holder::Anyone,
            limit,
        }
    }
}

/// Whose leads a list shows (`crate::inbox::Claim`; a claim past its time is no one's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    Anyone,
    /// The leads this operator (an id) has at `now`.
    Operator {
        id: i64,
        now: jiff::Timestamp,
    },
    /// The leads nobody has at `now`.
    Nobody {
        now: jiff::Timestamp,
    },
}

/// One call to a lead.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Attempt {
    pub id: i64,
    pub at: String,
    /// The operator's e-mail.
    pub operator: String,
    /// An `Outcome` name, as `add_attempt` writes it.
    #[ts(as = "Outcome")]
    pub outcome: String,
    pub note: String,
}

/// A call to log (`Store::add_attempts`): who called which lead, what came of it, and the plan
/// of the next call.
#[derive(Debug, Clone)]
pub struct NewAttempt {
    pub lead_id: i64,
    /// The operator's e-mail.
    pub operator: String,
    pub outcome: Outcome,
    pub note: String,
    pub plan: CallPlan,
    /// The `Idempotency-Key` of the operator's request, if it carried one: a second call with it
    /// from the same operator is not logged again (ADR 0084).
    pub request_key: Option<String>,
    /// The call's audit entry, written with it and only with it (ADR 0088).
    pub trail: AuditEntry,
}

/// What logging a call did (`Store::add_attempts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallLogged {
    /// Logged now.
    Logged,
    /// Not logged: there is no such lead of the call list (none, a held one or a repeat).
    NotCallable,
    /// Not logged again: the operator's call with this request key, to this lead with this
    /// outcome and note, is logged already (its answer was lost, and the request came again).
    Before,
    /// Not logged: the operator's request key names another call already logged.
    KeyTaken,
}

/// The inbox's figures at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Leads held for review, waiting for a person to release or erase them.
    pub held: i64,
    pub open: i64,
    pub overdue: i64,
    /// Leads of the window whose 48 hours are over or that were reached...
    pub due: i64,
    /// ...and of them those reached within 48 hours.
    pub reached_in_time: i64,
    /// `YYYY-MM-DDTHH` (UTC) and the leads sent in that hour, hours without leads left out
    /// (whole hours, so the caller can count days in any time zone).
    pub per_hour: Vec<(String, i64)>,
}

/// The moments `Store::counts` measures against.
#[derive(Debug, Clone, Copy)]
pub struct CountsAt {
    /// Open leads nobody reached sent before this are overdue (now − 48 h; `on_the_clock_sql`).
    pub overdue_before: jiff::Timestamp,
    /// Start of the window of the "reached in time" share and the hourly counts.
    pub window_start: jiff::Timestamp,
}

/// The first UTC midnight at or after `at`: the breakdown sums its window's hours before it and
/// whole days from it (`source_days`, `operator_days`, ADR 0039).
pub(super) fn first_whole_day(at: jiff::Timestamp) -> jiff::Timestamp {
    const DAY: i64 = 24 * 3600 * 1_000_000;
    let micros = (at.as_microsecond() + DAY - 1).div_euclid(DAY) * DAY;
    jiff::Timestamp::from_microsecond(micros).expect("a day near a time")
}

/// The 48-hour promise in seconds, as the engines' figures take it: the rule is `inbox::PROMISE`,
/// passed into SQL, never written there.
pub(super) fn promise_seconds() -> f64 {
    crate::inbox::PROMISE.as_secs_f64()
}

/// Whether the 48 hours still run for the lead row `lead` names (a table, its alias or a trigger's
/// row), as `LeadRecord::on_the_clock` says it: a person's first lead of the call list, open, that
/// no call has reached. Past its 48 hours such a lead is overdue; a lead some call reached is not,
/// even when it stays open for a time the person asked for (ADR 0087).
pub(super) fn on_the_clock_sql(lead: &str) -> String {
    format!(
        "({lead}.repeat_of IS NULL AND {lead}.held IS NULL AND {lead}.status IN ({open}) AND {lead}.reached_at IS NULL)",
        open = crate::inbox::open_statuses_sql()
    )
}

/// The outcome of the last call to the lead `lead` names (a table or its alias), as both engines
/// read it: the last by id, the order the lead's own state follows (its calls are written one
/// after the other under the lead, and a batch writes them in its order).
pub(super) fn last_outcome_sql(lead: &str) -> String {
    format!("(SELECT outcome FROM call_attempts WHERE lead_id = {lead}.id ORDER BY id DESC LIMIT 1)")
}

/// A status as both engines keep it. The tables only admit known names (a CHECK constraint);
/// were one ever unknown, the lead stays on the call list rather than vanish from it.
pub(super) fn status_of(name: &str) -> Status {
    Status::from_name(name).unwrap_or(Status::New)
}

impl Store {
    /// The inbox's list: people's first leads matching `query`, newest first (a repeat is shown
    /// with its first lead).
    pub async fn find_leads(&self, query: LeadQuery) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, find_leads(query))
    }

    pub async fn lead(&self, id: i64) -> Result<Option<LeadRecord>, StoreError> {
        dispatch!(self, lead(id))
    }

    /// The records of the leads with these ids that still exist, in the order given: one read for
    /// a sender's claimed notifications.
    pub async fn lead_records(&self, ids: Vec<i64>) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, lead_records(ids))
    }

    /// The later submissions of the person whose first lead is `lead_id`, oldest first.
    pub async fn repeats(&self, lead_id: i64) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, repeats(lead_id))
    }

    /// The calls made to a lead, oldest first.
    pub async fn attempts(&self, lead_id: i64) -> Result<Vec<Attempt>, StoreError> {
        dispatch!(self, attempts(lead_id))
    }

    /// Logs a call and moves the lead's status on (`Outcome::status_after`) and its next call
    /// (`CallPlan::next_call_at`); a call by the operator who took the lead ends their claim (a
    /// lead handed to them stays theirs). Nothing is logged for a lead not of the call list (none,
    /// a held one or a repeat), nor under a request key the operator used before.
    pub async fn add_attempt(&self, call: NewAttempt) -> Result<CallLogged, StoreError> {
        Ok(self.add_attempts(vec![call]).await?.first().copied().unwrap_or(CallLogged::NotCallable))
    }

    /// Logs many calls in one transaction, in their order, leaving each lead as its calls one
    /// after the other with `add_attempt` would; for each, what `add_attempt` would say.
    pub async fn add_attempts(&self, calls: Vec<NewAttempt>) -> Result<Vec<CallLogged>, StoreError> {
        let calls =
            calls.into_iter().map(|call| NewAttempt { trail: call.trail.printable(), ..call }).collect();
        dispatch!(self, add_attempts(calls, self.clock.now()))
    }

    /// Up to `limit` leads of the call list due for a call at `now`, in the order to call them:
    /// call-backs set by a call first (the earliest first), then the others by the end of their
    /// 48 hours, nearest first. Read from the index of leads to call, not the whole table.
    pub async fn due_leads(&self, now: jiff::Timestamp, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        dispatch!(self, due_leads(now, limit))
    }

    pub async fn counts(&self, at: CountsAt) -> Result<Counts, StoreError> {
        dispatch!(self, counts(at))
    }
}

//! The operators' rules, without HTTP or storage: the 48-hour promise, a lead's status after each
//! call, who has a lead (a claim), where a lead came from, and how a search is read. The API is
//! described in `docs/admin-api.md`.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use ts_rs::TS;

use crate::calendar::Calendar;
use crate::lead::Attribution;

pub use crate::calendar::PROMISE;

/// Where a lead stands: waiting for a call that reaches the person (`new`, then one
/// `attempt_N` per unanswered call), or what the call that reached them, or the last try, came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, TS)]
#[ts(rename_all = "snake_case")]
pub enum Status {
    New,
    #[ts(rename = "attempt_1")]
    Attempt1,
    #[ts(rename = "attempt_2")]
    Attempt2,
    #[ts(rename = "attempt_3")]
    Attempt3,
    Interested,
    NotInterested,
    NotEligible,
    Unreachable,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::New,
        Status::Attempt1,
        Status::Attempt2,
        Status::Attempt3,
        Status::Interested,
        Status::NotInterested,
        Status::NotEligible,
        Status::Unreachable,
    ];

    /// Still waiting for a call that reaches the person: on the 48-hour clock.
    pub fn is_open(self) -> bool {
        matches!(self, Status::New | Status::Attempt1 | Status::Attempt2 | Status::Attempt3)
    }

    /// The name kept in the database, the export and the admin API.
    pub fn name(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Attempt1 => "attempt_1",
            Status::Attempt2 => "attempt_2",
            Status::Attempt3 => "attempt_3",
            Status::Interested => "interested",
            Status::NotInterested => "not_interested",
            Status::NotEligible => "not_eligible",
            Status::Unreachable => "unreachable",
        }
    }

    pub fn from_name(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// `'new', 'attempt_1', …` for a query's `status IN (…)`.
pub fn open_statuses_sql() -> String {
    let open = Status::ALL.into_iter().filter(|s| s.is_open());
    open.map(|s| format!("'{}'", s.name())).collect::<Vec<_>>().join(", ")
}

/// `'interested', …`: the outcomes of a call that reached the person, for `outcome IN (…)`.
pub fn reached_outcomes_sql() -> String {
    let reached = Outcome::ALL.into_iter().filter(|o| o.reached());
    reached.map(|o| format!("'{}'", o.as_str())).collect::<Vec<_>>().join(", ")
}

/// A lead as the operators see it: what the visitor sent, the consent evidence, where it stands.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, TS)]
pub struct LeadRecord {
    pub id: i64,
    /// RFC 3339, UTC, microseconds (as every time the store hands out).
    pub created_at: String,
    pub name: String,
    pub phone: String,
    pub phone_e164: String,
    pub confirmation: String,
    pub comment: Option<String>,
    /// Consent evidence: a hash of the privacy policy in force at `created_at`.
    pub policy_version: String,
    pub status: Status,
    /// When a call first reached the person.
    pub reached_at: Option<String>,
    pub attempt_count: i64,
    /// The first lead of the same person, when this one is a repeat sent within the duplicate window
    /// (or a held lead released beside it, ADR 0085).
    pub repeat_of: Option<i64>,
    /// The submissions that name this lead in `repeat_of`.
    pub repeat_count: i64,
    /// Why the lead is held for review (`abuse::Signal` codes); `None` in the call list.
    pub held: Option<Vec<String>>,
    #[serde(flatten)]
    pub attribution: Attribution,
    /// Who has the lead, as stored: a claim that has lapsed is still here (see `Claim::live_at`).
    #[serde(skip)]
    pub claim: Option<Claim>,
    /// When the lead is to be called (RFC 3339, UTC): `None` once it is closed, or while held.
    pub next_call_at: Option<String>,
    /// Whether `next_call_at` was set by a call (a retry or a time the person asked for) rather
    /// than by the lead's arrival: such call-backs come first in the list of calls due.
    #[serde(skip)]
    pub call_back: bool,
    /// The last call went unanswered and the retry cadence had no step left for it
    /// (`CallPlan::retries_used_up`): the lead is due for a person to close it as unreachable or
    /// agree on a time.
    pub retries_used_up: bool,
    /// When the lead was reported to the admins because nobody had called it in time (RFC 3339,
    /// UTC): at most once.
    pub escalated_at: Option<String>,
    /// The person's newest repeat submission ("написав(ла) ще раз"), if any.
    pub wrote_again: Option<WroteAgain>,
}

/// A repeat submission as its first lead shows it: when it came and what it said.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, TS)]
pub struct WroteAgain {
    /// RFC 3339, UTC.
    pub at: String,
    pub comment: Option<String>,
}

/// An operator has a lead: took it before calling (until a time), or was handed it (no end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The operator's e-mail.
    pub by: String,
    /// RFC 3339, UTC; `None` for a lead handed out (in turn or by an admin), which has no end.
    pub until: Option<String>,
}

impl Claim {
    /// A taken lead goes back to the pool when its time is up without a call (docs/product.md).
    pub fn live_at(&self, now: Timestamp) -> bool {
        match &self.until {
            None => true,
            Some(until) => until.parse::<Timestamp>().is_ok_and(|until| until > now),
        }
    }
}

/// Why an operator could not take a lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeRefusal {
    /// Another operator has it.
    Taken,
    /// A call reached the person or the operators gave up: nothing left to call about.
    Closed,
    /// Held for review: not in the call list yet.
    Held,
}

impl LeadRecord {
    /// Whether the 48 hours still run for the lead: a person's first lead of the call list, open,
    /// that no call has reached (ADR 0087; `store::inbox::on_the_clock_sql` says it in SQL).
    pub fn on_the_clock(&self) -> bool {
        self.status.is_open() && self.reached_at.is_none() && self.repeat_of.is_none() && self.held.is_none()
    }

    /// Who has the lead at `now`.
    pub fn claim_at(&self, now: Timestamp) -> Option<&Claim> {
        self.claim.as_ref().filter(|claim| claim.live_at(now))
    }

    /// Why `operator` may not take this lead at `now`, if they may not: only an open lead of the
    /// call list (first leads only) that nobody else has can be taken.
    pub fn take_refusal(&self, operator: &str, now: Timestamp) -> Option<TakeRefusal> {
        if self.held.is_some() {
            Some(TakeRefusal::Held)
        } else if !self.status.is_open() || self.repeat_of.is_some() {
            Some(TakeRefusal::Closed)
        } else if self.claim_at(now).is_some_and(|claim| claim.by != operator) {
            Some(TakeRefusal::Taken)
        } else {
            None
        }
    }
}

/// How long a lead someone took stays theirs without a call.
pub fn claim_until(now: Timestamp, minutes: u32) -> Timestamp {
    now + SignedDuration::from_mins(i64::from(minutes))
}

/// Where a lead came from, for the figures: its `utm_source`, else the linking page's host;
/// `None` when it came directly (typed, a bookmark, an app that sends no referrer).
pub fn source_of<T>(utm_source: Option<T>, referrer: Option<T>) -> Option<T> {
    utm_source.or(referrer)
}

/// What a call came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    NoAnswer,
    Interested,
    NotInterested,
    NotEligible,
    /// The operator gives up on reaching the person.
    Unreachable,
    /// The person asked to be called at another time (`call_back_at`): the lead stays open.
    CallBack,
}

impl Outcome {
    pub const ALL: [Outcome; 6] = [
        Outcome::NoAnswer,
        Outcome::Interested,
        Outcome::NotInterested,
        Outcome::NotEligible,
        Outcome::Unreachable,
        Outcome::CallBack,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::NoAnswer => "no_answer",
            Outcome::Interested => "interested",
            Outcome::NotInterested => "not_interested",
            Outcome::NotEligible => "not_eligible",
            Outcome::Unreachable => "unreachable",
            Outcome::CallBack => "call_back",
        }
    }

    /// The call reached the person: they answered, whatever they said. A person who asked to be
    /// called at another time answered too, so the 48 hours were kept (ADR 0087).
    pub fn reached(self) -> bool {
        matches!(
            self,
            Outcome::Interested | Outcome::NotInterested | Outcome::NotEligible | Outcome::CallBack
        )
    }

    /// The lead's status after this call, when `unanswered` calls (this one included) went
    /// unanswered so far: the newest call decides. A call-back asked for leaves the count of
    /// unanswered calls as it was.
    pub fn status_after(self, unanswered: i64) -> Status {
        let attempts = |unanswered| match unanswered {
            ..=0 => Status::New,
            1 => Status::Attempt1,
            2 => Status::Attempt2,
            _ => Status::Attempt3,
        };
        match self {
            Outcome::NoAnswer => attempts(unanswered.max(1)),
            Outcome::CallBack => attempts(unanswered),
            Outcome::Interested => Status::Interested,
            Outcome::NotInterested => Status::NotInterested,
            Outcome::NotEligible => Status::NotEligible,
            Outcome::Unreachable => Status::Unreachable,
        }
    }
}

/// When a lead is due for a call again after a recorded call, decided above the store: the time
/// the operator asked for, else the retry cadence's next step for that many unanswered calls,
/// else (the cadence used up) as soon as the team works, offered as unreachable. A call that
/// closes the lead (the person reached, or given up on) leaves nothing to schedule.
#[derive(Debug, Clone)]
pub struct CallPlan {
    /// The first working moment from the call on (the call's own time while the team works):
    /// when the lead is due once the cadence has no step left for it.
    pub at_once: Timestamp,
    /// "Передзвонити о …": the time the person asked for (kept even outside working hours).
    pub call_back_at: Option<Timestamp>,
    /// After an unanswered call: the next try for 1, 2, … unanswered calls so far.
    pub retries: Vec<Option<Timestamp>>,
}

impl CallPlan {
    /// When the lead is next due after a call with `outcome`, `unanswered` calls (this one
    /// included) having gone unanswered; `None` once it is closed.
    pub fn next_call_at(&self, outcome: Outcome, unanswered: i64) -> Option<Timestamp> {
        if !outcome.status_after(unanswered).is_open() {
            return None;
        }
        if let Some(at) = self.call_back_at {
            return Some(at);
        }
        Some(self.retry(unanswered).flatten().unwrap_or(self.at_once))
    }

    /// Whether this call leaves the lead due because the cadence has no step left for `unanswered`
    /// calls and nobody asked for a time: the inbox then says to close it as unreachable or agree
    /// on a time (kept with the lead as `retries_used_up`).
    pub fn retries_used_up(&self, outcome: Outcome, unanswered: i64) -> bool {
        outcome == Outcome::NoAnswer && self.call_back_at.is_none() && self.retry(unanswered).is_none()
    }

    /// The cadence's step for `unanswered` calls: `None` past its last step, `Some(None)` for a
    /// step the calendar could not place.
    fn retry(&self, unanswered: i64) -> Option<Option<Timestamp>> {
        usize::try_from(unanswered - 1).ok().and_then(|step| self.retries.get(step).copied())
    }
}

/// A lead as the inbox shows it: the record plus its deadline, who has it now, and whether the
/// team's days off put its deadline at risk.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LeadView {
    #[serde(flatten)]
    pub record: LeadRecord,
    pub open: bool,
    pub deadline_at: String,
    /// The e-mail of the operator who has the lead now, if anyone...
    pub claimed_by: Option<String>,
    /// ...and until when (`None`: handed to them, no end).
    pub claimed_until: Option<String>,
    /// On the 48-hour clock (`LeadRecord::on_the_clock`), and its 48 hours end during a closure or
    /// just after it (`Calendar::at_risk`).
    pub at_risk: bool,
}

impl LeadView {
    /// `record` as the inbox shows it at `now`, under the team's `calendar`.
    pub fn new(record: LeadRecord, now: Timestamp, calendar: &Calendar) -> LeadView {
        let live = record.claim_at(now).cloned();
        let (claimed_by, claimed_until) = live.map_or((None, None), |claim| (Some(claim.by), claim.until));
        let open = record.status.is_open();
        let created_at = record.created_at.parse::<Timestamp>().ok();
        let at_risk = record.on_the_clock() && created_at.is_some_and(|at| calendar.at_risk(at, PROMISE));
        let deadline_at = deadline_of(&record.created_at);
        LeadView { record, open, deadline_at, claimed_by, claimed_until, at_risk }
    }
}

/// The 48-hour deadline of a lead sent at `created_at` (RFC 3339), in the store's format; empty
/// when the time does not read.
pub fn deadline_of(created_at: &str) -> String {
    created_at
        .parse::<Timestamp>()
        .ok()
        .and_then(|at| at.checked_add(PROMISE).ok())
        .map(|at| format!("{at:.6}"))
        .unwrap_or_default()
}

/// What a search box's text asks for: a phone in any format (`067…`, `+38067…`, `38067…`, with
/// spaces or dashes) matches the E.164 number's end or start (`PhoneSearch`); anything else part
/// of the name, ignoring case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    Everything,
    Phone { digits: String },
    Name { folded: String },
}

impl Search {
    pub fn parse(text: &str) -> Search {
        let text = text.trim();
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        let phone_like = text.chars().all(|c| c.is_ascii_digit() || " +-()".contains(c));
        if text.is_empty() {
            Search::Everything
        } else if phone_like && digits.len() >= 3 {
            // `+380671234567` holds `067…`, `38067…` and `+38067…` alike.
            Search::Phone { digits }
        } else {
            Search::Name { folded: fold(text) }
        }
    }

    /// The `LIKE` pattern for the name, or the phone search.
    pub fn patterns(&self) -> (Option<String>, Option<PhoneSearch>) {
        match self {
            Search::Everything => (None, None),
            Search::Phone { digits } => (None, Some(PhoneSearch::of(digits))),
            Search::Name { folded } => (Some(format!("%{}%", escape_like(folded))), None),
        }
    }
}

/// The numbers a phone search finds: those ending with the digits typed (operators type a
/// number's tail), and, when the digits are a Ukrainian number's start (`0…`, `380…`) long enough
/// to pick few numbers, those starting with it. Both are ranges of an index (ADR 0039).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneSearch {
    /// The end of the E.164 number.
    pub end: String,
    /// The start of the E.164 number (`+380…`).
    pub start: Option<String>,
}

/// Digits of a number's start, past `+380`'s `0`, for the start to be searched: the operator code
/// and three more pick about one number in ten thousand.
const START_DIGITS: usize = 5;

impl PhoneSearch {
    fn of(digits: &str) -> PhoneSearch {
        let national = digits.strip_prefix("380").or_else(|| digits.strip_prefix('0'));
        let start = national
            .filter(|national| national.len() >= START_DIGITS)
            .map(|national| format!("+380{national}"));
        PhoneSearch { end: digits.to_owned(), start }
    }
}

/// How names are compared: lower case (Unicode, so Cyrillic too), apostrophes made one.
pub fn fold(text: &str) -> String {
    text.to_lowercase().replace(['ʼ', '’', '`'], "'")
}

/// `%`, `_` and `\` match themselves (the queries say `ESCAPE '\'`).
pub(crate) fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_writing_a_number_finds_it() {
        let stored = "+380671234567";
        let finds = |typed: &str| {
            let (None, Some(phone)) = Search::parse(typed).patterns() else { panic!("{typed} is a phone") };
            stored.ends_with(&phone.end) || phone.start.is_some_and(|start| stored.starts_with(&start))
        };
        for typed in
            ["067 123 45 67", "+380671234567", "380671234567", "(067) 123-45-67", "0671234", "4567", "45 67"]
        {
            assert!(finds(typed), "{typed}");
        }
        // A part from the middle, and a start too short to pick few numbers, are not searched.
        for typed in ["12345", "067", "38067"] {
            assert!(!finds(typed), "{typed}");
        }
    }

    #[test]
    fn names_ignore_case_and_like_wildcards() {
        assert_eq!(Search::parse("  ОЛЕНА "), Search::Name { folded: "олена".into() });
        assert_eq!(Search::parse("50%_").patterns().0.unwrap(), "%50\\%\\_%");
        assert_eq!(Search::parse("О'Ніл"), Search::parse("ОʼНІЛ"));
        assert_eq!(Search::parse(""), Search::Everything);
    }

    #[test]
    fn the_newest_call_decides_the_status() {
        assert_eq!(Outcome::NoAnswer.status_after(1), Status::Attempt1);
        assert_eq!(Outcome::NoAnswer.status_after(3), Status::Attempt3);
        assert_eq!(Outcome::NoAnswer.status_after(7), Status::Attempt3);
        assert_eq!(Outcome::Interested.status_after(2), Status::Interested);
        for status in Status::ALL {
            assert_eq!(Status::from_name(status.name()), Some(status));
        }
        assert!(!Outcome::Unreachable.reached());
        assert!(!Outcome::NoAnswer.reached());
        assert!(Outcome::CallBack.reached());
    }

    #[test]
    fn the_next_call_is_the_asked_time_else_the_cadence_else_when_the_team_works_and_none_once_closed() {
        let now: Timestamp = "2026-11-23T08:00:00Z".parse().unwrap();
        let step = |hours| Some(now + SignedDuration::from_hours(hours));
        let at_once = now + SignedDuration::from_hours(1);
        let plan = CallPlan { at_once, call_back_at: None, retries: vec![step(2), step(20)] };
        assert_eq!(plan.next_call_at(Outcome::NoAnswer, 1), step(2));
        assert_eq!(plan.next_call_at(Outcome::NoAnswer, 2), step(20));
        assert_eq!(plan.next_call_at(Outcome::NoAnswer, 3), Some(at_once), "the cadence used up");
        assert!(!plan.retries_used_up(Outcome::NoAnswer, 2));
        assert!(plan.retries_used_up(Outcome::NoAnswer, 3));
        let unplaced = CallPlan { retries: vec![step(2), None], ..plan.clone() };
        assert_eq!(unplaced.next_call_at(Outcome::NoAnswer, 2), Some(at_once));
        assert!(!unplaced.retries_used_up(Outcome::NoAnswer, 2), "a step the calendar could not place");
        assert_eq!(plan.next_call_at(Outcome::Interested, 1), None);
        assert_eq!(plan.next_call_at(Outcome::Unreachable, 3), None);
        let asked = CallPlan { call_back_at: step(30), ..plan };
        assert_eq!(asked.next_call_at(Outcome::NoAnswer, 2), step(30));
        assert_eq!(asked.next_call_at(Outcome::CallBack, 0), step(30));
        assert!(!asked.retries_used_up(Outcome::NoAnswer, 3), "a time asked for is no retry");
        assert!(!asked.retries_used_up(Outcome::CallBack, 3));
        assert_eq!(Outcome::CallBack.status_after(0), Status::New);
        assert_eq!(Outcome::CallBack.status_after(2), Status::Attempt2, "the unanswered calls stay counted");
    }

    #[test]
    fn the_deadline_is_48_hours_after_sending() {
        let record = LeadRecord {
            id: 1,
            created_at: "2026-11-20T09:15:00.000000Z".into(),
            name: "n".into(),
            phone: "p".into(),
            phone_e164: "+380671234567".into(),
            confirmation: "Так".into(),
            comment: None,
            policy_version: "v".into(),
            status: Status::Attempt2,
            reached_at: None,
            attempt_count: 2,
            repeat_of: None,
            repeat_count: 0,
            held: None,
            attribution: Default::default(),
            claim: None,
            next_call_at: None,
            call_back: false,
            retries_used_up: false,
            escalated_at: None,
            wrote_again: None,
        };
        let now: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
        let view = LeadView::new(record.clone(), now, &Calendar::default());
        assert!(view.open);
        assert!(!view.at_risk);
        assert_eq!(view.deadline_at, "2026-11-22T09:15:00.000000Z");
        // The deadline falls on a closed day (Kyiv's 22 November): at risk while open.
        let closed = Calendar {
            closed: crate::calendar::ClosedDays::parse("2026-11-22").unwrap(),
            ..Default::default()
        };
        assert!(LeadView::new(record.clone(), now, &closed).at_risk);
        let reached = LeadRecord { status: Status::Interested, ..record };
        assert!(!LeadView::new(reached, now, &closed).at_risk);
    }

    #[test]
    fn a_taken_lead_is_free_again_when_its_time_is_up() {
        let now: Timestamp = "2026-11-20T09:15:00Z".parse().unwrap();
        let until = format!("{:.6}", claim_until(now, 30));
        let claim = Claim { by: "olena@example.org".into(), until: Some(until) };
        assert!(claim.live_at(now + SignedDuration::from_mins(29)));
        assert!(!claim.live_at(now + SignedDuration::from_mins(30)));
        assert!(Claim { by: "o".into(), until: None }.live_at(now + SignedDuration::from_hours(999)));
    }

    #[test]
    fn a_source_is_the_campaign_else_the_linking_site() {
        assert_eq!(source_of(Some("facebook"), Some("www.google.com")), Some("facebook"));
        assert_eq!(source_of(None, Some("www.google.com")), Some("www.google.com"));
        assert_eq!(source_of::<&str>(None, None), None);
        assert_eq!(reached_outcomes_sql(), "'interested', 'not_interested', 'not_eligible', 'call_back'");
    }
}

//! The operators' rules, without HTTP or storage: the 48-hour promise, a lead's status after each
//! call, and how a search is read. The API is described in `docs/admin-api.md`.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::store::LeadRecord;

/// The operators' time zone: the days of the inbox's chart and the times in notifications.
pub fn operators_zone() -> jiff::tz::TimeZone {
    jiff::tz::TimeZone::get("Europe/Kyiv").unwrap_or(jiff::tz::TimeZone::UTC)
}

/// The site promises a call back within this time.
pub const PROMISE: SignedDuration = SignedDuration::from_hours(48);

/// Statuses of a lead still waiting for a call that reaches the person.
pub const OPEN_STATUSES: [&str; 4] = ["new", "attempt_1", "attempt_2", "attempt_3"];

/// `'new', 'attempt_1', …` for a query's `status IN (…)`.
pub fn open_statuses_sql() -> String {
    OPEN_STATUSES.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
}

/// What a call came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    NoAnswer,
    Interested,
    NotInterested,
    NotEligible,
    /// The operator gives up on reaching the person.
    Unreachable,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::NoAnswer => "no_answer",
            Outcome::Interested => "interested",
            Outcome::NotInterested => "not_interested",
            Outcome::NotEligible => "not_eligible",
            Outcome::Unreachable => "unreachable",
        }
    }

    /// The call reached the person.
    pub fn reached(self) -> bool {
        matches!(self, Outcome::Interested | Outcome::NotInterested | Outcome::NotEligible)
    }

    /// The lead's status after this call, when `unanswered` calls (this one included) went
    /// unanswered so far: the newest call decides.
    pub fn status_after(self, unanswered: i64) -> &'static str {
        match self {
            Outcome::NoAnswer => match unanswered {
                ..=1 => "attempt_1",
                2 => "attempt_2",
                _ => "attempt_3",
            },
            other => other.as_str(),
        }
    }
}

/// A lead as the inbox shows it: the record plus its deadline.
#[derive(Debug, Clone, Serialize)]
pub struct LeadView {
    #[serde(flatten)]
    pub record: LeadRecord,
    pub open: bool,
    pub deadline_at: String,
}

impl From<LeadRecord> for LeadView {
    fn from(record: LeadRecord) -> LeadView {
        let open = OPEN_STATUSES.contains(&record.status.as_str());
        let deadline_at = record
            .created_at
            .parse::<Timestamp>()
            .ok()
            .and_then(|at| at.checked_add(PROMISE).ok())
            .map(|at| format!("{at:.6}"))
            .unwrap_or_default();
        LeadView { record, open, deadline_at }
    }
}

/// What a search box's text asks for: a phone in any format (`067…`, `+38067…`, `38067…`, with
/// spaces or dashes) matches part of the E.164 number; anything else part of the name, ignoring
/// case.
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

    /// The `LIKE` patterns for the name and the phone.
    pub fn patterns(&self) -> (Option<String>, Option<String>) {
        match self {
            Search::Everything => (None, None),
            Search::Phone { digits } => (None, Some(format!("%{digits}%"))),
            Search::Name { folded } => (Some(format!("%{}%", escape_like(folded))), None),
        }
    }
}

/// How names are compared: lower case (Unicode, so Cyrillic too), apostrophes made one.
pub fn fold(text: &str) -> String {
    text.to_lowercase().replace(['ʼ', '’', '`'], "'")
}

/// `%`, `_` and `\` match themselves (the queries say `ESCAPE '\'`).
fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_writing_a_number_finds_it() {
        let stored = "+380671234567";
        for typed in ["067 123 45 67", "+380671234567", "380671234567", "(067) 123-45-67", "0671234"] {
            let Search::Phone { digits } = Search::parse(typed) else { panic!("{typed} is a phone") };
            assert!(stored.contains(&digits), "{typed}");
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
        assert_eq!(Outcome::NoAnswer.status_after(1), "attempt_1");
        assert_eq!(Outcome::NoAnswer.status_after(3), "attempt_3");
        assert_eq!(Outcome::NoAnswer.status_after(7), "attempt_3");
        assert_eq!(Outcome::Interested.status_after(2), "interested");
        assert!(!Outcome::Unreachable.reached());
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
            status: "attempt_2".into(),
            reached_at: None,
            attempt_count: 2,
            repeat_of: None,
            repeat_count: 0,
            held: None,
        };
        let view = LeadView::from(record);
        assert!(view.open);
        assert_eq!(view.deadline_at, "2026-11-22T09:15:00.000000Z");
    }
}

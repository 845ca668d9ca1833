//! The days the team does not work as admins keep them in the inbox, and the calendar every user
//! of it reads: the settings' closed days with these on top (ADR 0032).

use jiff::civil::Date;
use jiff::{Span, Timestamp};

use super::{AuditEntry, Engine, Store, StoreError};
use crate::calendar::{Calendar, DAYS_AHEAD_TO_CLOSE};
use crate::inbox::Outcome;
use crate::notice::operators_date;

/// A closed day of the inbox's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedDay {
    /// A Kyiv date.
    pub day: Date,
    pub note: Option<String>,
    /// Who added it: an operator's e-mail, or `command line (USER)`.
    pub added_by: String,
    /// RFC 3339, UTC.
    pub added_at: String,
}

/// How many days before today a calendar reads the list from. A lead's at-risk mark looks at the
/// closures from the day it arrived, but the scans after days off look back over each of them
/// (`Calendar::back_over_closures`), and the inbox closes up to `DAYS_AHEAD_TO_CLOSE` days at once.
/// Read from any less far back, a longer closure would end the look back inside it, and the leads
/// whose time came early in it would never be escalated or told overdue.
const READ_FROM_DAYS_AGO: i64 = DAYS_AHEAD_TO_CLOSE;

/// The most days a calendar reads: every day the inbox may add from those days on, so that a
/// walk through working time costs one small read whatever the table holds.
const READ_AT_MOST: u32 = (READ_FROM_DAYS_AGO + DAYS_AHEAD_TO_CLOSE + 1) as u32;

impl Store {
    /// The list's days on or after `from`, earliest first, `limit` at most.
    pub async fn closed_days(&self, from: Date, limit: u32) -> Result<Vec<ClosedDay>, StoreError> {
        dispatch!(self, closed_days(from.to_string(), limit))
    }

    /// Adds `day` to the list, with `trail` (added by its actor); `false` if it is there already
    /// (its note and who added it stay).
    pub async fn add_closed_day(
        &self,
        day: Date,
        note: Option<String>,
        now: Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, add_closed_day(day.to_string(), note, now, trail.printable()))
    }

    /// Takes `day` off the list, with `trail`; `false` if it was not on it.
    pub async fn remove_closed_day(&self, day: Date, trail: AuditEntry) -> Result<bool, StoreError> {
        dispatch!(self, remove_closed_day(day.to_string(), self.clock.now(), trail.printable()))
    }

    /// Moves the leads due in `[from, until)` again after an unanswered call (a retry) to `to`,
    /// and says how many: `until` ends a day just closed, and `to` is the team's next working
    /// minute after it. A time the person asked for (a `call_back` call) stays where they put it.
    pub async fn move_retries(
        &self,
        from: Timestamp,
        until: Timestamp,
        to: Timestamp,
    ) -> Result<usize, StoreError> {
        dispatch!(self, move_retries(from, until, to, Outcome::NoAnswer.as_str()))
    }

    /// The team's calendar at `now`: `settings` (`Settings::settings_calendar`) with the list's
    /// days on top. Read afresh for each request and scan, so every instance on one database
    /// follows a change at once; bounded to the days that can still matter.
    pub async fn calendar(&self, settings: Calendar, now: Timestamp) -> Result<Calendar, StoreError> {
        let today = operators_date(now);
        let from = today.checked_sub(Span::new().days(READ_FROM_DAYS_AGO)).unwrap_or(today);
        let listed = self.closed_days(from, READ_AT_MOST).await?;
        Ok(settings.also_closed(listed.into_iter().map(|closed| closed.day)))
    }
}

/// A row as an engine reads it; `None` for a day that does not read as a date (none is written
/// so).
pub(super) fn closed_day_row(
    day: &str,
    note: Option<String>,
    added_by: String,
    added_at: String,
) -> Option<ClosedDay> {
    Some(ClosedDay { day: day.parse().ok()?, note, added_by, added_at })
}

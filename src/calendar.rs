//! The team's calendar, without storage: its working hours (`ZAYAVKA_WORKING_HOURS`), the days it
//! is closed (`ZAYAVKA_CLOSED_DAYS`), and when an unanswered lead is tried again
//! (`ZAYAVKA_RETRY_CADENCE`), all in Kyiv time. The 48 hours promised to a visitor stay calendar
//! hours; this calendar only says when the team can act on them. ADR 0024 explains the cadence.

use std::collections::BTreeSet;

use jiff::civil::{Date, Time};
use jiff::{SignedDuration, Timestamp};

use crate::notice::{WorkingHours, operators_zone};

/// The site promises a call back within this time: calendar hours, whatever the team's calendar.
/// Here, below the settings (which keep reminders and escalations before it) and the inbox.
pub const PROMISE: SignedDuration = SignedDuration::from_hours(48);

/// Days the team does not work, Kyiv dates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClosedDays(BTreeSet<Date>);

impl ClosedDays {
    /// `YYYY-MM-DD` dates separated by commas (spaces allowed); empty for none.
    pub fn parse(text: &str) -> Result<ClosedDays, String> {
        let mut days = BTreeSet::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let day = parse_day(part).ok_or_else(|| format!("'{part}' is not a date such as 2026-12-25"))?;
            days.insert(day);
        }
        Ok(ClosedDays(days))
    }

    pub fn contains(&self, day: Date) -> bool {
        self.0.contains(&day)
    }

    /// The days on or after `from`, earliest first.
    pub fn on_or_after(&self, from: Date) -> impl Iterator<Item = Date> + '_ {
        self.0.range(from..).copied()
    }
}

/// A day written `YYYY-MM-DD` exactly, surrounding spaces aside: jiff's own parser also reads a
/// date out of a time (`2026-12-25T23:30-05:00`) or the compact `20261225`, which a list of days
/// must not take for one.
pub fn parse_day(text: &str) -> Option<Date> {
    let text = text.trim();
    let shaped = text.len() == 10
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    if shaped { text.parse().ok() } else { None }
}

/// The furthest ahead, in days from today, an admin may close a day from the inbox: a year, so
/// that the list a calendar reads stays short.
pub const DAYS_AHEAD_TO_CLOSE: i64 = 366;

/// When the team works: its hours (every hour without them) on every day that is not closed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calendar {
    pub hours: Option<WorkingHours>,
    pub closed: ClosedDays,
}

impl Calendar {
    /// This calendar with `more` days closed as well (the inbox's list on top of the settings').
    pub fn also_closed(mut self, more: impl IntoIterator<Item = Date>) -> Calendar {
        self.closed.0.extend(more);
        self
    }
}

/// The step of the minute-by-minute walks over a few hours (the working time left before a
/// closure, the end of the last working day before one).
const STEP: SignedDuration = SignedDuration::from_mins(1);

/// How many jumps a walk through working time makes before giving up. Each jump skips a closed
/// day or the hours off between two working stretches, or ends a stretch, so only a calendar
/// closed for decades runs out: a walk costs jumps, not minutes, however far it goes.
const MAX_JUMPS: usize = 100_000;

/// Without working hours, a "morning" and an "afternoon" are these Kyiv times.
const MORNING: Time = Time::constant(9, 0, 0, 0);
const AFTERNOON: Time = Time::constant(14, 0, 0, 0);

/// The instant `time` of Kyiv day `day` (a time the clocks skip reads as the one after it).
fn kyiv_time(day: Date, time: Time) -> Option<Timestamp> {
    Some(day.to_datetime(time).to_zoned(operators_zone()).ok()?.timestamp())
}

impl Calendar {
    /// Whether the team works at `at`.
    pub fn works_at(&self, at: Timestamp) -> bool {
        let local = at.to_zoned(operators_zone());
        !self.closed.contains(local.date()) && self.hours.is_none_or(|hours| hours.contains(at))
    }

    /// `hours` of working time after `from`: closed days and the hours outside working time do
    /// not count.
    pub fn after_working_hours(&self, from: Timestamp, hours: u32) -> Option<Timestamp> {
        let mut left = SignedDuration::from_hours(i64::from(hours));
        let mut at = from;
        for _ in 0..MAX_JUMPS {
            at = self.next_working(at)?;
            let until = self.working_until(at)?;
            let stretch = until.duration_since(at);
            if left < stretch {
                return at.checked_add(left).ok();
            }
            left -= stretch;
            at = until;
            if left.is_zero() {
                // Ending at a working stretch's end means "when the team can call next".
                return self.next_working(at);
            }
        }
        None
    }

    /// The first working moment at or after `from`.
    pub fn next_working(&self, from: Timestamp) -> Option<Timestamp> {
        let mut at = from;
        for _ in 0..MAX_JUMPS {
            let day = at.to_zoned(operators_zone()).date();
            if self.closed.contains(day) {
                at = kyiv_time(day.tomorrow().ok()?, Time::midnight())?;
                continue;
            }
            let Some(hours) = self.hours else { return Some(at) };
            if hours.contains(at) {
                return Some(at);
            }
            // Off hours: on to the next start of the working hours.
            at = match kyiv_time(day, hours.start)? {
                start if start > at => start,
                _ => kyiv_time(day.tomorrow().ok()?, hours.start)?,
            };
        }
        None
    }

    /// Where the working stretch that holds `at` ends: when the hours end, or at midnight, after
    /// which the next day may be closed.
    fn working_until(&self, at: Timestamp) -> Option<Timestamp> {
        let day = at.to_zoned(operators_zone()).date();
        let midnight = kyiv_time(day.tomorrow().ok()?, Time::midnight())?;
        let end = match self.hours {
            Some(hours) => kyiv_time(day, hours.end)?,
            None => midnight,
        };
        Some(if end > at { end.min(midnight) } else { midnight })
    }

    /// `span` back from `now`, the closed days in between not counted: how far back a scan of
    /// what came due looks, so that what came due on days off is caught when the team is back.
    pub fn back_over_closures(&self, now: Timestamp, span: SignedDuration) -> Timestamp {
        let zone = operators_zone();
        let today = now.to_zoned(zone.clone()).date();
        let mut closed = 0;
        loop {
            let from = now - span - SignedDuration::from_hours(24 * closed);
            // Each closed day found widens the window, which may find more: at most once a day.
            let within = self.closed.0.range(from.to_zoned(zone.clone()).date()..=today).count() as i64;
            if within <= closed {
                return from;
            }
            closed = within;
        }
    }

    /// The first time of day `time` after `from` on a day the team works, or, where that time
    /// falls outside the hours, the first working minute after it.
    fn next_at_time_of_day(&self, from: Timestamp, time: Time) -> Option<Timestamp> {
        let mut day = from.to_zoned(operators_zone()).date();
        for _ in 0..MAX_JUMPS {
            if !self.closed.contains(day) {
                let at = kyiv_time(day, time)?;
                if at > from {
                    return self.next_working(at);
                }
            }
            day = day.tomorrow().ok()?;
        }
        None
    }

    /// The next start of the working day after `from` (09:00 without working hours).
    pub fn next_morning(&self, from: Timestamp) -> Option<Timestamp> {
        self.next_at_time_of_day(from, self.hours.map_or(MORNING, |hours| hours.start))
    }

    /// The next middle of the working day after `from` (14:00 without working hours).
    pub fn next_afternoon(&self, from: Timestamp) -> Option<Timestamp> {
        let middle = self.hours.filter(|h| h.start < h.end).map_or(AFTERNOON, |hours| {
            let half = hours.end.duration_since(hours.start) / 2;
            hours.start.checked_add(half).unwrap_or(hours.start)
        });
        self.next_at_time_of_day(from, middle)
    }
}

/// How soon after the team is back from a closure a deadline still counts as at risk: the first
/// working hours after days off go to the calls that piled up.
pub const RISK_AFTER_REOPENING: SignedDuration = SignedDuration::from_hours(4);

/// How long before a closure the reminders for the leads it puts at risk go out: the last working
/// hours, while someone can still call.
pub const REMIND_BEFORE_CLOSURE: SignedDuration = SignedDuration::from_hours(2);

/// A run of closed days, from the end of the last working hour before it to the first working
/// minute after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closure {
    pub starts: Timestamp,
    pub reopens: Timestamp,
}

impl Calendar {
    /// The closure that begins on the first closed day in `from..=to` (Kyiv dates), if any.
    fn first_closure_between(&self, from: Date, to: Date) -> Option<Closure> {
        if from > to {
            return None;
        }
        let zone = operators_zone();
        let first = *self.closed.0.range(from..=to).next()?;
        let mut last = first;
        while let Some(next) = last.tomorrow().ok().filter(|day| self.closed.contains(*day)) {
            last = next;
        }
        let midnight = first.to_zoned(zone.clone()).ok()?.timestamp();
        let ends = last.tomorrow().ok()?.to_zoned(zone).ok()?.timestamp();
        Some(Closure { starts: self.stopped_working_before(midnight), reopens: self.next_working(ends)? })
    }

    /// When the last working minute before `at` ended, looking back a day at most (`at` itself
    /// where the team worked until then or not at all that day).
    fn stopped_working_before(&self, at: Timestamp) -> Timestamp {
        let mut end = at;
        while let Ok(before) = end.checked_sub(STEP) {
            if self.works_at(before) || at.duration_since(before) > SignedDuration::from_hours(24) {
                return if self.works_at(before) { end } else { at };
            }
            end = before;
        }
        at
    }

    /// Whether a lead that arrived at `arrived` has its `promise` end during a closure or in the
    /// first working hours after one, so the team must call before the days off. Decided when
    /// it arrives; costs nothing where no closed day is near.
    pub fn at_risk(&self, arrived: Timestamp, promise: SignedDuration) -> bool {
        let zone = operators_zone();
        let deadline = arrived + promise;
        let mut from = arrived.to_zoned(zone.clone()).date();
        // A closure that starts on the day after the deadline may already have sent the team home.
        let to = deadline.to_zoned(zone).date().tomorrow().unwrap_or(Date::MAX);
        while let Some(closure) = self.first_closure_between(from, to) {
            if closure.starts <= deadline && deadline < closure.reopens + RISK_AFTER_REOPENING {
                return true;
            }
            match closure.reopens.to_zoned(operators_zone()).date().tomorrow() {
                Ok(next) if next > from => from = next,
                _ => break,
            }
        }
        false
    }

    /// The closure that begins within `REMIND_BEFORE_CLOSURE` of working time after `now`, while
    /// the team works: the moment to remind about the leads it puts at risk.
    pub fn closure_ahead(&self, now: Timestamp) -> Option<Closure> {
        if !self.works_at(now) {
            return None;
        }
        let zone = operators_zone();
        let today = now.to_zoned(zone.clone()).date();
        let closure =
            self.first_closure_between(today, today.checked_add(jiff::Span::new().days(7)).ok()?)?;
        // Working time left before it starts, counted as `after_working_hours` does.
        let mut left = SignedDuration::ZERO;
        let mut at = now;
        while at < closure.starts {
            if self.works_at(at) {
                left += STEP;
                if left > REMIND_BEFORE_CLOSURE {
                    return None;
                }
            }
            at = at.checked_add(STEP).ok()?;
        }
        Some(closure)
    }
}

/// One step of the retry cadence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryStep {
    /// This many working hours after the unanswered call.
    Hours(u32),
    /// The next start of a working day.
    Morning,
    /// The next middle of a working day.
    Afternoon,
}

/// When an unanswered lead is tried again: the first step after the first unanswered call, the
/// second after the second, and so on. After the last, the lead is due again as soon as the team
/// works, offered as unreachable: closing it is a person's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cadence(pub Vec<RetryStep>);

impl Default for Cadence {
    /// About two hours later, then the next working morning, then the next working afternoon:
    /// each try at another time of day.
    fn default() -> Cadence {
        Cadence(vec![RetryStep::Hours(2), RetryStep::Morning, RetryStep::Afternoon])
    }
}

impl Cadence {
    /// Steps separated by commas: `2h` (working hours), `morning`, `afternoon`; 1 to 10 steps.
    pub fn parse(text: &str) -> Result<Cadence, String> {
        let mut steps = Vec::new();
        for part in text.split(',').map(str::trim) {
            let step = match part.to_ascii_lowercase().as_str() {
                "morning" => RetryStep::Morning,
                "afternoon" => RetryStep::Afternoon,
                other => match other.strip_suffix('h').and_then(|n| n.trim().parse::<u32>().ok()) {
                    Some(hours @ 1..=72) => RetryStep::Hours(hours),
                    _ => return Err(format!("'{part}' is not 1h–72h, morning or afternoon")),
                },
            };
            steps.push(step);
        }
        if steps.len() > 10 {
            return Err("at most 10 steps".to_owned());
        }
        Ok(Cadence(steps))
    }

    /// As the setting is written.
    pub fn text(&self) -> String {
        let step = |step: &RetryStep| match step {
            RetryStep::Hours(hours) => format!("{hours}h"),
            RetryStep::Morning => "morning".to_owned(),
            RetryStep::Afternoon => "afternoon".to_owned(),
        };
        self.0.iter().map(step).collect::<Vec<_>>().join(",")
    }

    /// When the lead is tried again after an unanswered call at `now`, for each count of
    /// unanswered calls (the first entry after the first): every step counts from `now`.
    pub fn retries_after(&self, calendar: &Calendar, now: Timestamp) -> Vec<Option<Timestamp>> {
        let at = |step: &RetryStep| match step {
            RetryStep::Hours(hours) => calendar.after_working_hours(now, *hours),
            RetryStep::Morning => calendar.next_morning(now),
            RetryStep::Afternoon => calendar.next_afternoon(now),
        };
        self.0.iter().map(at).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kyiv(text: &str) -> Timestamp {
        text.parse::<jiff::civil::DateTime>().unwrap().to_zoned(operators_zone()).unwrap().timestamp()
    }

    fn office(closed: &str) -> Calendar {
        Calendar { hours: WorkingHours::parse("09:00-18:00"), closed: ClosedDays::parse(closed).unwrap() }
    }

    #[test]
    fn working_hours_count_only_when_the_team_works() {
        let calendar = office("2026-12-25");
        // Monday 10:00 + 2 h = 12:00; Monday 17:00 + 2 h = Tuesday 10:00.
        assert_eq!(calendar.after_working_hours(kyiv("2026-11-23T10:00"), 2), Some(kyiv("2026-11-23T12:00")));
        assert_eq!(calendar.after_working_hours(kyiv("2026-11-23T17:00"), 2), Some(kyiv("2026-11-24T10:00")));
        // Thursday 24 December 17:00 + 2 h: the 25th is closed, so Saturday 26th 10:00.
        assert_eq!(calendar.after_working_hours(kyiv("2026-12-24T17:00"), 2), Some(kyiv("2026-12-26T10:00")));
        // Ending exactly at the close of the day: the next morning, when someone can call.
        assert_eq!(calendar.after_working_hours(kyiv("2026-11-23T16:00"), 2), Some(kyiv("2026-11-24T09:00")));
    }

    #[test]
    fn the_default_cadence_tries_at_three_times_of_day_and_never_on_a_closed_day() {
        let calendar = office("2026-11-24");
        let cadence = Cadence::default();
        assert_eq!(cadence.text(), "2h,morning,afternoon");
        // An unanswered call on Monday 10:00: 12:00 the same day, then (Tuesday closed) Wednesday
        // 09:00, then Monday's own afternoon, 13:30.
        assert_eq!(
            cadence.retries_after(&calendar, kyiv("2026-11-23T10:00")),
            [Some(kyiv("2026-11-23T12:00")), Some(kyiv("2026-11-25T09:00")), Some(kyiv("2026-11-23T13:30"))]
        );
        // Late on Monday: Tuesday is closed, so everything moves to Wednesday.
        assert_eq!(
            cadence.retries_after(&calendar, kyiv("2026-11-23T17:30")),
            [Some(kyiv("2026-11-25T10:30")), Some(kyiv("2026-11-25T09:00")), Some(kyiv("2026-11-25T13:30"))]
        );
    }

    #[test]
    fn without_working_hours_every_hour_of_an_open_day_counts() {
        let calendar = Calendar { hours: None, closed: ClosedDays::parse("2026-11-24").unwrap() };
        assert_eq!(calendar.after_working_hours(kyiv("2026-11-23T23:00"), 2), Some(kyiv("2026-11-25T01:00")));
        assert_eq!(calendar.next_morning(kyiv("2026-11-23T10:00")), Some(kyiv("2026-11-25T09:00")));
        assert_eq!(calendar.next_afternoon(kyiv("2026-11-23T10:00")), Some(kyiv("2026-11-23T14:00")));
    }

    #[test]
    fn a_walk_through_working_time_goes_as_far_as_it_must() {
        // An hour a day: 72 working hours are 72 working days away, past any fixed horizon.
        let short_days =
            Calendar { hours: WorkingHours::parse("09:00-10:00"), closed: ClosedDays::default() };
        assert_eq!(
            short_days.after_working_hours(kyiv("2026-11-23T09:30"), 72),
            Some(kyiv("2027-02-03T09:30"))
        );
        // Closed for a hundred days: the first working minute after them.
        let days: Vec<String> = (0..100)
            .map(|n| kyiv("2026-12-01T12:00").to_zoned(operators_zone()).date() + jiff::Span::new().days(n))
            .map(|d| d.to_string())
            .collect();
        let closed = office(&days.join(","));
        assert_eq!(closed.next_working(kyiv("2026-11-30T19:00")), Some(kyiv("2027-03-11T09:00")));
        assert_eq!(closed.after_working_hours(kyiv("2026-11-30T17:00"), 2), Some(kyiv("2027-03-11T10:00")));
        assert_eq!(closed.next_morning(kyiv("2026-11-30T17:00")), Some(kyiv("2027-03-11T09:00")));
        // Hours across midnight: 22:00–06:00, and a closed day takes its own night's hours.
        let nights = Calendar {
            hours: WorkingHours::parse("22:00-06:00"),
            closed: ClosedDays::parse("2026-11-24").unwrap(),
        };
        assert_eq!(nights.after_working_hours(kyiv("2026-11-23T23:00"), 2), Some(kyiv("2026-11-25T01:00")));
        assert_eq!(nights.after_working_hours(kyiv("2026-11-25T05:00"), 2), Some(kyiv("2026-11-25T23:00")));
        // Between two working days without hours, midnight is no stop.
        let always = Calendar::default();
        assert_eq!(always.after_working_hours(kyiv("2026-11-23T23:00"), 2), Some(kyiv("2026-11-24T01:00")));
    }

    #[test]
    fn a_scan_looks_back_over_the_closed_days() {
        let span = SignedDuration::from_hours(72);
        let monday = kyiv("2027-01-04T09:00");
        assert_eq!(office("").back_over_closures(monday, span), monday - span);
        // Three days closed inside the 72 hours: three more days back, and one closed day
        // found only then counts as well.
        let long = office("2026-12-29,2027-01-01,2027-01-02,2027-01-03");
        assert_eq!(long.back_over_closures(monday, span), monday - SignedDuration::from_hours(72 + 4 * 24));
    }

    #[test]
    fn a_deadline_in_or_just_after_a_closure_is_at_risk() {
        let promise = SignedDuration::from_hours(48);
        // Closed on Friday 1 January 2027 (Kyiv), the team works 09:00–18:00.
        let calendar = office("2027-01-01");
        // Arrived Wednesday noon: due Friday noon, inside the closure.
        assert!(calendar.at_risk(kyiv("2026-12-30T12:00"), promise));
        // Arrived Thursday 10:00: due Saturday 10:00, an hour after the team is back.
        assert!(calendar.at_risk(kyiv("2026-12-31T10:00"), promise));
        // Due on Thursday night, after the team has gone home before the closure.
        assert!(calendar.at_risk(kyiv("2026-12-29T21:00"), promise));
        // Arrived Thursday 17:00: due Saturday 17:00, eight working hours after reopening.
        assert!(!calendar.at_risk(kyiv("2026-12-31T17:00"), promise));
        // Arrived Monday: due Wednesday, nowhere near the closure.
        assert!(!calendar.at_risk(kyiv("2026-12-28T10:00"), promise));
        // No closed days: nothing is at risk.
        assert!(!office("").at_risk(kyiv("2026-12-30T12:00"), promise));
        // Two closed days in a row count as one closure, reopening on the third day.
        let long = office("2027-01-01,2027-01-02");
        assert!(long.at_risk(kyiv("2026-12-31T20:00"), promise));
        assert!(long.at_risk(kyiv("2027-01-01T10:00"), promise));
        // Due on the morning before a closure that starts that evening: in time, and the closure's
        // end lies past the days looked at (the e2e test found this answering 500).
        let weekend = office("2027-01-02,2027-01-03");
        assert!(!weekend.at_risk(kyiv("2026-12-30T08:00"), promise));
    }

    #[test]
    fn the_reminder_comes_in_the_last_working_hours_before_a_closure() {
        let calendar = office("2027-01-01");
        // Thursday 16:30: 1 h 30 min of work left before the closure.
        let closure = calendar.closure_ahead(kyiv("2026-12-31T16:30")).unwrap();
        assert_eq!(closure, Closure { starts: kyiv("2026-12-31T18:00"), reopens: kyiv("2027-01-02T09:00") });
        // Thursday 15:00: three hours left, too early.
        assert_eq!(calendar.closure_ahead(kyiv("2026-12-31T15:00")), None);
        // Thursday 19:00: nobody works to be reminded.
        assert_eq!(calendar.closure_ahead(kyiv("2026-12-31T19:00")), None);
        // Without closed days, never.
        assert_eq!(office("").closure_ahead(kyiv("2026-12-31T17:00")), None);
    }

    #[test]
    fn days_closed_on_top_of_the_settings_count_as_theirs_do() {
        let calendar = office("2026-11-25").also_closed(["2026-11-24".parse().unwrap()]);
        // Monday 17:30 + 2 h: Tuesday (the list's) and Wednesday (the settings') are closed.
        assert_eq!(calendar.after_working_hours(kyiv("2026-11-23T17:30"), 2), Some(kyiv("2026-11-26T10:30")));
        let from_tuesday: Vec<String> =
            calendar.closed.on_or_after("2026-11-24".parse().unwrap()).map(|d| d.to_string()).collect();
        assert_eq!(from_tuesday, ["2026-11-24", "2026-11-25"]);
        assert_eq!(calendar.closed.on_or_after("2026-11-25".parse().unwrap()).count(), 1);
    }

    #[test]
    fn the_settings_say_what_is_wrong() {
        assert_eq!(Cadence::parse(" 1h , MORNING,afternoon,24h").unwrap().text(), "1h,morning,afternoon,24h");
        assert!(Cadence::parse("2h,evening").unwrap_err().contains("'evening'"));
        assert!(Cadence::parse("0h").is_err());
        assert!(Cadence::parse("").is_err());
        assert_eq!(ClosedDays::parse(""), Ok(ClosedDays::default()));
        assert!(ClosedDays::parse("2026-12-25, 2027-01-01").unwrap().contains("2027-01-01".parse().unwrap()));
        assert!(ClosedDays::parse("25.12.2026").unwrap_err().contains("'25.12.2026'"));
        for not_a_day in ["2026-12-25T23:30-05:00", "2026-12-25 10:00", "20261225", "2026/12/25"] {
            assert!(ClosedDays::parse(not_a_day).is_err(), "{not_a_day} was taken for a day");
        }
    }
}

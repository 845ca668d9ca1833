//! What the team is told, and by which way: the kinds of notice about a lead and the channels
//! that carry them. Names only at the edges (SQL rows, metric labels, JSON).

use serde::Serialize;

/// The operators' time zone: the days of the inbox's chart, the times in notifications and the
/// working hours.
pub fn operators_zone() -> jiff::tz::TimeZone {
    jiff::tz::TimeZone::get("Europe/Kyiv").unwrap_or(jiff::tz::TimeZone::UTC)
}

/// The operators' date at `at`: past midnight in Kyiv, not yet in UTC.
pub fn operators_date(at: jiff::Timestamp) -> jiff::civil::Date {
    at.to_zoned(operators_zone()).date()
}

/// When the team works, in its time zone: reminders and overdue notices wait for these hours (a
/// new lead is told at once, and the 48-hour clock runs on calendar time regardless). `end`
/// before `start` spans midnight (`22:00-06:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkingHours {
    pub start: jiff::civil::Time,
    pub end: jiff::civil::Time,
}

impl WorkingHours {
    /// `HH:MM-HH:MM`.
    pub fn parse(text: &str) -> Option<WorkingHours> {
        let (start, end) = text.split_once('-')?;
        let time = |t: &str| jiff::civil::Time::strptime("%H:%M", t.trim()).ok();
        let hours = WorkingHours { start: time(start)?, end: time(end)? };
        (hours.start != hours.end).then_some(hours)
    }

    pub fn contains(&self, at: jiff::Timestamp) -> bool {
        let now = at.to_zoned(operators_zone()).time();
        if self.start < self.end {
            self.start <= now && now < self.end
        } else {
            now >= self.start || now < self.end
        }
    }
}

/// Where a notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Telegram,
    Webhook,
    Email,
}

impl Channel {
    pub const ALL: [Channel; 3] = [Channel::Telegram, Channel::Webhook, Channel::Email];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Telegram => "telegram",
            Channel::Webhook => "webhook",
            Channel::Email => "email",
        }
    }

    pub fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Why the team is told about a lead: it arrived, its 48 hours are running out, or they ran out;
/// nobody called it in time (to the admins); the person wrote again (to its holder); the time a
/// call set for the next call has come (to its holder, or the team).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "NotificationEvent")]
pub enum Event {
    New,
    Reminder,
    Overdue,
    Escalated,
    WroteAgain,
    CallBackDue,
}

impl Event {
    pub const ALL: [Event; 6] = [
        Event::New,
        Event::Reminder,
        Event::Overdue,
        Event::Escalated,
        Event::WroteAgain,
        Event::CallBackDue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Event::New => "new",
            Event::Reminder => "reminder",
            Event::Overdue => "overdue",
            Event::Escalated => "escalated",
            Event::WroteAgain => "wrote_again",
            Event::CallBackDue => "call_back_due",
        }
    }

    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for channel in Channel::ALL {
            assert_eq!(Channel::from_name(channel.name()), Some(channel));
        }
        for event in Event::ALL {
            assert_eq!(Event::from_name(event.name()), Some(event));
        }
        assert_eq!(Channel::from_name("sms"), None);
    }

    #[test]
    fn working_hours_are_the_team_s_own_and_may_span_midnight() {
        let day = WorkingHours::parse("09:00-18:00").unwrap();
        // 07:30 UTC is 09:30 in Kyiv in November (UTC+2).
        assert!(day.contains("2026-11-25T07:30:00Z".parse().unwrap()));
        assert!(!day.contains("2026-11-25T16:00:00Z".parse().unwrap()), "18:00 in Kyiv: closed");
        assert!(!day.contains("2026-11-25T06:59:00Z".parse().unwrap()));
        let night = WorkingHours::parse("22:00 - 06:00").unwrap();
        assert!(night.contains("2026-11-25T23:00:00Z".parse().unwrap()), "01:00 in Kyiv");
        assert!(!night.contains("2026-11-25T10:00:00Z".parse().unwrap()));
        for wrong in ["", "9-18", "09:00", "09:00-09:00", "25:00-26:00"] {
            assert_eq!(WorkingHours::parse(wrong), None, "{wrong:?}");
        }
    }
}

//! The days the team does not work, as admins keep them in the inbox on top of the setting
//! `ZAYAVKA_CLOSED_DAYS` (ADR 0032): listed for anyone, added and removed by admins, each change
//! in the audit trail. Every user of the calendar reads them (`Store::calendar`).

use jiff::Timestamp;
use jiff::civil::Date;

use super::{Actor, Services};
use crate::calendar::DAYS_AHEAD_TO_CLOSE;
use crate::notice::{operators_date, operators_zone};
use crate::store::StoreError;
use crate::team::Action;

/// Longest note on a closed day, in characters: a word or two ("Різдво", "Переїзд офісу").
pub const MAX_NOTE_CHARS: usize = 100;

/// Where a closed day comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `ZAYAVKA_CLOSED_DAYS`: changed only where the server's settings are.
    Settings,
    /// The inbox's list.
    Inbox,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Settings => "settings",
            Source::Inbox => "inbox",
        }
    }
}

/// A closed day as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub day: Date,
    pub source: Source,
    pub note: Option<String>,
    /// Who added it and when (RFC 3339, UTC), for a day of the inbox's list.
    pub added: Option<(String, String)>,
}

/// The closed days from today (Kyiv) on, earliest first: the settings' and the list's. A day in
/// both is listed once, as the settings' (taking it off the list would not open it).
pub async fn list(services: Services<'_>, now: Timestamp) -> Result<Vec<Listed>, StoreError> {
    let today = operators_date(now);
    let settings = services.settings.settings_calendar();
    let mut days: Vec<Listed> = settings
        .closed
        .on_or_after(today)
        .map(|day| Listed { day, source: Source::Settings, note: None, added: None })
        .collect();
    let listed = services.store.closed_days(today, (DAYS_AHEAD_TO_CLOSE + 1) as u32).await?;
    days.extend(listed.into_iter().filter(|closed| !settings.closed.contains(closed.day)).map(|closed| {
        Listed {
            day: closed.day,
            source: Source::Inbox,
            note: closed.note,
            added: Some((closed.added_by, closed.added_at)),
        }
    }));
    days.sort_by_key(|listed| listed.day);
    Ok(days)
}

/// Why a day was not added or removed.
#[derive(Debug, thiserror::Error)]
pub enum DayRefusal {
    #[error("not a date such as 2026-12-31")]
    NotADate,
    #[error("the day has passed (Kyiv time)")]
    Past,
    #[error("more than {DAYS_AHEAD_TO_CLOSE} days ahead")]
    TooFar,
    #[error("the note is longer than {MAX_NOTE_CHARS} characters")]
    NoteTooLong,
    /// Only the settings close it: it is changed there.
    #[error("ZAYAVKA_CLOSED_DAYS closes the day")]
    InSettings,
    #[error("the day is not on the list")]
    NotListed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether the day was closed by this request or was closed already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    Added,
    AlreadyClosed,
}

/// Closes `day` (`YYYY-MM-DD`, Kyiv), today or later and at most a year ahead, with an optional
/// note. A day closed already (by the list or the settings) is not an error and changes nothing.
pub async fn add(
    services: Services<'_>,
    day: &str,
    note: Option<&str>,
    actor: &Actor,
    now: Timestamp,
) -> Result<(Date, Added), DayRefusal> {
    let day = parse_day(day)?;
    let today = operators_date(now);
    if day < today {
        return Err(DayRefusal::Past);
    }
    if day > today.checked_add(jiff::Span::new().days(DAYS_AHEAD_TO_CLOSE)).unwrap_or(Date::MAX) {
        return Err(DayRefusal::TooFar);
    }
    let note = note.map(crate::lead::clean::single_line).filter(|note| !note.is_empty());
    if note.as_ref().is_some_and(|note| note.chars().count() > MAX_NOTE_CHARS) {
        return Err(DayRefusal::NoteTooLong);
    }
    if services.settings.settings_calendar().closed.contains(day) {
        return Ok((day, Added::AlreadyClosed));
    }
    let trail = actor.did(Action::AddedClosedDay, None, Some(day.to_string()));
    if !services.store.add_closed_day(day, note, now, trail).await? {
        // Closed already: perhaps by a request whose move below failed, or raced a call.
        move_retries_off(services, day, now).await?;
        return Ok((day, Added::AlreadyClosed));
    }
    move_retries_off(services, day, now).await?;
    Ok((day, Added::Added))
}

/// A retry is never on a closed day: those set before `day` was closed (after an unanswered call,
/// by the cadence or at a time the operator chose) move to the team's next working minute after
/// it. A time the person asked for stays, and what is already due stays due. Moving them again
/// changes nothing.
async fn move_retries_off(services: Services<'_>, day: Date, now: Timestamp) -> Result<(), StoreError> {
    let bounds = day
        .to_zoned(operators_zone())
        .and_then(|start| Ok((start.timestamp(), start.tomorrow()?.timestamp())));
    let Ok((start, end)) = bounds else { return Ok(()) };
    let calendar = services.store.calendar(services.settings.settings_calendar(), now).await?;
    let Some(to) = calendar.next_working(end) else { return Ok(()) };
    let moved = services.store.move_retries(start.max(now), end, to).await?;
    if moved > 0 {
        tracing::info!(moved, %day, "retries moved off a day just closed");
    }
    Ok(())
}

/// Takes `day` off the inbox's list: the team works that day again (unless the settings close it,
/// which is refused as `InSettings`). A past day may go too.
pub async fn remove(services: Services<'_>, day: &str, actor: &Actor) -> Result<Date, DayRefusal> {
    let day = parse_day(day)?;
    if services.settings.settings_calendar().closed.contains(day) {
        return Err(DayRefusal::InSettings);
    }
    let trail = actor.did(Action::RemovedClosedDay, None, Some(day.to_string()));
    if !services.store.remove_closed_day(day, trail).await? {
        return Err(DayRefusal::NotListed);
    }
    Ok(day)
}

/// `YYYY-MM-DD` exactly (what a date input sends), surrounding spaces aside.
fn parse_day(text: &str) -> Result<Date, DayRefusal> {
    crate::calendar::parse_day(text).ok_or(DayRefusal::NotADate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_reads_only_as_a_date_input_writes_it() {
        assert_eq!(parse_day(" 2026-12-31 ").unwrap(), jiff::civil::date(2026, 12, 31));
        for wrong in ["31.12.2026", "2026-02-30", "2026-1-5", "tomorrow", "", "2026-12-31T00:00"] {
            assert!(matches!(parse_day(wrong), Err(DayRefusal::NotADate)), "{wrong:?}");
        }
    }
}

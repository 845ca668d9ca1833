//! The leads the promise figures measure (`application::figures`), kept between requests, hour by
//! hour of sending (ADR 0051). A month at 2 M leads is about 146,000 leads, more than either
//! engine reads in 50 ms (ADR 0049), and most of them no longer change. Each hour's counters row
//! says, in `lead_hours.revision`, when a lead sent in that hour came, went or changed something
//! the figures read, whoever wrote it (this server, a command, a hand in the database). A request
//! reads its hours' revisions and reads again only the hours whose revision moved.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Engine, Store, StoreError};

/// An hour of sending, as the counters key it: whole hours since 1970, UTC.
pub(super) type Hour = i64;

/// The hour `at` falls in.
pub(super) fn hour_of(at: jiff::Timestamp) -> Hour {
    at.as_second().div_euclid(3600)
}

/// When `hour` starts.
pub(super) fn start_of(hour: Hour) -> jiff::Timestamp {
    jiff::Timestamp::from_second(hour * 3600).expect("an hour of a stored time")
}

/// The columns of a lead the figures read, and whether it is one of the call list's first leads:
/// a change to any of them raises its hour's revision (both engines' counters' triggers).
pub(super) const PROMISE_COLUMNS: [&str; 8] = [
    "created_at",
    "utm_source",
    "referrer",
    "repeat_of",
    "held",
    "first_call_at",
    "first_call_by",
    "reached_at",
];

/// The leads of the call list sent in one hour, with what the promise figures measure from them.
/// A month of them is kept, so each lead is a few numbers: its names (where it came from, who
/// called it first) are kept once, in `names`, and the leads point to them (ADR 0049).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromiseLeads {
    pub leads: Vec<PromiseLead>,
    /// Every name the leads point to, once.
    pub names: Vec<String>,
}

/// A lead of `PromiseLeads`: its first call and when a call first reached the person. Its times
/// are read as times, not as RFC 3339 text as elsewhere: PostgreSQL took 225 of 260 ms at 2 M
/// leads to write a month's times as text (ADR 0044). A month of them is kept from the server's
/// start (`application::figures::read_ahead`), so a lead is 32 bytes: microseconds since 1970
/// (what both engines keep), `NO_TIME` or `NO_NAME` for a time or a name it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromiseLead {
    created_at: i64,
    first_attempt_at: i64,
    reached_at: i64,
    source: u32,
    first_attempt_by: u32,
}

/// What `PromiseLead` keeps for a time or a name that is not there.
const NO_TIME: i64 = i64::MIN;
const NO_NAME: u32 = u32::MAX;

impl PromiseLead {
    pub fn new(
        created_at: jiff::Timestamp,
        source: Option<u32>,
        first_attempt_at: Option<jiff::Timestamp>,
        first_attempt_by: Option<u32>,
        reached_at: Option<jiff::Timestamp>,
    ) -> PromiseLead {
        let time = |at: Option<jiff::Timestamp>| at.map_or(NO_TIME, |at| at.as_microsecond());
        PromiseLead {
            created_at: created_at.as_microsecond(),
            first_attempt_at: time(first_attempt_at),
            reached_at: time(reached_at),
            source: source.unwrap_or(NO_NAME),
            first_attempt_by: first_attempt_by.unwrap_or(NO_NAME),
        }
    }

    /// When it was sent, in microseconds since 1970.
    pub fn created_at(&self) -> i64 {
        self.created_at
    }

    /// The earliest call, in microseconds since 1970; `None` while nobody has called.
    pub fn first_attempt_at(&self) -> Option<i64> {
        (self.first_attempt_at != NO_TIME).then_some(self.first_attempt_at)
    }

    /// When a call first reached the person, in microseconds since 1970.
    pub fn reached_at(&self) -> Option<i64> {
        (self.reached_at != NO_TIME).then_some(self.reached_at)
    }

    /// Where it came from (`inbox::source_of`), an index into `PromiseLeads::names`; `None`: it
    /// came directly.
    pub fn source(&self) -> Option<u32> {
        (self.source != NO_NAME).then_some(self.source)
    }

    /// Who made the first call, an index into `PromiseLeads::names`.
    pub fn first_attempt_by(&self) -> Option<u32> {
        (self.first_attempt_by != NO_NAME).then_some(self.first_attempt_by)
    }
}

/// Builds each hour's `PromiseLeads` as an engine reads its rows, each name stored the first time
/// the hour sees it.
#[derive(Default)]
pub(super) struct PromiseReader {
    hours: BTreeMap<Hour, HourReader>,
}

#[derive(Default)]
struct HourReader {
    read: PromiseLeads,
    /// A name's index. Sources are the visitors' own text, so the hash is seeded (foldhash).
    ids: foldhash::HashMap<Box<[u8]>, u32>,
}

/// A row as an engine hands it over, its texts borrowed as bytes (a name is checked to be UTF-8
/// once, when it is first seen).
pub(super) struct PromiseRow<'a> {
    pub created_at: jiff::Timestamp,
    pub utm_source: Option<&'a [u8]>,
    pub referrer: Option<&'a [u8]>,
    pub first_attempt_at: Option<jiff::Timestamp>,
    pub first_attempt_by: Option<&'a [u8]>,
    pub reached_at: Option<jiff::Timestamp>,
}

impl PromiseReader {
    pub fn add(&mut self, row: PromiseRow<'_>) {
        let hour = self.hours.entry(hour_of(row.created_at)).or_default();
        let source = hour.id(crate::inbox::source_of(row.utm_source, row.referrer));
        let first_attempt_by = hour.id(row.first_attempt_by);
        hour.read.leads.push(PromiseLead::new(
            row.created_at,
            source,
            row.first_attempt_at,
            first_attempt_by,
            row.reached_at,
        ));
    }

    /// The hours read that held a lead, each as small as it can be: they are kept.
    pub fn finish(self) -> BTreeMap<Hour, PromiseLeads> {
        (self.hours.into_iter())
            .map(|(hour, mut reader)| {
                reader.read.leads.shrink_to_fit();
                reader.read.names.shrink_to_fit();
                (hour, reader.read)
            })
            .collect()
    }
}

impl HourReader {
    fn id(&mut self, name: Option<&[u8]>) -> Option<u32> {
        let name = name?;
        if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        let names = &mut self.read.names;
        let id = u32::try_from(names.len()).expect("fewer names than leads in an hour");
        // Both engines keep text as UTF-8; anything else is shown as well as it can be.
        names.push(String::from_utf8_lossy(name).into_owned());
        self.ids.insert(name.into(), id);
        Some(id)
    }
}

/// The hours this store has read, with the revision each had when it was read.
#[derive(Default)]
pub(super) struct KeptHours {
    hours: BTreeMap<Hour, (i64, Arc<PromiseLeads>)>,
}

impl Store {
    /// The people's first leads in the call list (not held, not repeats) sent in the hours from
    /// the one holding `since` to the one holding `until`, whole hours, one `PromiseLeads` each:
    /// the caller picks the leads of its window. Only the hours that changed since this store last
    /// read them are read, each through the index on `created_at`.
    pub async fn promise_leads(
        &self,
        since: jiff::Timestamp,
        until: jiff::Timestamp,
    ) -> Result<Vec<Arc<PromiseLeads>>, StoreError> {
        // One reader at a time: two requests at once would read the same changed hours twice.
        let mut kept = self.promise.lock().await;
        // The revisions first, then the rows: a change between the two is read now, and read again
        // next time (its revision then differs), never missed.
        let revisions: Vec<(Hour, i64)> = dispatch!(self, promise_revisions(hour_of(since), hour_of(until)))?;
        let stale: Vec<Hour> = revisions
            .iter()
            .filter(|(hour, revision)| kept.hours.get(hour).is_none_or(|(kept, _)| kept != revision))
            .map(|(hour, _)| *hour)
            .collect();
        let mut read =
            if stale.is_empty() { BTreeMap::new() } else { dispatch!(self, promise_leads(runs(&stale)))? };
        let mut fresh = BTreeMap::new();
        for (hour, revision) in revisions {
            let leads = match kept.hours.remove(&hour) {
                Some((was, leads)) if was == revision => leads,
                _ => Arc::new(read.remove(&hour).unwrap_or_default()),
            };
            fresh.insert(hour, (revision, leads));
        }
        // Hours that left the window are forgotten.
        kept.hours = fresh;
        Ok(kept.hours.values().map(|(_, leads)| leads.clone()).collect())
    }
}

/// `hours` (ascending) as runs of consecutive hours, each from its first hour up to the hour
/// after its last: one range of the index each.
fn runs(hours: &[Hour]) -> Vec<(Hour, Hour)> {
    let mut runs: Vec<(Hour, Hour)> = Vec::new();
    for &hour in hours {
        match runs.last_mut() {
            Some((_, end)) if *end == hour => *end = hour + 1,
            _ => runs.push((hour, hour + 1)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_hours_are_read_as_one_range() {
        assert_eq!(runs(&[]), vec![]);
        assert_eq!(runs(&[5]), vec![(5, 6)]);
        assert_eq!(runs(&[5, 6, 7, 9, 12, 13]), vec![(5, 8), (9, 10), (12, 14)]);
    }

    #[test]
    fn an_hour_is_the_counters_hour() {
        let at: jiff::Timestamp = "2026-11-27T15:59:59.999999Z".parse().unwrap();
        assert_eq!(start_of(hour_of(at)), "2026-11-27T15:00:00Z".parse().unwrap());
        let before_1970: jiff::Timestamp = "1969-12-31T23:30:00Z".parse().unwrap();
        assert_eq!(hour_of(before_1970), -1);
    }
}

//! The figures that say how the promise is kept: over the last 30 days, how long the people waited
//! for their first call and for a call that reached them, and the share reached within the
//! promise (`inbox::PROMISE`), overall, per operator and per source (docs/product.md).
//!
//! The store hands over the window's leads with their first call, hour by hour (it keeps the
//! hours that did not change, ADR 0051); the medians, the 90th percentiles and the share are
//! counted here, once for both engines, so the two cannot differ (SQLite has no percentile
//! function) and the promise stays a Rust rule.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use ts_rs::TS;

use crate::inbox::PROMISE;
use crate::store::{CountsAt, PromiseLead, Store, StoreError};

/// Days the inbox's figures look back, today included.
pub const FIGURES_DAYS: i64 = 30;

#[derive(Debug, thiserror::Error)]
pub enum FiguresError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The window's first day could not be placed in the operators' zone.
    #[error("the figures' days in the operators' zone: {0}")]
    Window(#[from] jiff::Error),
}

/// Whose rows `by_operator` shows: an admin (and the command line) every operator's, an operator
/// their own, as the other per-operator figures do.
#[derive(Debug, Clone, Copy)]
pub enum Viewer<'a> {
    Everyone,
    Operator(&'a str),
}

/// The promise figures of a window.
#[derive(Debug, Clone, PartialEq)]
pub struct PromiseFigures {
    pub since: Timestamp,
    pub until: Timestamp,
    pub promise: SignedDuration,
    pub overall: PromiseRow,
    /// Each lead counts for the operator who made its first call (`operator` null: nobody has
    /// called yet); most leads first.
    pub by_operator: Vec<OperatorRow>,
    /// `source`: utm_source, else the linking site's host; null: came directly. Most leads first.
    pub by_source: Vec<SourceRow>,
}

/// One group's figures. Times are whole minutes from the lead's arrival; `None` where no lead of
/// the group has one.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PromiseRow {
    pub leads: usize,
    /// Leads called at least once...
    pub attempted: usize,
    /// ...and how long they waited for that first call.
    pub first_attempt_median_minutes: Option<i64>,
    pub first_attempt_p90_minutes: Option<i64>,
    /// Leads a call reached...
    pub reached: usize,
    /// ...and how long the person waited for it.
    pub reach_median_minutes: Option<i64>,
    pub reach_p90_minutes: Option<i64>,
    /// Leads whose promise is over or that were reached (a lead still inside its hours is not yet
    /// kept or broken)...
    pub due: usize,
    /// ...of them those reached within the promise...
    pub reached_in_time: usize,
    /// ...as a share of `due`, 0 to 1.
    pub reached_in_time_share: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OperatorRow {
    pub operator: Option<String>,
    #[serde(flatten)]
    pub figures: PromiseRow,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SourceRow {
    pub source: Option<String>,
    #[serde(flatten)]
    pub figures: PromiseRow,
}

/// The start of the figures' window at `now`: midnight in Kyiv `FIGURES_DAYS - 1` days before
/// today, the days as the operators live them: the window of every figure of the inbox.
pub fn window_start(now: Timestamp) -> Result<Timestamp, jiff::Error> {
    let zone = crate::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(FIGURES_DAYS - 1);
    Ok(first_day.to_zoned(zone)?.timestamp())
}

/// The most leads a start reads ahead (ADR 0056). What it reads stays in memory from the first
/// second, about 32 bytes a lead (a month of 300,000 about 10 MB), beside what an export needs
/// within the server's 64 MB (docs/architecture.md). A busier month is read by its first request.
pub const READ_AHEAD_MOST: i64 = 300_000;

/// What `read_ahead` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAhead {
    /// The window's leads were read: how many.
    Read(usize),
    /// The window holds more leads than the most asked for (the counters say how many): nothing
    /// was read.
    TooMany(i64),
}

/// Reads the window ending at `now` into the store's kept hours, so that the first figures after
/// a start answer as fast as the next ones (ADR 0056): the server does it as it starts, with
/// `most` = `READ_AHEAD_MOST`.
pub async fn read_ahead(store: &Store, now: Timestamp, most: i64) -> Result<ReadAhead, FiguresError> {
    let since = window_start(now)?;
    let counts = store.counts(CountsAt { overdue_before: now - PROMISE, window_start: since }).await?;
    let counted: i64 = counts.per_hour.iter().map(|(_, leads)| leads).sum();
    if counted > most {
        return Ok(ReadAhead::TooMany(counted));
    }
    let hours = store.promise_leads(since, now).await?;
    Ok(ReadAhead::Read(hours.iter().map(|hour| hour.leads.len()).sum()))
}

/// Starts `read_ahead` beside the server's first requests; a figures request that comes before
/// it ends waits for it and reads nothing twice (the store reads the hours one reader at a time).
pub fn spawn_read_ahead(store: Store) {
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        match read_ahead(&store, store.clock().now(), READ_AHEAD_MOST).await {
            Ok(ReadAhead::Read(leads)) => {
                let millis = started.elapsed().as_millis();
                tracing::info!(leads, millis, "the promise figures' month read ahead");
            }
            Ok(ReadAhead::TooMany(leads)) => tracing::info!(
                leads,
                most = READ_AHEAD_MOST,
                "the promise figures' month not read ahead, too many leads: its first request reads it"
            ),
            Err(FiguresError::Store(StoreError::Closed)) => {}
            Err(e) => tracing::warn!(error = %e, "reading the promise figures' month ahead"),
        }
    });
}

/// How the promise was kept over the window ending at `now`.
pub async fn promise(
    store: &Store,
    now: Timestamp,
    viewer: Viewer<'_>,
) -> Result<PromiseFigures, FiguresError> {
    let since = window_start(now)?;
    let hours = store.promise_leads(since, now).await?;
    // The groups: each name the hours hold, once (operators and sources alike), the unnamed one
    // (nobody, direct) last; `hour_groups[h][i]` is the group of hour h's name i.
    let mut names: Vec<&str> = Vec::new();
    let mut groups_of_names: HashMap<&str, usize> = HashMap::new();
    let hour_groups: Vec<Vec<usize>> = hours
        .iter()
        .map(|hour| {
            (hour.names.iter())
                .map(|name| {
                    *groups_of_names.entry(name.as_str()).or_insert_with(|| {
                        names.push(name.as_str());
                        names.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    let window = since.as_microsecond()..now.as_microsecond();
    // Visits each lead of the window with its operator's group and its source's.
    let each_lead = |visit: &mut dyn FnMut(&Measured, usize, usize)| {
        for (hour, groups) in hours.iter().zip(&hour_groups) {
            let group = |name: Option<u32>| name.map_or(names.len(), |name| groups[name as usize]);
            // The hours are whole; the window is not (it ends now).
            for lead in hour.leads.iter().filter(|lead| window.contains(&lead.created_at())) {
                visit(&Measured::of(lead, now), group(lead.first_attempt_by()), group(lead.source()));
            }
        }
    };
    let mut overall = Tally::default();
    let mut operators: Vec<Tally> = std::iter::repeat_with(Tally::default).take(names.len() + 1).collect();
    let mut sources: Vec<Tally> = std::iter::repeat_with(Tally::default).take(names.len() + 1).collect();
    // The waits are counted before they are kept, so that each list takes the room it needs and
    // no more: at 2 M leads a month holds 146,000 of them, and a server does not give the memory
    // of a request back to the system (ADR 0056).
    each_lead(&mut |lead, operator, source| {
        for tally in [&mut overall, &mut operators[operator], &mut sources[source]] {
            tally.count(lead);
        }
    });
    for tally in std::iter::once(&mut overall).chain(&mut operators).chain(&mut sources) {
        tally.make_room();
    }
    each_lead(&mut |lead, operator, source| {
        for tally in [&mut overall, &mut operators[operator], &mut sources[source]] {
            tally.add(lead);
        }
    });
    // Another's lead still counts overall and per source; only their row is not shown.
    let shown = |operator: &Option<String>| match viewer {
        Viewer::Everyone => true,
        Viewer::Operator(me) => operator.as_deref() == Some(me),
    };
    Ok(PromiseFigures {
        since,
        until: now,
        promise: PROMISE,
        overall: overall.row(),
        by_operator: rows(operators, &names)
            .filter(|(operator, _)| shown(operator))
            .map(|(operator, figures)| OperatorRow { operator, figures })
            .collect(),
        by_source: rows(sources, &names).map(|(source, figures)| SourceRow { source, figures }).collect(),
    })
}

/// The groups' rows (`groups[i]` is named `names[i]`, the last one unnamed) that hold a lead, most
/// leads first, then by name, the unnamed group (nobody, direct) last.
fn rows<'a>(
    groups: Vec<Tally>,
    names: &[&'a str],
) -> impl Iterator<Item = (Option<String>, PromiseRow)> + 'a {
    let mut groups: Vec<(Option<&str>, Tally)> = groups
        .into_iter()
        .enumerate()
        .filter(|(_, tally)| tally.leads > 0)
        .map(|(i, tally)| (names.get(i).copied(), tally))
        .collect();
    groups.sort_by(|(a, x), (b, y)| {
        y.leads.cmp(&x.leads).then_with(|| a.is_none().cmp(&b.is_none())).then_with(|| a.cmp(b))
    });
    groups.into_iter().map(|(name, tally)| (name.map(str::to_owned), tally.row()))
}

/// A lead's waits, in microseconds (what both engines keep, so the figures agree exactly).
struct Measured {
    first_attempt: Option<i64>,
    reach: Option<i64>,
    /// Its promise is over (or it was reached): it counts in the share.
    due: bool,
}

impl Measured {
    fn of(lead: &PromiseLead, now: Timestamp) -> Measured {
        let wait = |at: Option<i64>| at.map(|at| at - lead.created_at());
        let reach = wait(lead.reached_at());
        let promise_over = i128::from(now.as_microsecond() - lead.created_at()) >= PROMISE.as_micros();
        Measured { first_attempt: wait(lead.first_attempt_at()), reach, due: reach.is_some() || promise_over }
    }
}

#[derive(Default)]
struct Tally {
    leads: usize,
    first_attempts: Vec<i64>,
    reaches: Vec<i64>,
    due: usize,
    reached_in_time: usize,
    /// The waits `count` has seen, for `make_room`.
    counted: (usize, usize),
}

impl Tally {
    fn count(&mut self, lead: &Measured) {
        self.counted.0 += usize::from(lead.first_attempt.is_some());
        self.counted.1 += usize::from(lead.reach.is_some());
    }

    fn make_room(&mut self) {
        self.first_attempts.reserve_exact(self.counted.0);
        self.reaches.reserve_exact(self.counted.1);
    }

    fn add(&mut self, lead: &Measured) {
        self.leads += 1;
        self.first_attempts.extend(lead.first_attempt);
        self.reaches.extend(lead.reach);
        self.due += usize::from(lead.due);
        let promise = PROMISE.as_micros();
        self.reached_in_time += usize::from(lead.reach.is_some_and(|reach| i128::from(reach) <= promise));
    }

    fn row(mut self) -> PromiseRow {
        PromiseRow {
            leads: self.leads,
            attempted: self.first_attempts.len(),
            first_attempt_median_minutes: minutes(percentile(&mut self.first_attempts, 0.5)),
            first_attempt_p90_minutes: minutes(percentile(&mut self.first_attempts, 0.9)),
            reached: self.reaches.len(),
            reach_median_minutes: minutes(percentile(&mut self.reaches, 0.5)),
            reach_p90_minutes: minutes(percentile(&mut self.reaches, 0.9)),
            due: self.due,
            reached_in_time: self.reached_in_time,
            reached_in_time_share: (self.due > 0).then(|| self.reached_in_time as f64 / self.due as f64),
        }
    }
}

/// The `p` percentile of `values`, between the two nearest values as PostgreSQL's
/// `percentile_cont` takes it; `None` for no values. Those two are selected, not the whole month
/// sorted (the order of `values` changes).
fn percentile(values: &mut [i64], p: f64) -> Option<f64> {
    let last = values.len().checked_sub(1)?;
    let rank = p * last as f64;
    let low = rank.floor() as usize;
    let (_, &mut a, above) = values.select_nth_unstable(low);
    // The next value up is the least of those above the low one.
    let b = if rank > low as f64 { above.iter().copied().min().unwrap_or(a) } else { a };
    let (a, b) = (a as f64, b as f64);
    Some(a + (b - a) * (rank - low as f64))
}

/// Microseconds as whole minutes, rounded.
fn minutes(micros: Option<f64>) -> Option<i64> {
    micros.map(|micros| (micros / 60_000_000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_lie_between_the_nearest_values() {
        assert_eq!(percentile(&mut [], 0.5), None);
        assert_eq!(percentile(&mut [7], 0.9), Some(7.0));
        assert_eq!(percentile(&mut [4, 1, 3, 2], 0.5), Some(2.5));
        let mut ten: Vec<i64> = (1..=10).rev().collect();
        assert!((percentile(&mut ten, 0.9).unwrap() - 9.1).abs() < 1e-9);
        assert_eq!(percentile(&mut [5, 1, 9, 3, 7], 0.5), Some(5.0));
        // As the two nearest values of the sorted month would give, repeats included.
        let mut state = 7u64;
        for len in 1..60 {
            let values: Vec<i64> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (state >> 33) as i64 % 50
                })
                .collect();
            let mut sorted = values.clone();
            sorted.sort_unstable();
            for p in [0.5, 0.9] {
                let rank = p * (len - 1) as f64;
                let (low, high) = (sorted[rank.floor() as usize] as f64, sorted[rank.ceil() as usize] as f64);
                let expected = low + (high - low) * (rank - rank.floor());
                assert_eq!(percentile(&mut values.clone(), p), Some(expected), "{values:?} {p}");
            }
        }
        assert_eq!(minutes(Some(90_000_000.0)), Some(2));
    }

    #[test]
    fn a_lead_inside_its_promise_is_not_yet_due() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let lead = |created_at: &str, reached_at: Option<&str>| {
            PromiseLead::new(
                created_at.parse().unwrap(),
                None,
                None,
                None,
                reached_at.map(|at| at.parse().unwrap()),
            )
        };
        let waiting = Measured::of(&lead("2026-11-19T12:00:00Z", None), now);
        let over = Measured::of(&lead("2026-11-18T12:00:00Z", None), now);
        let late = Measured::of(&lead("2026-11-10T12:00:00Z", Some("2026-11-12T12:00:01Z")), now);
        let in_time = Measured::of(&lead("2026-11-10T12:00:00Z", Some("2026-11-12T12:00:00Z")), now);
        let mut tally = Tally::default();
        for lead in [&waiting, &over, &late, &in_time] {
            tally.add(lead);
        }
        let row = tally.row();
        assert_eq!((row.leads, row.due, row.reached, row.reached_in_time), (4, 3, 2, 1));
        assert_eq!(row.reached_in_time_share, Some(1.0 / 3.0));
        assert_eq!(row.first_attempt_median_minutes, None);
    }
}

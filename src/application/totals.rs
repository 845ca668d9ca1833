//! The inbox's totals over the figures' 30 days (`figures::window_start`): leads held, open and
//! overdue, the share reached within the promise, the leads of each day in the operators' zone and
//! what the channels have not delivered; beside them, the same days per source and per operator.
//! Read from the counters the store keeps as leads change (ADR 0043) and from the outbox.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;
use ts_rs::TS;

use super::figures::{self, FiguresError, Viewer};
use crate::inbox::{PROMISE, source_of};
use crate::notice::Channel;
use crate::store::{ChannelQueue, CountsAt, Store};

/// The totals of the window ending at a moment.
#[derive(Debug, Serialize, TS)]
pub struct Totals {
    /// Leads held for review.
    pub held: i64,
    pub open: i64,
    pub overdue: i64,
    pub reached_in_time: ReachedInTime,
    /// One per day, oldest first, in the operators' time zone.
    pub per_day: Vec<DayCount>,
    /// What the configured channels have not delivered yet, per channel with anything waiting.
    pub notifications: Vec<ChannelQueue>,
}

/// Of the window's leads whose 48 hours are over or that were reached (`due`), those reached
/// within 48 hours.
#[derive(Debug, Serialize, TS)]
pub struct ReachedInTime {
    pub reached: i64,
    pub due: i64,
}

/// The leads sent on one day.
#[derive(Debug, Serialize, TS)]
pub struct DayCount {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub count: i64,
}

/// The window's figures per source and per operator.
#[derive(Debug, Serialize, TS)]
pub struct Breakdown {
    /// Most leads first.
    pub sources: Vec<SourceFigures>,
    /// Every account for an admin (and the command line), one's own for an operator.
    pub operators: Vec<OperatorFigures>,
}

/// A source's leads, and how many of them were reached within 48 hours.
#[derive(Debug, Serialize, TS)]
pub struct SourceFigures {
    /// `utm_source`, else the linking site's host; `null`: came directly.
    pub source: Option<String>,
    pub leads: i64,
    pub reached: i64,
}

/// An operator's calls, and the leads they reached within 48 hours.
#[derive(Debug, Serialize, TS)]
pub struct OperatorFigures {
    pub email: String,
    pub calls: i64,
    pub reached: i64,
}

/// The totals of the window ending at `now`; `channels`: the configured ones, whose queues count.
pub async fn totals(store: &Store, channels: &[Channel], now: Timestamp) -> Result<Totals, FiguresError> {
    // Days as the operators live them (Kyiv); the store counts whole UTC hours, and Kyiv's
    // offset from UTC is whole hours.
    let zone = crate::notice::operators_zone();
    let window_start = figures::window_start(now)?;
    let first_day = window_start.to_zoned(zone.clone()).date();
    let counts = store.counts(CountsAt { overdue_before: now - PROMISE, window_start }).await?;
    let mut per_day: Vec<(jiff::civil::Date, i64)> = (0..figures::FIGURES_DAYS)
        .filter_map(|n| first_day.checked_add(jiff::Span::new().days(n)).ok())
        .map(|day| (day, 0))
        .collect();
    for (hour, count) in &counts.per_hour {
        let Ok(at) = format!("{hour}:00:00Z").parse::<Timestamp>() else { continue };
        let day = at.to_zoned(zone.clone()).date();
        if let Some(entry) = per_day.iter_mut().find(|(d, _)| *d == day) {
            entry.1 += count;
        }
    }
    let per_day = per_day.into_iter().map(|(day, count)| DayCount { date: day.to_string(), count }).collect();
    // What the configured channels have not delivered yet: a channel that keeps failing (a
    // revoked bot token, a mailbox that refuses) would otherwise leave the operators unaware of
    // new leads.
    let mut notifications = store.outbox_queues().await?;
    notifications.retain(|queue| channels.contains(&queue.channel));
    Ok(Totals {
        held: counts.held,
        open: counts.open,
        overdue: counts.overdue,
        reached_in_time: ReachedInTime { reached: counts.reached_in_time, due: counts.due },
        per_day,
        notifications,
    })
}

/// The window ending at `now` per source (leads, and how many were reached within 48 hours) and
/// per operator (calls made, leads reached within 48 hours): every account for
/// `Viewer::Everyone`, those without a call too, the viewer's own row for an operator.
pub async fn breakdown(store: &Store, now: Timestamp, viewer: Viewer<'_>) -> Result<Breakdown, FiguresError> {
    let window_start = figures::window_start(now)?;
    let at = CountsAt { overdue_before: now - PROMISE, window_start };

    let mut sources: BTreeMap<Option<String>, (i64, i64)> = BTreeMap::new();
    for row in store.source_counts(at).await? {
        let source = source_of(row.utm_source.as_deref(), row.referrer.as_deref()).map(str::to_owned);
        let entry = sources.entry(source).or_default();
        entry.0 += row.leads;
        entry.1 += row.reached;
    }
    let mut sources: Vec<_> = sources.into_iter().collect();
    sources.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let sources = sources
        .into_iter()
        .map(|(source, (leads, reached))| SourceFigures { source, leads, reached })
        .collect();

    let counts = store.operator_counts(at.window_start).await?;
    let emails: Vec<String> = match viewer {
        Viewer::Everyone => {
            // Every account, those without a call too; then anyone removed who called meanwhile.
            let mut emails: Vec<String> = store.accounts().await?.into_iter().map(|a| a.email).collect();
            for count in &counts {
                if !emails.contains(&count.email) {
                    emails.push(count.email.clone());
                }
            }
            emails
        }
        Viewer::Operator(me) => vec![me.to_owned()],
    };
    let operators = emails
        .into_iter()
        .map(|email| {
            let count = counts.iter().find(|c| c.email == email);
            let (calls, reached) = count.map_or((0, 0), |c| (c.calls, c.reached));
            OperatorFigures { email, calls, reached }
        })
        .collect();
    Ok(Breakdown { sources, operators })
}

//! The inbox's figures (`docs/admin-api.md`): the totals over the last 30 days with what the
//! notification channels have not delivered, and beside them the figures per source and per
//! operator, and how the 48-hour promise is kept (`application::figures`).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use jiff::Timestamp;
use serde::Serialize;
use ts_rs::TS;

use super::admin_error::AdminError;
use super::inbox_api::{SignedIn, time};
use crate::application::figures::{self, OperatorRow, PromiseRow, SourceRow, Viewer};
use crate::http::AppState;
use crate::inbox::{PROMISE, source_of};
use crate::store::{ChannelQueue, CountsAt};
use crate::team::Role;

/// The inbox's totals over the last 30 days.
#[derive(Serialize, TS)]
pub struct Stats {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
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
#[derive(Serialize, TS)]
pub struct ReachedInTime {
    pub reached: i64,
    pub due: i64,
}

/// The leads sent on one day.
#[derive(Serialize, TS)]
pub struct DayCount {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub count: i64,
}

/// The figures per source and per operator over the same 30 days.
#[derive(Serialize, TS)]
pub struct Breakdown {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
    /// Most leads first.
    pub sources: Vec<SourceFigures>,
    /// Every account for an admin, one's own for an operator.
    pub operators: Vec<OperatorFigures>,
}

/// A source's leads, and how many of them were reached within 48 hours.
#[derive(Serialize, TS)]
pub struct SourceFigures {
    /// `utm_source`, else the linking site's host; `null`: came directly.
    pub source: Option<String>,
    pub leads: i64,
    pub reached: i64,
}

/// An operator's calls, and the leads they reached within 48 hours.
#[derive(Serialize, TS)]
pub struct OperatorFigures {
    pub email: String,
    pub calls: i64,
    pub reached: i64,
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/stats", get(stats))
        .route("/admin/api/stats/breakdown", get(breakdown))
        .route("/admin/api/stats/promise", get(promise))
}

async fn stats(State(state): State<AppState>, SignedIn(_): SignedIn) -> Result<Json<Stats>, AdminError> {
    let now = state.clock.now();
    // Days as the operators live them (Kyiv); the store counts whole UTC hours, and Kyiv's
    // offset from UTC is whole hours.
    let zone = crate::notice::operators_zone();
    let window_start = figures::window_start(now).map_err(AdminError::StatsWindow)?;
    let first_day = window_start.to_zoned(zone.clone()).date();
    let counts = state.store.counts(CountsAt { overdue_before: now - PROMISE, window_start }).await?;
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
    let channels = state.settings.notify.channels();
    let mut notifications = state.store.outbox_queues().await?;
    notifications.retain(|queue| channels.contains(&queue.channel));
    Ok(Json(Stats {
        now: time(now),
        held: counts.held,
        open: counts.open,
        overdue: counts.overdue,
        reached_in_time: ReachedInTime { reached: counts.reached_in_time, due: counts.due },
        per_day,
        notifications,
    }))
}

/// The figures beside the inbox's totals, over the same 30 days: per source, leads and how many
/// were reached within 48 hours; per operator, calls made and leads reached within 48 hours (an
/// admin sees every account, an operator their own).
async fn breakdown(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
) -> Result<Json<Breakdown>, AdminError> {
    let now = state.clock.now();
    let window_start = figures::window_start(now).map_err(AdminError::StatsWindow)?;
    let at = CountsAt { overdue_before: now - PROMISE, window_start };

    let mut sources: BTreeMap<Option<String>, (i64, i64)> = BTreeMap::new();
    for row in state.store.source_counts(at).await? {
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

    let counts = state.store.operator_counts(at.window_start).await?;
    let emails: Vec<String> = if session.role == Role::Admin {
        // Every account, those without a call too; then anyone removed who called meanwhile.
        let mut emails: Vec<String> = state.store.accounts().await?.into_iter().map(|a| a.email).collect();
        for count in &counts {
            if !emails.contains(&count.email) {
                emails.push(count.email.clone());
            }
        }
        emails
    } else {
        vec![session.email.clone()]
    };
    let operators = emails
        .into_iter()
        .map(|email| {
            let count = counts.iter().find(|c| c.email == email);
            let (calls, reached) = count.map_or((0, 0), |c| (c.calls, c.reached));
            OperatorFigures { email, calls, reached }
        })
        .collect();
    Ok(Json(Breakdown { now: time(now), sources, operators }))
}

/// `GET /admin/api/stats/promise` (docs/admin-api.md).
#[derive(Serialize, TS)]
#[ts(rename = "PromiseFigures")]
pub struct PromiseAnswer {
    pub now: String,
    pub since: String,
    pub until: String,
    pub promise_hours: i64,
    pub overall: PromiseRow,
    /// A lead counts for whoever called it first; `operator` null: nobody has called yet. An
    /// operator sees their own row.
    pub by_operator: Vec<OperatorRow>,
    /// `source`: utm_source, else the linking site's host; null: came directly.
    pub by_source: Vec<SourceRow>,
}

/// How the promise was kept over the figures' 30 days: the waits for the first call and for the
/// call that reached the person, and the share reached in time; per operator every account's rows
/// for an admin, one's own for an operator.
async fn promise(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
) -> Result<Json<PromiseAnswer>, AdminError> {
    let now = state.clock.now();
    let viewer =
        if session.role == Role::Admin { Viewer::Everyone } else { Viewer::Operator(&session.email) };
    let figures = figures::promise(&state.store, now, viewer).await?;
    Ok(Json(PromiseAnswer {
        now: time(now),
        since: time(figures.since),
        until: time(figures.until),
        promise_hours: figures.promise.as_hours(),
        overall: figures.overall,
        by_operator: figures.by_operator,
        by_source: figures.by_source,
    }))
}

//! The inbox's figures (`docs/admin-api.md`): the totals over the last 30 days with what the
//! notification channels have not delivered, and beside them the figures per source and per
//! operator, and how the 48-hour promise is kept (`application::figures`).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use jiff::Timestamp;
use serde::Serialize;
use serde_json::json;

use super::admin_error::AdminError;
use super::inbox_api::{SignedIn, time};
use crate::application::figures::{self, OperatorRow, PromiseRow, SourceRow, Viewer};
use crate::http::AppState;
use crate::inbox::{PROMISE, source_of};
use crate::store::CountsAt;
use crate::team::Role;

/// Days the inbox's figures look back.
const STATS_DAYS: i64 = 30;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/stats", get(stats))
        .route("/admin/api/stats/breakdown", get(breakdown))
        .route("/admin/api/stats/promise", get(promise))
}

async fn stats(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
) -> Result<Json<serde_json::Value>, AdminError> {
    let now = state.clock.now();
    // Days as the operators live them (Kyiv); the store counts whole UTC hours, and Kyiv's
    // offset from UTC is whole hours.
    let zone = crate::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(STATS_DAYS - 1);
    let window_start = first_day.to_zoned(zone.clone()).map_err(AdminError::StatsWindow)?;
    let counts = state
        .store
        .counts(CountsAt { overdue_before: now - PROMISE, window_start: window_start.timestamp() })
        .await?;
    let mut per_day: Vec<(jiff::civil::Date, i64)> = (0..STATS_DAYS)
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
    let per_day: Vec<serde_json::Value> =
        per_day.iter().map(|(day, count)| json!({ "date": day.to_string(), "count": count })).collect();
    // What the configured channels have not delivered yet: a channel that keeps failing (a
    // revoked bot token, a mailbox that refuses) would otherwise leave the operators unaware of
    // new leads.
    let channels = state.settings.notify.channels();
    let notifications: Vec<serde_json::Value> = state
        .store
        .outbox_queues()
        .await?
        .into_iter()
        .filter(|queue| channels.contains(&queue.channel))
        .map(|queue| {
            json!({
                "channel": queue.channel.name(),
                "waiting": queue.waiting,
                "failing": queue.failing,
                "oldest_at": queue.oldest_at,
                "last_error": queue.last_error,
            })
        })
        .collect();
    Ok(Json(json!({
        "now": time(now),
        "held": counts.held,
        "open": counts.open,
        "overdue": counts.overdue,
        "reached_in_time": { "reached": counts.reached_in_time, "due": counts.due },
        "per_day": per_day,
        "notifications": notifications,
    })))
}

/// The figures beside the inbox's totals, over the same 30 days: per source, leads and how many
/// were reached within 48 hours; per operator, calls made and leads reached within 48 hours (an
/// admin sees every account, an operator their own).
async fn breakdown(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
) -> Result<Json<serde_json::Value>, AdminError> {
    let now = state.clock.now();
    let zone = crate::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(STATS_DAYS - 1);
    let window_start = first_day.to_zoned(zone).map_err(AdminError::StatsWindow)?;
    let at = CountsAt { overdue_before: now - PROMISE, window_start: window_start.timestamp() };

    let mut sources: BTreeMap<Option<String>, (i64, i64)> = BTreeMap::new();
    for row in state.store.source_counts(at).await? {
        let entry = sources.entry(source_of(row.utm_source.as_deref(), row.referrer.as_deref())).or_default();
        entry.0 += row.leads;
        entry.1 += row.reached;
    }
    let mut sources: Vec<_> = sources.into_iter().collect();
    sources.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let sources: Vec<serde_json::Value> = sources
        .into_iter()
        .map(|(source, (leads, reached))| json!({ "source": source, "leads": leads, "reached": reached }))
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
    let operators: Vec<serde_json::Value> = emails
        .iter()
        .map(|email| {
            let count = counts.iter().find(|c| &c.email == email);
            json!({
                "email": email,
                "calls": count.map_or(0, |c| c.calls),
                "reached": count.map_or(0, |c| c.reached),
            })
        })
        .collect();
    Ok(Json(json!({ "now": format!("{now:.6}"), "sources": sources, "operators": operators })))
}

/// `GET /admin/api/stats/promise` (docs/admin-api.md).
#[derive(Serialize)]
struct PromiseAnswer {
    now: String,
    since: String,
    until: String,
    promise_hours: i64,
    overall: PromiseRow,
    by_operator: Vec<OperatorRow>,
    by_source: Vec<SourceRow>,
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

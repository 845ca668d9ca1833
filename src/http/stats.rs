//! The inbox's figures (`docs/admin-api.md`): the totals over the last 30 days with what the
//! notification channels have not delivered, and beside them the figures per source and per
//! operator, and how the 48-hour promise is kept (`application::figures`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use ts_rs::TS;

use super::admin_error::AdminError;
use super::inbox_api::{SignedIn, time};
use crate::application::figures::{self, OperatorRow, PromiseRow, SourceRow, Viewer};
use crate::application::totals::{self, Breakdown, Totals};
use crate::http::AppState;
use crate::store::Session;
use crate::team::Role;

/// `GET /admin/api/stats` (docs/admin-api.md): the inbox's totals over the last 30 days.
#[derive(Serialize, TS)]
#[ts(rename = "Stats")]
pub struct StatsAnswer {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
    #[serde(flatten)]
    pub totals: Totals,
}

/// `GET /admin/api/stats/breakdown`: the figures per source and per operator over the same days.
#[derive(Serialize, TS)]
#[ts(rename = "Breakdown")]
pub struct BreakdownAnswer {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
    #[serde(flatten)]
    pub breakdown: Breakdown,
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/stats", get(stats))
        .route("/admin/api/stats/breakdown", get(breakdown))
        .route("/admin/api/stats/promise", get(promise))
}

async fn stats(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
) -> Result<Json<StatsAnswer>, AdminError> {
    let now = state.clock.now();
    let totals = totals::totals(&state.store, &state.settings.notify.channels(), now).await?;
    Ok(Json(StatsAnswer { now: time(now), totals }))
}

async fn breakdown(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
) -> Result<Json<BreakdownAnswer>, AdminError> {
    let now = state.clock.now();
    let breakdown = totals::breakdown(&state.store, now, viewer(&session)).await?;
    Ok(Json(BreakdownAnswer { now: time(now), breakdown }))
}

/// Whose rows per operator a session sees: an admin every account's, an operator their own.
fn viewer(session: &Session) -> Viewer<'_> {
    if session.role == Role::Admin { Viewer::Everyone } else { Viewer::Operator(&session.email) }
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
    let figures = figures::promise(&state.store, now, viewer(&session)).await?;
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

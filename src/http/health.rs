//! `/healthz` (the process answers) and `/readyz` (the database answers too).

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

use crate::http::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(|| async { "ok\n" })).route("/readyz", get(ready))
}

async fn ready(State(state): State<AppState>) -> (StatusCode, &'static str) {
    match state.store.ping().await {
        Ok(()) => (StatusCode::OK, "ready\n"),
        Err(e) => {
            tracing::warn!(error = %e, "not ready");
            (StatusCode::SERVICE_UNAVAILABLE, "not ready: database unavailable\n")
        }
    }
}

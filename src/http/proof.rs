//! `GET /proof`: a page-load proof for the site's script, which sends it back with the insert as
//! `X-Zayavka-Proof`. It works where the page's cookie cannot: a site written by `zayavka
//! build-static` on another origin, or a browser that refuses cookies. Any origin may ask (the
//! proof says only when it was issued); it is never cached.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::http::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/proof", get(proof))
}

async fn proof(State(state): State<AppState>) -> impl IntoResponse {
    (
        [
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*")),
        ],
        axum::Json(serde_json::json!({ "proof": state.proof_key.issue(state.clock.unix_seconds()) })),
    )
}

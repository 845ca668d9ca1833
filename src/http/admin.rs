//! The operators' inbox: the React app's HTML shell on `/admin` and `/admin/…`, and its JSON API
//! under `/admin/api` (`docs/admin-api.md`), whose areas (`sign_in`, `leads`, `claims`, `stats`,
//! `team`, `second_factor`, and the exports here) this router puts under one set of layers. Every
//! API answer is `Cache-Control: no-store` (it holds personal data) and every API error is JSON;
//! every state-changing request needs the session's CSRF token.

use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Extension, Router};
use serde::Deserialize;
use tower_http::set_header::SetResponseHeaderLayer;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{MAX_BODY_BYTES, errors_as_json};
use super::sign_in::setup_offered;
use crate::http::AppState;

/// The inbox's routes, with the other areas of its API (`areas`), under one set of layers: the
/// body limit, JSON errors and `no-store`.
pub fn router(areas: Router<AppState>) -> Router<AppState> {
    let api = Router::new()
        .merge(areas)
        .route("/admin/api", any(not_found))
        .route("/admin/api/", any(not_found))
        .route("/admin/api/{*rest}", any(not_found))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::map_response(errors_as_json))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ));
    Router::new()
        .route("/admin", get(shell))
        .route("/admin/setup", get(setup_page))
        .route("/admin/{*path}", get(shell))
        .merge(api)
}

/// The inbox app; it signs in and loads everything through the API.
async fn shell(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let mut response = super::pages::page(&state.site.admin, &state, &headers);
    response.headers_mut().insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    response
}

/// The first start's setup page: the inbox app, which shows the form to create the first operator,
/// while the link's token works; otherwise the site's "not found" page, as for any unknown path.
async fn setup_page(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    headers: HeaderMap,
    query: Result<Query<SetupQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let token = query.map(|Query(query)| query.token).unwrap_or_default();
    let offered = match setup_offered(&state, &client, &token).await {
        Ok(offered) => offered,
        Err(e) => return e.into_response(),
    };
    if !offered {
        return super::pages::not_found_page(&state, &headers);
    }
    shell(State(state), headers).await
}

#[derive(Deserialize)]
struct SetupQuery {
    #[serde(default)]
    token: String,
}

async fn not_found() -> AdminError {
    AdminError::NotFound
}

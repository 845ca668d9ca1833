//! The application as a function: `app(state) -> Router`. `main.rs` and the tests call the same.

use axum::Router;
use axum::http::{Request, StatusCode};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

pub use crate::http::AppState;
use crate::http::{
    REQUEST_TIME_LIMIT, admin, claims, client, closed_days, export, form, health, leads, notifications,
    pages, proof, rest, second_factor, security, sign_in, stats, team,
};
use crate::lead::clean::printable;

pub fn app(state: AppState) -> Router {
    let policy =
        security::content_policy(&state.settings, &state.site.style_hashes, &state.site.script_hashes);
    let panic_state = state.clone();
    let timeout_state = state.clone();

    let mut router = Router::new()
        .merge(rest::router())
        .merge(form::router())
        .merge(health::router())
        .merge(proof::router())
        // The inbox's API areas, under its layers.
        .merge(admin::router(
            Router::new()
                .merge(sign_in::router())
                .merge(leads::router())
                .merge(claims::router())
                .merge(stats::router())
                .merge(team::router())
                .merge(second_factor::router())
                .merge(notifications::router())
                .merge(closed_days::router())
                .merge(export::router()),
        ))
        .merge(pages::router(&state.site))
        .route("/metrics", axum::routing::get(metrics))
        .layer(axum::middleware::from_fn_with_state(state.clone(), client::identify))
        .with_state(state)
        // Layers wrap inside-out: a request running too long is cut off and a panic becomes the
        // error page, then every answer (those too) gets the security headers, then the whole
        // exchange is traced.
        .layer(axum::middleware::from_fn_with_state(timeout_state, time_limit))
        .layer(CatchPanicLayer::custom(move |_| pages::error_page(&panic_state)));
    for layer in security::layers(&policy) {
        router = router.layer(layer);
    }
    router
        .layer(
            // Only method and path: a query string or a body could carry a visitor's name or phone.
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<_>| {
                    tracing::info_span!("request", method = %request.method(), path = %printable(request.uri().path()))
                })
                .on_request(())
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
}

/// Cuts off a request at `REQUEST_TIME_LIMIT` with an answer its client can read: PostgREST's JSON
/// on the API (supabase-js shows an empty body as an empty message), the error page elsewhere (a
/// visitor without JavaScript would otherwise see a blank page). A lead whose write had already
/// started may still be stored; sending it again is then caught as a duplicate.
async fn time_limit(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let api = request.uri().path().starts_with("/rest/");
    match tokio::time::timeout(REQUEST_TIME_LIMIT, next.run(request)).await {
        Ok(response) => response,
        Err(_) if api => crate::http::error::ApiError::TimedOut.into_response(),
        Err(_) => {
            let mut page = pages::error_page(&state);
            *page.status_mut() = StatusCode::REQUEST_TIMEOUT;
            page
        }
    }
}

/// Prometheus text: counts only, never a name or a phone. The outbox figures are read at each
/// scrape, so every instance reports the queue they share. Counts read before and after a submit
/// would still tell whether that phone was seen before (`zayavka_leads_repeated_total`), so only
/// a scraper on this machine or a private network, asking straight, gets them; to anyone else,
/// and to whatever a proxy passes on, `/metrics` is a page that does not exist.
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
    axum::Extension(client): axum::Extension<client::ClientInfo>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if !client::from_inside(client.ip, &headers) {
        return pages::not_found_page(&state, &headers);
    }
    let queues = state
        .store
        .outbox_queues()
        .await
        .inspect_err(|e| tracing::warn!(error = %e, "metrics: reading the notification queue"))
        .ok();
    let channels = state.settings.notify.channels();
    state.metrics.outbox(&channels, queues.as_deref(), state.clock.now());
    (
        [(axum::http::header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        state.metrics.render(),
    )
        .into_response()
}

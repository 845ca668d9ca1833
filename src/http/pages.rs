//! The visitor's pages and the build's files. What each path gets:
//! - a page's path (`/`, `/thank-you`, `/privacy-policy`, as the web build lists them in
//!   `pages.json`): its prerendered HTML, 200, revalidated (`no-cache`);
//! - `/assets/…` (hashed by the build): the file with its type, cached for a year, `immutable`;
//! - another file of the build (`/favicon.svg`): the file, revalidated;
//! - a path with a trailing slash: a permanent redirect to the path without it, when that path
//!   cannot be read as another site (see `stays_on_this_site`);
//! - a missing path with an extension in its last segment: a short plain 404 (no page for a
//!   missing image or script);
//! - any other path: the not-found page with status 404.
//!
//! Each answer is picked already compressed (brotli, gzip or none, by `Accept-Encoding`) and
//! answers `If-None-Match` with 304.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Extension, Router};

use super::client::{ClientInfo, request_cookie};
use crate::abuse;
use crate::http::AppState;
use crate::site::{Body, Page, Route, Site};

const HTML_CACHE: &str = "no-cache";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The routes of `site`'s pages, and the build's files and the not-found page for every other path.
pub fn router(site: &Site) -> Router<AppState> {
    let mut router = Router::new();
    for route in site.routes.iter().cloned() {
        let path = route.path.clone();
        router = router.route(
            &path,
            get(move |state: State<AppState>, client: Extension<ClientInfo>, headers: HeaderMap| {
                std::future::ready(route_page(&route, &state, &client, &headers))
            }),
        );
    }
    router.fallback(file_or_not_found)
}

/// A page at its path. The page with the form also hands the browser a page-load proof in a cookie
/// (the form without JavaScript sends it back), keeping a valid one so a second tab does not
/// shorten the fill time, and renewing one past half its life so it cannot expire while the
/// visitor types.
fn route_page(route: &Route, state: &AppState, client: &ClientInfo, headers: &HeaderMap) -> Response {
    let mut response = page(&route.page, state, headers);
    if !route.form {
        return response;
    }
    let now = state.clock.unix_seconds();
    let held = request_cookie(headers, abuse::PROOF_COOKIE);
    let fresh = matches!(
        state.proof_key.check(held.as_deref(), now),
        abuse::ProofCheck::Valid { age_seconds } if age_seconds < abuse::PROOF_LIFETIME.as_secs() as i64 / 2
    );
    if !fresh {
        let proof = state.proof_key.issue(now);
        response.headers_mut().insert(header::SET_COOKIE, abuse::proof_cookie(&proof, client.https));
    }
    response
}

pub(crate) fn page(page: &Page, state: &AppState, headers: &HeaderMap) -> Response {
    send(&page.body(state.clock.now()), headers, StatusCode::OK, HTML_CACHE)
}

async fn file_or_not_found(
    State(state): State<AppState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    // The client's router ignores a trailing slash; the server must not answer 404 to a path
    // the client would render as a page (hydration would disagree).
    let trimmed = uri.path().trim_end_matches('/');
    if trimmed.len() < uri.path().len() && stays_on_this_site(trimmed) {
        let target = match uri.query() {
            Some(query) => format!("{trimmed}?{query}"),
            None => trimmed.to_owned(),
        };
        return Redirect::permanent(&target).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    if let Some(file) = state.site.files.get(path) {
        let cache = if path.starts_with("assets/") { IMMUTABLE } else { HTML_CACHE };
        return send(file, &headers, StatusCode::OK, cache);
    }
    let last_segment = path.rsplit('/').next().unwrap_or("");
    if last_segment.contains('.') {
        return (StatusCode::NOT_FOUND, [(header::CACHE_CONTROL, HTML_CACHE)], "Not found\n").into_response();
    }
    not_found_page(&state, &headers)
}

/// Whether `path` as a `Location` can only mean a page of this site. A browser reads `//host`
/// and `/\host` (it takes `\` for `/`, and drops tabs and line breaks anywhere) as another
/// site, and a proxy may decode `%2F` or `%5C` first; so the path must begin with `/` and a
/// letter or digit, and hold nothing but the characters a URL path is written with (RFC 3986:
/// no `\`, space or control character). Any other path is simply not redirected.
fn stays_on_this_site(path: &str) -> bool {
    let mut bytes = path.bytes();
    bytes.next() == Some(b'/')
        && bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:@".contains(&b))
}

/// The not-found page with status 404 (also used by other routers for unknown page paths).
pub fn not_found_page(state: &AppState, headers: &HeaderMap) -> Response {
    send(&state.site.not_found.body(state.clock.now()), headers, StatusCode::NOT_FOUND, HTML_CACHE)
}

/// The server's own 500 page: the same 'Unexpected Application Error!' screen the app shows.
pub fn error_page(state: &AppState) -> Response {
    let body = state.site.error.body(state.clock.now());
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, body.content_type), (header::CACHE_CONTROL, "no-store")],
        body.identity.clone(),
    )
        .into_response()
}

fn send(body: &Body, request: &HeaderMap, status: StatusCode, cache: &'static str) -> Response {
    let etag = HeaderValue::from_str(&body.etag).expect("an etag is ASCII");
    let mut response = if status == StatusCode::OK && matches_etag(request, &body.etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let (encoding, bytes) = match preferred_encoding(request) {
            Encoding::Brotli => (Some("br"), body.brotli().clone()),
            Encoding::Gzip => (Some("gzip"), body.gzip().clone()),
            Encoding::Identity => (None, body.identity.clone()),
        };
        let mut response = (status, bytes).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(body.content_type));
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, etag);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    response
}

fn matches_etag(request: &HeaderMap, etag: &str) -> bool {
    request.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',').any(|tag| tag.trim().trim_start_matches("W/") == etag || tag.trim() == "*")
    })
}

pub(super) enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

/// Brotli when the client takes it, else gzip, else none; `q=0` refuses an encoding.
pub(super) fn preferred_encoding(request: &HeaderMap) -> Encoding {
    let accepted = |name: &str| {
        request
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|item| {
                let mut parts = item.split(';');
                let coding = parts.next().unwrap_or("").trim();
                let refused = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q == 0.0)
                });
                coding.eq_ignore_ascii_case(name) && !refused
            })
    };
    if accepted("br") {
        Encoding::Brotli
    } else if accepted("gzip") {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

//! The visitor's pages and the build's files. What each path gets:
//! - a page's path (`/`, `/thank-you`, `/privacy-policy`, as the web build lists them in
//!   `pages.json`): its prerendered HTML, 200, revalidated (`no-cache`; the page with the form
//!   also `private`, as it carries the visitor's page-load proof);
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

use bytes::Bytes;

use super::client::{ClientInfo, request_cookie};
use super::proof;
use crate::abuse;
use crate::http::AppState;
use crate::site::{Body, Page, Route, Site, escape_html};

const HTML_CACHE: &str = "no-cache";
/// The page with the form carries a proof of its own per visitor: no shared cache keeps it.
const FORM_PAGE_CACHE: &str = "private, no-cache";
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

/// A page at its path. The page with the form also hands the browser a page-load proof
/// (`proof::for_page`): in a cookie, which the form sends back, and in the form's hidden field, for
/// a browser that keeps no cookie (ADR 0066).
fn route_page(route: &Route, state: &AppState, client: &ClientInfo, headers: &HeaderMap) -> Response {
    let body = route.page.body(state.clock.now());
    let Some(open_end) = &body.open_end else {
        return send(&body, headers, StatusCode::OK, HTML_CACHE);
    };
    let held = request_cookie(headers, abuse::PROOF_COOKIE);
    let handed = proof::for_page(state, held.as_deref());
    // The ETag names the half-day the answer was made in: a copy revalidated (304) within it
    // holds a proof at most a day old, so still valid.
    let half_days = state.clock.unix_seconds().div_euclid(abuse::PROOF_LIFETIME.as_secs() as i64 / 2);
    let etag = format!("{}-{half_days}\"", body.etag.trim_end_matches('"'));
    let proof = escape_html(&handed.proof);
    let mut response = send_with(
        &etag,
        body.content_type,
        || match preferred_encoding(headers) {
            Encoding::Brotli => (Some("br"), open_end.brotli(&proof).into()),
            Encoding::Gzip => (Some("gzip"), open_end.gzip(&proof).into()),
            Encoding::Identity => (None, open_end.identity(&proof).into()),
        },
        headers,
        StatusCode::OK,
        FORM_PAGE_CACHE,
    );
    if handed.issued {
        response.headers_mut().insert(header::SET_COOKIE, proof::cookie(&handed.proof, client.https));
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
    let bytes = || match preferred_encoding(request) {
        Encoding::Brotli => (Some("br"), body.brotli().clone()),
        Encoding::Gzip => (Some("gzip"), body.gzip().clone()),
        Encoding::Identity => (None, body.identity.clone()),
    };
    send_with(&body.etag, body.content_type, bytes, request, status, cache)
}

/// An answer of `bytes` (its encoding and body, made only when not a 304) under `etag`.
fn send_with(
    etag: &str,
    content_type: &'static str,
    bytes: impl FnOnce() -> (Option<&'static str>, Bytes),
    request: &HeaderMap,
    status: StatusCode,
    cache: &'static str,
) -> Response {
    let mut response = if status == StatusCode::OK && matches_etag(request, etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let (encoding, bytes) = bytes();
        let mut response = (status, bytes).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, HeaderValue::from_str(etag).expect("an etag is ASCII"));
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

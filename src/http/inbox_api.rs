//! What every area of the inbox's API shares (`admin`, `sign_in`, `leads`, `claims`, `stats`,
//! `team`, `second_factor`): who is asking (the session extractors, with the CSRF token and
//! `Origin` checks), the session cookie, the JSON body reader, who the request acts as (for
//! the audit trail), and a lead as an action on it answers (`LeadDetail`). The areas import it;
//! it imports none of them. Their one error type is `admin_error::AdminError`.

use std::convert::Infallible;

use axum::body::{Bytes, HttpBody};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;
use serde::Serialize;
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::{ClientInfo, request_cookie};
use crate::application::Actor;
use crate::application::reading::{self, LeadShown};
use crate::auth;
use crate::http::AppState;
use crate::inbox::{LeadRecord, LeadView};
use crate::store::{Attempt, AuditEntry, Session};
use crate::team::{Action, Role};

/// The session cookie's name over plain HTTP.
const SESSION_COOKIE: &str = "zayavka_session";
/// Its name over HTTPS. Browsers keep a `__Host-` cookie only when it is `Secure`, has `Path=/`
/// and no `Domain`, and was set by this very host over HTTPS: no sibling subdomain and no
/// plain-HTTP answer can plant or shadow it.
const SECURE_SESSION_COOKIE: &str = "__Host-zayavka_session";
const CSRF_HEADER: &str = "x-csrf-token";
/// The longest request body the API reads: the inbox sends a few hundred bytes of JSON.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// Gives the API's error shape to the errors axum itself answers (a method the path does not
/// take, a malformed path parameter), which come as plain text; their other headers (`Allow`)
/// stay.
pub async fn errors_as_json(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let message = match status {
        StatusCode::BAD_REQUEST => "Некоректний запит.",
        StatusCode::NOT_FOUND => "Не знайдено.",
        StatusCode::METHOD_NOT_ALLOWED => "Цей запит тут не приймається.",
        StatusCode::PAYLOAD_TOO_LARGE => "Запит завеликий.",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Надсилайте дані як JSON.",
        _ if status.is_client_error() => "Запит відхилено.",
        _ => "Щось пішло не так. Спробуйте ще раз.",
    };
    let (mut parts, _) = response.into_parts();
    let (json_parts, body) = AdminError::Plain(status, message).into_response().into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.extend(json_parts.headers);
    Response::from_parts(parts, body)
}

/// Whether operators reach the site over HTTPS: as `ZAYAVKA_PUBLIC_URL` says when it is set (the
/// address the operators use), else as a trusted proxy's `X-Forwarded-Proto` says.
pub struct OverHttps(pub bool);

impl FromRequestParts<AppState> for OverHttps {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        let https = match state.settings.public_url.split_once("://") {
            Some((scheme, _)) => scheme.eq_ignore_ascii_case("https"),
            None => parts.extensions.get::<ClientInfo>().is_some_and(|client| client.https),
        };
        Ok(OverHttps(https))
    }
}

/// The signed-in operator, once any second factor the settings require is set up (until then
/// `403` with `"second_factor_required": true`).
pub struct SignedIn(pub Session);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = AdminError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AdminError> {
        let AnySession(session) = AnySession::from_request_parts(parts, state).await?;
        if state.settings.require_2fa && !session.second_factor {
            return Err(AdminError::SecondFactorRequired);
        }
        Ok(SignedIn(session))
    }
}

/// A signed-in operator, with or without the second factor the settings may require: what the
/// session, signing out and setting the factor up need. For a state-changing request it also
/// checks the CSRF token header and, when the browser sends one, that `Origin` is this site.
pub struct AnySession(pub Session);

impl FromRequestParts<AppState> for AnySession {
    type Rejection = AdminError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AdminError> {
        let Ok(OverHttps(https)) = OverHttps::from_request_parts(parts, state).await;
        let token = session_token(&parts.headers, https).ok_or(AdminError::SignedOut)?;
        let token_hash = auth::token_hash(&token);
        let session = state.store.session(token_hash.clone()).await?.ok_or(AdminError::SignedOut)?;
        if parts.method != Method::GET && parts.method != Method::HEAD {
            let sent = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
            if !auth::same_secret(sent, &session.csrf_token) || !same_origin(&parts.headers, https) {
                return Err(AdminError::ForeignOrigin);
            }
        }
        // Who is at work now (round-robin asks): failing to write it down does not fail the request.
        if session.seen_due
            && let Err(e) = state.store.session_seen(token_hash).await
        {
            tracing::warn!(error = %e, "inbox: cannot write down a session's use");
        }
        Ok(AnySession(session))
    }
}

/// A signed-in admin: anyone else gets 403.
pub struct AdminOnly(pub Session);

impl FromRequestParts<AppState> for AdminOnly {
    type Rejection = AdminError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AdminError> {
        let SignedIn(session) = SignedIn::from_request_parts(parts, state).await?;
        if session.role != Role::Admin {
            return Err(AdminError::NotAnAdmin);
        }
        Ok(AdminOnly(session))
    }
}

/// Who a request acts as: the signed-in operator, from the client's address.
pub fn actor(session: &Session, client: &ClientInfo) -> Actor {
    Actor { name: session.email.clone(), address: Some(client.ip.to_string()) }
}

/// An audit entry for what this operator did from this client.
pub fn audit_entry(
    session: &Session,
    client: &ClientInfo,
    action: Action,
    lead_id: Option<i64>,
    detail: Option<String>,
) -> AuditEntry {
    actor(session, client).did(action, lead_id, detail)
}

pub fn session_token(headers: &HeaderMap, https: bool) -> Option<String> {
    request_cookie(headers, if https { SECURE_SESSION_COOKIE } else { SESSION_COOKIE })
}

/// No `Origin` (not a browser, or a same-origin GET) passes; otherwise it must be this site: the
/// scheme operators reach it by and the request's `Host` (a plain-HTTP page of the same host is
/// another origin, one an attacker on the network can write).
pub fn same_origin(headers: &HeaderMap, https: bool) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else { return true };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let scheme = if https { "https" } else { "http" };
    !host.is_empty() && origin.eq_ignore_ascii_case(&format!("{scheme}://{host}"))
}

/// The request's JSON body. One that says it is longer than `MAX_BODY_BYTES` is refused unread;
/// one that did not say is read up to there only.
pub async fn read_json<T: serde::de::DeserializeOwned>(request: Request) -> Result<T, AdminError> {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media_type| media_type.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(AdminError::NotJson);
    }
    if request.body().size_hint().lower() > MAX_BODY_BYTES as u64 {
        return Err(AdminError::TooLarge);
    }
    let body = Bytes::from_request(request, &()).await.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => AdminError::TooLarge,
        _ => AdminError::BadRequest("Некоректний запит."),
    })?;
    serde_json::from_slice(&body).map_err(|_| AdminError::BadRequest("Некоректний запит."))
}

/// `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's page sends it). Over
/// HTTPS a `__Host-` cookie (`Secure`, the whole host); over plain HTTP, where browsers refuse
/// that prefix, only under `/admin`.
pub fn session_cookie(value: String, max_age_seconds: i64, https: bool) -> HeaderValue {
    let (name, path) = if https { (SECURE_SESSION_COOKIE, "/") } else { (SESSION_COOKIE, "/admin") };
    let cookie = cookie::Cookie::build((name, value))
        .path(path)
        .http_only(true)
        .same_site(cookie::SameSite::Strict)
        .secure(https)
        .max_age(cookie::time::Duration::seconds(max_age_seconds))
        .build();
    HeaderValue::from_str(&cookie.to_string()).expect("a token is ASCII")
}

/// A time as the API writes it: RFC 3339 in UTC, to the microsecond.
pub fn time(at: jiff::Timestamp) -> String {
    format!("{at:.6}")
}

/// One lead with its calls: what opening it, a call, a release or a claim answer.
#[derive(Serialize, TS)]
pub struct LeadDetail {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
    pub lead: LeadView,
    /// Oldest first.
    pub attempts: Vec<Attempt>,
    /// The later submissions of the same person, oldest first.
    pub repeats: Vec<LeadRecord>,
}

/// Lead `id` as an action on it answers: the lead, its calls and repeats, at the server's time.
pub async fn lead_answer(state: &AppState, id: i64) -> Result<LeadDetail, AdminError> {
    let now = state.clock.now();
    let shown = reading::lead(state.services(), id, now).await?.ok_or(AdminError::LeadNotFound)?;
    Ok(detail(shown, now))
}

/// A lead read at `now` as the API answers it.
pub fn detail(shown: LeadShown, now: Timestamp) -> LeadDetail {
    let LeadShown { lead, attempts, repeats } = shown;
    LeadDetail { now: time(now), lead, attempts, repeats }
}

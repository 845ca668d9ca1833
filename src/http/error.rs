//! The one error type of the public API. Each variant knows its status; the body is always
//! PostgREST's JSON shape `{code, message, details, hint}`, built in one place (`into_response`),
//! because supabase-js reads only that shape (and treats an empty error body as success).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::abuse::Limited;
use crate::lead::Problem;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no API key")]
    NoApiKey,
    #[error("invalid API key")]
    InvalidApiKey,
    #[error("unsupported content type {0}")]
    UnsupportedMediaType(String),
    #[error("body too large")]
    PayloadTooLarge,
    #[error("invalid JSON")]
    InvalidJson,
    #[error("body is not UTF-8")]
    NotUtf8,
    #[error("unknown column {0}")]
    UnknownColumn(String),
    #[error("unknown table {0}")]
    UnknownTable(String),
    #[error("unknown function {0}")]
    UnknownFunction(String),
    #[error("invalid path")]
    UnknownPath,
    #[error("method {0} not allowed")]
    MethodNotAllowed(String),
    #[error("{0} rows in one request")]
    TooManyRows(usize),
    #[error("a single object was asked for, {0} rows result")]
    NotSingleRow(usize),
    /// One entry per refused row: its position in the request and what was wrong with it.
    #[error("validation failed")]
    Invalid(Vec<(usize, Vec<Problem>)>),
    #[error("bad Idempotency-Key")]
    BadIdempotencyKey,
    #[error("Idempotency-Key reused with another request")]
    IdempotencyKeyReused,
    #[error("Idempotency-Key in use by a request still running")]
    IdempotencyKeyInUse,
    #[error("rate limited")]
    RateLimited(Limited),
    #[error("request timed out")]
    TimedOut,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// PostgREST's error body. Absent parts are `null`, as PostgREST writes them.
#[derive(Debug, Serialize)]
pub struct ErrorBody {
    pub code: Option<&'static str>,
    pub message: String,
    pub details: Option<String>,
    pub hint: Option<String>,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NoApiKey | ApiError::InvalidApiKey => StatusCode::UNAUTHORIZED,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge | ApiError::TooManyRows(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::InvalidJson | ApiError::NotUtf8 | ApiError::UnknownColumn(_) | ApiError::Invalid(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::UnknownTable(_) | ApiError::UnknownFunction(_) | ApiError::UnknownPath => {
                StatusCode::NOT_FOUND
            }
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::TimedOut => StatusCode::REQUEST_TIMEOUT,
            ApiError::BadIdempotencyKey => StatusCode::BAD_REQUEST,
            ApiError::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::IdempotencyKeyInUse | ApiError::Store(StoreError::IdempotencyKeyTaken) => {
                StatusCode::CONFLICT
            }
            ApiError::NotSingleRow(_) => StatusCode::NOT_ACCEPTABLE,
            ApiError::Store(StoreError::Unavailable(_) | StoreError::Closed) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }

    pub fn body(&self) -> ErrorBody {
        let (code, message, details, hint) = match self {
            // The messages Supabase's API gateway answers with.
            ApiError::NoApiKey => (None, "No API key found in request".to_owned(), None, None),
            ApiError::InvalidApiKey => (None, "Invalid API key".to_owned(), None, None),
            ApiError::UnsupportedMediaType(media) => (
                Some("PGRST107"),
                format!("None of these media types are available: {media}"),
                Some("Надішліть заявку як JSON (Content-Type: application/json).".to_owned()),
                None,
            ),
            ApiError::PayloadTooLarge => (
                None,
                "Payload too large".to_owned(),
                Some("Запит завеликий. Скоротіть коментар і спробуйте ще раз.".to_owned()),
                None,
            ),
            ApiError::TooManyRows(rows) => (
                None,
                format!(
                    "Too many rows: {rows} in one request, at most {}",
                    crate::lead::MAX_LEADS_PER_REQUEST
                ),
                None,
                Some("Send the rows in several requests".to_owned()),
            ),
            ApiError::InvalidJson => (Some("PGRST102"), "Empty or invalid json".to_owned(), None, None),
            ApiError::NotUtf8 => (
                Some("PGRST102"),
                "Empty or invalid json".to_owned(),
                Some("Текст заявки надіслано не в кодуванні UTF-8.".to_owned()),
                None,
            ),
            ApiError::UnknownColumn(column) => (
                Some("PGRST204"),
                format!("Could not find the '{column}' column of 'CRN' in the schema cache"),
                None,
                None,
            ),
            ApiError::UnknownTable(table) => (
                Some("PGRST205"),
                format!("Could not find the table 'public.{table}' in the schema cache"),
                None,
                Some("Perhaps you meant the table 'public.CRN'".to_owned()),
            ),
            ApiError::UnknownFunction(function) => (
                Some("PGRST202"),
                format!(
                    "Could not find the function public.{function} without parameters in the schema cache"
                ),
                None,
                None,
            ),
            ApiError::UnknownPath => {
                (Some("PGRST125"), "Invalid path specified in request URL".to_owned(), None, None)
            }
            ApiError::MethodNotAllowed(method) => {
                (Some("PGRST117"), format!("Unsupported HTTP method: {method}"), None, None)
            }
            ApiError::NotSingleRow(rows) => (
                Some("PGRST116"),
                "JSON object requested, multiple (or no) rows returned".to_owned(),
                Some(format!("The result contains {rows} rows")),
                None,
            ),
            ApiError::Invalid(rows) => invalid_body(rows),
            ApiError::BadIdempotencyKey => {
                (None, "Idempotency-Key must be 1 to 255 visible ASCII characters".to_owned(), None, None)
            }
            ApiError::IdempotencyKeyReused => (
                None,
                "Idempotency-Key was already used with a different request".to_owned(),
                None,
                Some("Use a new key for a new request".to_owned()),
            ),
            ApiError::IdempotencyKeyInUse | ApiError::Store(StoreError::IdempotencyKeyTaken) => (
                None,
                "A request with this Idempotency-Key is still being processed".to_owned(),
                None,
                Some("Retry after the first request has finished".to_owned()),
            ),
            ApiError::RateLimited(_) => (
                None,
                "Too many requests".to_owned(),
                Some("Забагато спроб поспіль. Спробуйте, будь ласка, ще раз за хвилину.".to_owned()),
                None,
            ),
            ApiError::TimedOut => (
                None,
                format!("The request took longer than {} s", crate::http::REQUEST_TIME_LIMIT.as_secs()),
                Some("Запит тривав задовго і був перерваний. Спробуйте, будь ласка, ще раз.".to_owned()),
                None,
            ),
            ApiError::Store(_) => (
                Some("PGRST000"),
                "Database connection error. Retrying the connection.".to_owned(),
                Some("Сервер тимчасово не може зберегти заявку. Спробуйте, будь ласка, ще раз.".to_owned()),
                None,
            ),
        };
        ErrorBody { code, message, details, hint }
    }
}

/// Problems spelled out in one error answer; the rest are only counted, so an answer never grows
/// with the request (a body of many bad rows must not buy a large answer).
const PROBLEMS_SHOWN: usize = 5;

/// A refused row is answered as PostgreSQL would refuse it (not-null or check violation), with
/// the Ukrainian explanation of the first few problems in `details`.
fn invalid_body(
    rows: &[(usize, Vec<Problem>)],
) -> (Option<&'static str>, String, Option<String>, Option<String>) {
    let first = rows.first().and_then(|(_, problems)| problems.first());
    let (code, message) = match first {
        Some(Problem::Missing(field)) => (
            "23502",
            format!(
                "null value in column \"{}\" of relation \"CRN\" violates not-null constraint",
                field.column()
            ),
        ),
        Some(problem) => (
            "23514",
            format!(
                "new row for relation \"CRN\" violates check constraint \"CRN_{}_check\"",
                problem.field().column()
            ),
        ),
        None => ("23514", "new row for relation \"CRN\" violates a check constraint".to_owned()),
    };
    let several = rows.len() > 1 || rows.first().is_some_and(|(index, _)| *index > 0);
    let problems = rows.iter().flat_map(|(index, problems)| problems.iter().map(move |p| (index, p)));
    let mut details = problems
        .clone()
        .take(PROBLEMS_SHOWN)
        .map(|(index, p)| if several { format!("Рядок {}: {p}", index + 1) } else { p.to_string() })
        .collect::<Vec<_>>()
        .join(" ");
    let unshown = problems.count().saturating_sub(PROBLEMS_SHOWN);
    if unshown > 0 {
        details.push_str(&format!(" …і ще {unshown}."));
    }
    (Some(code), message, Some(details), None)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), axum::Json(self.body())).into_response();
        if let ApiError::RateLimited(limited) = &self {
            response.headers_mut().extend(rate_limit_headers(limited));
        }
        response
    }
}

/// `Retry-After` and the IETF draft's `RateLimit-Policy` / `RateLimit` fields of a refusal by the
/// rate limit, on the API's answer and the form's page alike.
pub fn rate_limit_headers(limited: &Limited) -> [(header::HeaderName, HeaderValue); 3] {
    let seconds = limited.retry_after.as_secs_f64().ceil().max(1.0) as u64;
    let number = |text: String| HeaderValue::from_str(&text).expect("digits and ASCII");
    [
        (header::RETRY_AFTER, number(seconds.to_string())),
        (header::HeaderName::from_static("ratelimit-policy"), number(format!("{};w=60", limited.per_minute))),
        (
            header::HeaderName::from_static("ratelimit"),
            number(format!("limit={}, remaining=0, reset={seconds}", limited.per_minute)),
        ),
    ]
}

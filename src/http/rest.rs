//! `/rest/v1/CRN`: the insert the site's one call makes, answered as PostgREST answers an
//! anonymous insert-only table (row-level security lets `anon` insert and nothing else), so the
//! official supabase-js / postgrest-js clients work against it unchanged.

use std::collections::HashMap;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use axum::{Json, Router};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tower_http::cors::{AllowHeaders, Any, CorsLayer};

use super::client::ClientInfo;
use super::idempotency::idempotency_key;
use super::submit;
use crate::http::AppState;
use crate::http::error::ApiError;
use crate::lead::{Attribution, Lead, LeadInput, MAX_LEADS_PER_REQUEST, attribution};
use crate::store::{IDEMPOTENCY_WINDOW, Idempotency, StoreError};

/// Generous for one lead (a 1000-character comment is ~4 KB of Cyrillic UTF-8) and for a few
/// rows from an operator's script, small enough that a flood costs little memory.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The columns an insert may write, besides the optional attribution (`attribution::KEYS`); `id`
/// and `created_at` are the server's.
const WRITABLE: [&str; 4] = ["name", "phone", "confirmation", "comment"];

fn writable(column: &str) -> bool {
    WRITABLE.contains(&column) || attribution::KEYS.contains(&column)
}
/// The columns a `select=` may name.
const READABLE: [&str; 6] = ["id", "created_at", "name", "phone", "confirmation", "comment"];

pub fn router() -> Router<AppState> {
    // Any origin may insert, without credentials; the preflight echoes the requested headers
    // because client libraries add headers over time (x-client-info, content-profile, prefer).
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([header::CONTENT_RANGE, header::LOCATION])
        .max_age(std::time::Duration::from_secs(86_400));
    Router::new()
        .route(
            "/rest/v1/CRN",
            post(insert)
                .get(read_nothing)
                .head(read_nothing)
                .patch(change_nothing)
                .delete(change_nothing)
                .fallback(method_not_allowed),
        )
        .route("/rest/v1/{table}", any(unknown_table))
        // Every other path under the API answers in PostgREST's shape too: supabase-js reads an
        // empty or HTML error as something else.
        .route("/rest/v1", any(unknown_path))
        .route("/rest/v1/", any(unknown_path))
        .route("/rest/v1/rpc/{function}", any(unknown_function))
        .route("/rest/v1/{table}/{*rest}", any(unknown_path))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(cors)
}

/// The `apikey` header (or query parameter, as Supabase's gateway also takes it), checked before
/// anything else of the request is read. A handler that takes it cannot run without it.
struct AnonKey;

impl FromRequestParts<AppState> for AnonKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<AnonKey, ApiError> {
        let from_query = || {
            Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
                .ok()
                .and_then(|Query(query)| query.get("apikey").cloned())
        };
        let given = match parts.headers.get("apikey") {
            Some(key) => Some(key.as_bytes().to_vec()),
            None => from_query().map(String::into_bytes),
        };
        match given {
            None => Err(ApiError::NoApiKey),
            Some(key) if key == state.anon_key.as_bytes() => Ok(AnonKey),
            Some(_) => Err(ApiError::InvalidApiKey),
        }
    }
}

/// What the client asked for in `Prefer` and `Accept`.
struct Answer {
    representation: bool,
    single_object: bool,
    select: Option<Vec<String>>,
}

async fn insert(
    _: AnonKey,
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    // One token before the body is read; a request of several rows pays for the others once they
    // are counted (`insert_checked`).
    submit::check_rate(&state, &client, 1).await.map_err(ApiError::RateLimited)?;
    let result = match idempotency_key(&headers).map_err(|_| ApiError::BadIdempotencyKey)? {
        None => insert_checked(&state, &client, &headers, &query, body, None).await,
        Some(key) => insert_idempotent(&state, &client, &headers, &query, body, key).await,
    };
    if matches!(
        result,
        Err(ApiError::UnsupportedMediaType(_)
            | ApiError::PayloadTooLarge
            | ApiError::InvalidJson
            | ApiError::NotUtf8
            | ApiError::UnknownColumn(_)
            | ApiError::Invalid(_))
    ) {
        submit::invalid(&state);
    }
    result
}

/// An insert under an `Idempotency-Key`: a repeat of a finished request replays its answer (the
/// same leads, nothing stored twice); the same key with another body is 422; the same key while
/// the first request is still running, here or on another instance, is 409.
async fn insert_idempotent(
    state: &AppState,
    client: &ClientInfo,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
    body: Result<Bytes, BytesRejection>,
    key: String,
) -> Result<Response, ApiError> {
    let Some(_running) = InFlight::claim(state, &key) else { return Err(ApiError::IdempotencyKeyInUse) };
    let body = body.map_err(body_error)?;
    let mut fingerprint = Sha256::new();
    fingerprint.update(&body);
    fingerprint.update([0]);
    fingerprint.update(query.get("columns").map(String::as_bytes).unwrap_or_default());
    let fingerprint: String = fingerprint.finalize().iter().map(|b| format!("{b:02x}")).collect();

    if let Some(replay) = replay(state, headers, query, &key, &fingerprint).await {
        return replay;
    }
    let idempotency = Idempotency { key: key.clone(), fingerprint: fingerprint.clone() };
    match insert_checked(state, client, headers, query, Ok(body), Some(idempotency)).await {
        // Another instance has the key: running (409), or finished just now (its answer).
        Err(ApiError::Store(StoreError::IdempotencyKeyTaken)) => {
            replay(state, headers, query, &key, &fingerprint)
                .await
                .unwrap_or(Err(ApiError::IdempotencyKeyInUse))
        }
        answer => answer,
    }
}

/// The answer to a repeat of a request recorded under `key`, if there was one.
async fn replay(
    state: &AppState,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
    key: &str,
    fingerprint: &str,
) -> Option<Result<Response, ApiError>> {
    let since = state.clock.now() - IDEMPOTENCY_WINDOW;
    let (recorded, ids) = match state.store.idempotency_record(key, since).await {
        Ok(record) => record?,
        Err(e) => return Some(Err(e.into())),
    };
    if recorded != fingerprint {
        return Some(Err(ApiError::IdempotencyKeyReused));
    }
    let answer = async {
        let leads = state.store.leads_by_ids(ids).await?;
        let mut response = respond(StatusCode::CREATED, &leads, &answer_asked(headers, query)?)?;
        response.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
        Ok(response)
    };
    Some(answer.await)
}

/// Keys of requests this instance is still working on.
struct InFlight<'a> {
    state: &'a AppState,
    key: String,
}

impl<'a> InFlight<'a> {
    fn claim(state: &'a AppState, key: &str) -> Option<InFlight<'a>> {
        let claimed = state.idempotency_in_flight.lock().expect("in-flight lock").insert(key.to_owned());
        claimed.then(|| InFlight { state, key: key.to_owned() })
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.state.idempotency_in_flight.lock().expect("in-flight lock").remove(&self.key);
    }
}

fn body_error(rejection: BytesRejection) -> ApiError {
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
        _ => ApiError::InvalidJson,
    }
}

fn answer_asked(headers: &HeaderMap, query: &HashMap<String, String>) -> Result<Answer, ApiError> {
    Ok(Answer {
        representation: prefers(headers, "return=representation"),
        single_object: accepts_single_object(headers),
        select: query.get("select").map(|s| parse_column_list(s)).transpose()?,
    })
}

async fn insert_checked(
    state: &AppState,
    client: &ClientInfo,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
    body: Result<Bytes, BytesRejection>,
    idempotency: Option<Idempotency>,
) -> Result<Response, ApiError> {
    check_content_type(headers)?;
    let body = body.map_err(body_error)?;
    let answer = answer_asked(headers, query)?;
    let columns = query.get("columns").map(|c| parse_column_list(c)).transpose()?;
    if let Some(columns) = &columns {
        if let Some(unknown) = columns.iter().find(|c| !writable(c)) {
            return Err(ApiError::UnknownColumn(unknown.clone()));
        }
    }

    let rows = parse_rows(&body, columns.as_deref())?;
    if rows.len() > 1 {
        submit::check_rate(state, client, rows.len() as u32 - 1).await.map_err(ApiError::RateLimited)?;
    }
    let mut leads = Vec::with_capacity(rows.len());
    let mut refused = Vec::new();
    for (index, row) in rows.into_iter().enumerate() {
        match row.validate() {
            Ok(lead) => leads.push(lead),
            Err(problems) => refused.push((index, problems)),
        }
    }
    if !refused.is_empty() {
        tracing::info!(rows = refused.len(), "lead refused by validation");
        return Err(ApiError::Invalid(refused));
    }
    // PostgREST refuses a singular answer for another number of rows and stores nothing.
    if answer.representation && answer.single_object && leads.len() != 1 {
        return Err(ApiError::NotSingleRow(leads.len()));
    }
    // Looking automated holds a lead for review; the answer is the same either way.
    submit::weigh(state, client, &submit::sender(state, headers, None, false, client.https), &mut leads)
        .await;
    let stored = submit::store(state, leads, idempotency).await?;
    let leads: Vec<Lead> = stored.into_iter().map(|row| row.lead).collect();
    respond(StatusCode::CREATED, &leads, &answer)
}

/// Reading the table as `anon` finds nothing, as under row-level security with no select policy.
async fn read_nothing(_: AnonKey, headers: HeaderMap) -> Result<Response, ApiError> {
    no_rows(StatusCode::OK, &headers)
}

/// Updating or deleting as `anon` changes nothing, as under row-level security.
async fn change_nothing(_: AnonKey, headers: HeaderMap) -> Result<Response, ApiError> {
    if prefers(&headers, "return=representation") {
        no_rows(StatusCode::OK, &headers)
    } else {
        Ok(StatusCode::NO_CONTENT.into_response())
    }
}

fn no_rows(status: StatusCode, headers: &HeaderMap) -> Result<Response, ApiError> {
    let answer = Answer { representation: true, single_object: accepts_single_object(headers), select: None };
    respond(status, &[], &answer)
}

async fn unknown_table(_: AnonKey, Path(table): Path<String>) -> ApiError {
    ApiError::UnknownTable(table)
}

async fn unknown_function(_: AnonKey, Path(function): Path<String>) -> ApiError {
    ApiError::UnknownFunction(function)
}

async fn unknown_path(_: AnonKey) -> ApiError {
    ApiError::UnknownPath
}

async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::MethodNotAllowed(method.to_string())
}

fn respond(status: StatusCode, rows: &[Lead], answer: &Answer) -> Result<Response, ApiError> {
    let range = HeaderValue::from_static("*/*");
    if !answer.representation {
        return Ok((status, [(header::CONTENT_RANGE, range)]).into_response());
    }
    let rows: Vec<Value> = rows.iter().map(|lead| project(lead, answer.select.as_deref())).collect();
    if answer.single_object {
        return match <[Value; 1]>::try_from(rows) {
            Ok([row]) => Ok((status, [(header::CONTENT_RANGE, range)], Json(row)).into_response()),
            Err(rows) => Err(ApiError::NotSingleRow(rows.len())),
        };
    }
    Ok((status, [(header::CONTENT_RANGE, range)], Json(rows)).into_response())
}

/// The row as JSON, with only the `select=` columns when given (`*` means all).
fn project(lead: &Lead, select: Option<&[String]>) -> Value {
    let Value::Object(all) = serde_json::to_value(lead).expect("a lead serialises") else {
        unreachable!("a lead serialises to an object")
    };
    match select {
        Some(columns) if !columns.iter().any(|c| c == "*") => {
            Value::Object(all.into_iter().filter(|(key, _)| columns.contains(key)).collect())
        }
        _ => Value::Object(all),
    }
}

fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let media = value.to_str().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if media == "application/json" || media.ends_with("+json") {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMediaType(media))
    }
}

fn prefers(headers: &HeaderMap, preference: &str) -> bool {
    headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim().eq_ignore_ascii_case(preference))
}

fn accepts_single_object(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/vnd.pgrst.object+json"))
}

/// `columns=` and `select=` lists: `name,phone` or `"name","phone"`.
fn parse_column_list(list: &str) -> Result<Vec<String>, ApiError> {
    let columns: Vec<String> =
        list.split(',').map(|c| c.trim().trim_matches('"').to_owned()).filter(|c| !c.is_empty()).collect();
    match columns.iter().find(|c| c.as_str() != "*" && !READABLE.contains(&c.as_str())) {
        Some(unknown) => Err(ApiError::UnknownColumn(unknown.clone())),
        None => Ok(columns),
    }
}

/// The body as rows: one object or an array of at most `MAX_LEADS_PER_REQUEST` objects, every
/// key a writable column.
fn parse_rows(body: &[u8], columns: Option<&[String]>) -> Result<Vec<LeadInput>, ApiError> {
    // JSON is UTF-8 (RFC 8259); saying so helps more than "invalid json".
    let body = std::str::from_utf8(body).map_err(|_| ApiError::NotUtf8)?;
    let rows: Rows = serde_json::from_str(body).map_err(|_| ApiError::InvalidJson)?;
    if rows.total > MAX_LEADS_PER_REQUEST {
        return Err(ApiError::TooManyRows(rows.total));
    }
    rows.kept
        .into_iter()
        .map(|item| match item {
            Value::Object(object) => row(object, columns),
            _ => Err(ApiError::InvalidJson),
        })
        .collect()
}

/// The body's items: one object, or an array. Items past the cap are counted, not kept, so a body
/// of thousands of tiny rows costs no more memory than its own bytes.
struct Rows {
    kept: Vec<Value>,
    total: usize,
}

impl<'de> serde::Deserialize<'de> for Rows {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Rows, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};
        struct RowsVisitor;
        impl<'de> Visitor<'de> for RowsVisitor {
            type Value = Rows;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object or an array of objects")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Rows, A::Error> {
                let object = serde::Deserialize::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Rows { kept: vec![Value::Object(object)], total: 1 })
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Rows, A::Error> {
                let (mut kept, mut total) = (Vec::new(), 0);
                loop {
                    let more = if kept.len() < MAX_LEADS_PER_REQUEST {
                        items.next_element::<Value>()?.map(|item| kept.push(item)).is_some()
                    } else {
                        items.next_element::<IgnoredAny>()?.is_some()
                    };
                    if !more {
                        return Ok(Rows { kept, total });
                    }
                    total += 1;
                }
            }
        }
        deserializer.deserialize_any(RowsVisitor)
    }
}

fn row(mut object: Map<String, Value>, columns: Option<&[String]>) -> Result<LeadInput, ApiError> {
    match columns {
        // With `columns=`, PostgREST reads only those keys and ignores the rest.
        Some(columns) => object.retain(|key, _| columns.contains(key)),
        None => {
            if let Some(unknown) = object.keys().find(|k| !writable(k)) {
                return Err(ApiError::UnknownColumn(unknown.clone()));
            }
        }
    }
    let mut take = |key: &str| -> Result<Option<String>, ApiError> {
        match object.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            // PostgreSQL casts a JSON number or boolean into a text column.
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(ApiError::InvalidJson),
        }
    };
    let mut attribution = Vec::with_capacity(attribution::KEYS.len());
    for key in attribution::KEYS {
        attribution.push((key, take(key)?));
    }
    Ok(LeadInput {
        name: take("name")?,
        phone: take("phone")?,
        confirmation: take("confirmation")?,
        comment: take("comment")?,
        attribution: Attribution::from_raw(|key| {
            attribution.iter_mut().find(|(k, _)| *k == key).and_then(|(_, value)| value.take())
        }),
    })
}

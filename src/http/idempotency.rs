//! The `Idempotency-Key` header (IETF httpapi draft), as the public insert and the inbox's calls
//! take it: a request sent again with the same key does its work once.

use axum::http::HeaderMap;

/// A key that is not 1–255 visible ASCII characters.
#[derive(Debug)]
pub struct BadKey;

/// The request's key, if it sent one: 1–255 visible ASCII characters (quotes around it dropped).
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, BadKey> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().map_err(|_| BadKey)?.trim().trim_matches('"');
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(BadKey);
    }
    Ok(Some(key.to_owned()))
}

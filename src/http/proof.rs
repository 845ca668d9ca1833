//! `GET /proof`: a page-load proof for the site's script, which sends it back with the insert as
//! `X-Zayavka-Proof`. It works where the page's cookie cannot: a site written by `zayavka
//! build-static` on another origin, or a browser that refuses cookies. Any origin may ask (the
//! proof says only when it was issued); it is never cached.
//!
//! Also the proof a page with the form hands out, in its cookie and in its form (`for_page`).

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::abuse;
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

/// The proof a page with the form hands out (in its cookie and in its form's proof field).
pub(super) struct PageProof {
    pub proof: String,
    /// It was issued for this answer, so the cookie is to be set.
    pub issued: bool,
}

/// The first of the visitor's own proofs (`held`: from the cookie, from the form) that is valid
/// and short of half its life, so that a second tab does not shorten the fill time; else a new one,
/// so that it cannot expire while the visitor types.
pub(super) fn for_page<'a>(state: &AppState, held: impl IntoIterator<Item = &'a str>) -> PageProof {
    let now = state.clock.unix_seconds();
    let fresh = |proof: &&str| {
        matches!(
            state.proof_key.check(Some(proof), now),
            abuse::ProofCheck::Valid { age_seconds } if age_seconds < abuse::PROOF_LIFETIME.as_secs() as i64 / 2
        )
    };
    match held.into_iter().find(fresh) {
        Some(proof) => PageProof { proof: proof.to_owned(), issued: false },
        None => PageProof { proof: state.proof_key.issue(now), issued: true },
    }
}

/// The cookie that carries a proof to the form (and to same-origin scripts); `Secure` over HTTPS.
pub fn cookie(proof: &str, https: bool) -> HeaderValue {
    let cookie = cookie::Cookie::build((abuse::PROOF_COOKIE, proof))
        .path("/")
        .http_only(true)
        .secure(https)
        .same_site(cookie::SameSite::Lax)
        .max_age(cookie::time::Duration::seconds(abuse::PROOF_LIFETIME.as_secs() as i64))
        .build();
    HeaderValue::from_str(&cookie.to_string()).expect("the cookie is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_http_only_and_lax() {
        let cookie = cookie("1000.abc", true);
        let text = cookie.to_str().unwrap();
        for part in
            ["zayavka_proof=1000.abc", "HttpOnly", "SameSite=Lax", "Secure", "Path=/", "Max-Age=86400"]
        {
            assert!(text.contains(part), "{part} missing in {text}");
        }
    }
}

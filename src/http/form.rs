//! `POST /leads`: the same form without JavaScript (or before the script arrived). Same rules as
//! the JSON insert; success is a 303 to the redirect target. A refusal answers with the landing page
//! itself (`form-refused.html`, prerendered by the web build with slots, see
//! `web/src/form/refusal.ts`): the visitor's entries filled in, so nothing typed is lost, the fields
//! to change marked with their messages, and the toast's texts for the case (docs/product.md, Messages) in a live region at the top of the
//! form.
//! Every word on it comes from the web content module; this file only picks which ones apply.
//! An entry longer than its field allows is not echoed, and the page is compressed when the client
//! takes it, so a refusal is never much larger than the request that caused it.

use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::{Extension, Router};
use bytes::Bytes;
use serde::Deserialize;

use super::client::{ClientInfo, request_cookie};
use super::pages::{Encoding, preferred_encoding};
use super::{proof, submit};
use crate::abuse;
use crate::http::AppState;
use crate::lead::{self, Attribution, Field, LeadInput, Problem};
use crate::site::{PROOF_TOKEN, escape_html};

pub fn router() -> Router<AppState> {
    Router::new().route("/leads", post(submit)).layer(DefaultBodyLimit::max(super::rest::MAX_BODY_BYTES))
}

/// The form's fields, named as in the page's `<form>`.
#[derive(Debug, Default, Deserialize)]
pub struct LeadForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    phone: String,
    #[serde(default)]
    confirmation: String,
    #[serde(default)]
    comment: String,
    /// The agreement checkbox: `on` when checked (the value both forms give it). Anything else,
    /// an empty `agreed=` too, is no consent.
    agreed: Option<String>,
    /// The honeypot: invisible to people, filled in by bots (and by some password managers).
    #[serde(default)]
    website: String,
    /// The page-load proof the page wrote into the form (ADR 0066), for a browser that keeps no
    /// cookie; empty on a page `zayavka build-static` wrote.
    #[serde(default)]
    zayavka_proof: String,
    /// Hidden fields the page may carry: where the visitor came from (`lead::attribution::KEYS`).
    #[serde(flatten)]
    attribution: std::collections::HashMap<String, String>,
}

impl LeadForm {
    fn has_agreed(&self) -> bool {
        self.agreed.as_deref() == Some("on")
    }
}

/// Where the lead came from: the form's own fields when it has them, else the `utm_*` parameters of
/// the landing page that posted it (its `Referer`, which the pages' `same-origin` policy sends to
/// this site only). Without JavaScript the linking site is not known.
fn attribution(form: &LeadForm, headers: &HeaderMap) -> Attribution {
    if lead::attribution::KEYS.iter().any(|key| form.attribution.contains_key(*key)) {
        return Attribution::from_raw(|key| form.attribution.get(key).cloned());
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let page = headers.get(header::REFERER).and_then(|v| v.to_str().ok()).unwrap_or("");
    let own_page = page.split_once("://").is_some_and(|(_, rest)| rest.split('/').next() == Some(host));
    let query = page.split_once('?').map(|(_, query)| query.split('#').next().unwrap_or("")).unwrap_or("");
    let parameters: Vec<(String, String)> = if own_page && !host.is_empty() {
        serde_urlencoded::from_str(query).unwrap_or_default()
    } else {
        Vec::new()
    };
    Attribution::from_raw(|key| {
        let utm = key.starts_with("utm_");
        parameters.iter().find(|(name, _)| utm && name == key).map(|(_, value)| value.clone())
    })
}

async fn submit(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let form = match read_form(&headers, body) {
        Ok(form) => form,
        Err(status) => {
            submit::invalid(&state);
            return refusal(&state, &headers, status, &Refusal::failed(), &LeadForm::default());
        }
    };
    if let Err(limited) = submit::check_rate(&state, &client, 1).await {
        let mut response =
            refusal(&state, &headers, StatusCode::TOO_MANY_REQUESTS, &Refusal::failed(), &form);
        response.headers_mut().extend(super::error::rate_limit_headers(&limited));
        return response;
    }
    let input = LeadInput {
        name: Some(form.name.clone()),
        phone: Some(form.phone.clone()),
        confirmation: Some(form.confirmation.clone()),
        comment: Some(form.comment.clone()),
        attribution: attribution(&form, &headers),
    };
    let problems = match input.validate() {
        Ok(lead) if form.has_agreed() => {
            // Looking automated (the honeypot filled, say) holds the lead for review: a person
            // whose password manager filled the hidden field is still called. The answer is the
            // same either way.
            let mut leads = vec![lead];
            // A form without JavaScript cannot do the proof of work: its proof is only the page's.
            let form_proof = Some(form.zayavka_proof.as_str()).filter(|proof| !proof.is_empty());
            let sender = submit::sender(&state, &headers, form_proof, !form.website.is_empty(), false);
            submit::weigh(&state, &client, &sender, &mut leads).await;
            return match submit::store(&state, leads, None).await {
                Ok(_) => Redirect::to(&state.settings.redirect_url).into_response(),
                Err(_) => {
                    refusal(&state, &headers, StatusCode::SERVICE_UNAVAILABLE, &Refusal::failed(), &form)
                }
            };
        }
        Ok(_) => Vec::new(),
        Err(problems) => problems,
    };
    submit::invalid(&state);
    let refused = Refusal::of(&problems, form.has_agreed());
    tracing::info!(fields = refused.fields.len(), "lead refused by validation (form)");
    refusal(&state, &headers, StatusCode::UNPROCESSABLE_ENTITY, &refused, &form)
}

/// The form's fields, or the status for a body that cannot be read. Text that is not UTF-8 is
/// refused rather than stored with its bytes replaced by `�`, which is what URL-decoding alone
/// would do.
fn read_form(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<LeadForm, StatusCode> {
    let media = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = media.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return Err(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let body = body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
        _ => StatusCode::BAD_REQUEST,
    })?;
    let utf8 = body
        .split(|&byte| byte == b'&' || byte == b'=')
        .all(|part| percent_encoding::percent_decode(part).decode_utf8().is_ok());
    if !utf8 {
        return Err(StatusCode::BAD_REQUEST);
    }
    serde_urlencoded::from_bytes(&body).map_err(|_| StatusCode::BAD_REQUEST)
}

/// What the refusal page says: the live region's case and the marked fields.
struct Refusal {
    /// A `data-zayavka-if` key of the live region (docs/product.md, Messages): `invalid` (a
    /// required field missing), `badPhone` (a phone that is not a number) or `failed` (everything
    /// else: too many tries, the database unavailable, a body that cannot be read).
    case: &'static str,
    /// The marked fields in the form's order, by name, each with the key of its message.
    fields: Vec<(&'static str, &'static str)>,
}

impl Refusal {
    fn failed() -> Refusal {
        Refusal { case: "failed", fields: Vec::new() }
    }

    /// The refusal for the lead rules' problems and the agreement box. A field too long is past
    /// the form's own `maxlength` (no person's browser sends it), so it has no message of its own:
    /// it is the general failure.
    fn of(problems: &[Problem], agreed: bool) -> Refusal {
        let mut fields: Vec<(&'static str, &'static str)> = problems
            .iter()
            .filter_map(|problem| match problem {
                Problem::Missing(field) => Some((field.column(), field.column())),
                Problem::BadPhone => Some((Field::Phone.column(), "phoneShape")),
                Problem::BadConfirmation => {
                    Some((Field::Confirmation.column(), Field::Confirmation.column()))
                }
                Problem::TooLong(..) => None,
            })
            .collect();
        if !agreed {
            fields.push(("agreed", "agreed"));
        }
        const FORM_ORDER: [&str; 4] = ["name", "phone", "confirmation", "agreed"];
        fields.sort_by_key(|(field, _)| FORM_ORDER.iter().position(|f| f == field));
        fields.dedup_by_key(|(field, _)| *field);
        let case = if fields.iter().any(|(_, message)| *message != "phoneShape") {
            "invalid"
        } else if fields.is_empty() {
            "failed"
        } else {
            "badPhone"
        };
        Refusal { case, fields }
    }
}

fn refusal(
    state: &AppState,
    request: &HeaderMap,
    status: StatusCode,
    refused: &Refusal,
    form: &LeadForm,
) -> Response {
    // The page's proof goes on with the form (the visitor's own, while it is good for the next
    // try), for a browser that keeps no cookie (ADR 0066).
    let cookie = request_cookie(request, abuse::PROOF_COOKIE);
    let proof =
        proof::for_page(state, cookie.as_deref().into_iter().chain([form.zayavka_proof.as_str()])).proof;
    let html = fill_refusal(&state.site.form_refused, refused, form, &proof).into_bytes();
    let (encoding, body) = match preferred_encoding(request) {
        Encoding::Brotli => (Some("br"), brotli_fast(&html)),
        Encoding::Gzip => (Some("gzip"), gzip_fast(&html)),
        Encoding::Identity => (None, html),
    };
    let mut response = (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::VARY, "Accept-Encoding"),
        ],
        body,
    )
        .into_response();
    if let Some(encoding) = encoding {
        response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    response
}

/// Compressed per answer, so at a low level: the prerendered pages' quality 11 would cost more
/// time than the bytes it saves (the page is some 17 KB, about 5 KB at this level).
fn brotli_fast(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 5, lgwin: 20, ..Default::default() };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params).expect("writing to memory");
    out
}

fn gzip_fast(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// An entry as the refusal echoes it: none when longer than its field allows. No person's browser
/// sends that (the form's `maxlength`), and echoing it would let a small request ask for a large
/// answer (an entry of `"` comes back six times as long, as `&quot;`). A browser sends each line
/// break of a textarea as CR LF but counts it once against `maxlength`, as validation does.
fn echoed(entry: &str, max_chars: usize) -> &str {
    if entry.trim().chars().filter(|&c| c != '\r').count() > max_chars { "" } else { entry }
}

/// `form-refused.html` for one refusal: only the live region's case and the marked fields' messages
/// kept, the marks and the focus on the first marked field (else on the live region), the choices
/// as the visitor left them, the entries HTML-escaped (attribute values and textarea text), and
/// the page-load proof in the form.
fn fill_refusal(template: &str, refused: &Refusal, form: &LeadForm, proof: &str) -> String {
    let marked = |field: &str| refused.fields.iter().any(|(f, _)| *f == field);
    let first = refused.fields.first().map_or("alert", |(field, _)| *field);
    let html = keep_paragraphs(template, |key| {
        key == refused.case || refused.fields.iter().any(|(_, message)| *message == key)
    });
    let html = replace_slots(&html, "data-zayavka-invalid", |field| {
        if marked(field) {
            format!(" aria-invalid=\"true\" aria-describedby=\"lead-{field}-error\"")
        } else {
            String::new()
        }
    });
    let html = replace_slots(&html, "data-zayavka-focus", |key| {
        if key == first { " autofocus=\"\"".to_owned() } else { String::new() }
    });
    let html = replace_slots(&html, "data-zayavka-checked", |key| {
        let checked = match key {
            "yes" => form.confirmation == lead::YES,
            "no" => form.confirmation == lead::NO,
            "agreed" => form.has_agreed(),
            _ => false,
        };
        if checked { " checked=\"\"".to_owned() } else { String::new() }
    });
    // The HTML parser drops one newline right after `<textarea>`: keep a comment's own.
    let comment = echoed(&form.comment, lead::MAX_COMMENT_CHARS);
    let comment = match comment.starts_with('\n') {
        true => format!("\n{}", escape_html(comment)),
        false => escape_html(comment),
    };
    fill_tokens(
        &html,
        &[
            ("__ZAYAVKA_FORM_NAME__", escape_html(echoed(&form.name, lead::MAX_NAME_CHARS))),
            ("__ZAYAVKA_FORM_PHONE__", escape_html(echoed(&form.phone, lead::MAX_PHONE_CHARS))),
            ("__ZAYAVKA_FORM_COMMENT__", comment),
            (PROOF_TOKEN, escape_html(proof)),
        ],
    )
}

/// Keeps each `<p data-zayavka-if="key">…</p>` whose key `keep` accepts (without the attribute)
/// and removes the others whole.
fn keep_paragraphs(html: &str, keep: impl Fn(&str) -> bool) -> String {
    const ATTR: &str = " data-zayavka-if=\"";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(ATTR) {
        let key_start = at + ATTR.len();
        let (Some(open), Some(key_len)) = (rest[..at].rfind("<p"), rest[key_start..].find('"')) else {
            break;
        };
        let after_attr = key_start + key_len + 1;
        let Some(close) = rest[after_attr..].find("</p>") else {
            break;
        };
        let end = after_attr + close + "</p>".len();
        if keep(&rest[key_start..key_start + key_len]) {
            out.push_str(&rest[..at]);
            out.push_str(&rest[after_attr..end]);
        } else {
            out.push_str(&rest[..open]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Replaces every ` attr="key"` by what `with` gives for its key.
fn replace_slots(html: &str, attr: &str, with: impl Fn(&str) -> String) -> String {
    let open = format!(" {attr}=\"");
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(&open) {
        let key_start = at + open.len();
        let Some(key_len) = rest[key_start..].find('"') else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(&with(&rest[key_start..key_start + key_len]));
        rest = &rest[key_start + key_len + 1..];
    }
    out.push_str(rest);
    out
}

/// Fills the tokens in one pass, so a visitor's entry that spells a token is never filled in again.
fn fill_tokens(html: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(html.len() + 512);
    let mut rest = html;
    while let Some((at, token, value)) = values
        .iter()
        .filter_map(|(token, value)| rest.find(token).map(|at| (at, *token, value)))
        .min_by_key(|(at, ..)| *at)
    {
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + token.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_paragraphs_that_apply() {
        let html = r#"<div><p data-zayavka-if="a"><b>A</b></p><p class="x" data-zayavka-if="b">B</p></div>"#;
        assert_eq!(keep_paragraphs(html, |key| key == "b"), r#"<div><p class="x">B</p></div>"#);
    }

    #[test]
    fn an_entry_that_spells_a_token_stays_as_typed() {
        let values = [("__A__", "__B__".to_owned()), ("__B__", "x".to_owned())];
        assert_eq!(fill_tokens("__A__|__B__", &values), "__B__|x");
    }

    #[test]
    fn missing_fields_come_first_in_the_forms_order() {
        let refused = Refusal::of(&[Problem::BadPhone, Problem::Missing(Field::Name)], false);
        assert_eq!(refused.case, "invalid");
        assert_eq!(refused.fields, [("name", "name"), ("phone", "phoneShape"), ("agreed", "agreed")]);
        assert_eq!(Refusal::of(&[Problem::BadPhone], true).case, "badPhone");
        assert_eq!(Refusal::of(&[Problem::TooLong(Field::Comment, 2000)], true).case, "failed");
    }
}

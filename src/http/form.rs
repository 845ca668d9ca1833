//! `POST /leads`: the same form without JavaScript (or before the script arrived). Same rules as
//! the JSON insert; success is a 303 to the redirect target, a refusal is a small Ukrainian page
//! that says what was wrong and gives the form back with the visitor's entries, so nothing typed
//! is lost.

use askama::Template;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::{Extension, Router};
use bytes::Bytes;
use serde::Deserialize;

use super::client::ClientInfo;
use super::submit;
use crate::app::AppState;
use crate::lead::LeadInput;

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
}

impl LeadForm {
    fn has_agreed(&self) -> bool {
        self.agreed.as_deref() == Some("on")
    }
}

/// The styles of the refusal page; the CSP allows them by hash (see `security::content_policy`).
pub const ERROR_PAGE_CSS: &str = "body{margin:0;font:1rem/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;color:#1b2a3a;background:#f4f7fa}main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.5rem;color:#0b4f7c}.problems{background:#fdecec;border-left:4px solid #b42318;padding:.5rem 1rem;margin-bottom:1rem}.problems p{margin:.25rem 0;font-weight:600}form{display:grid;gap:.5rem;background:#fff;padding:1rem;border-radius:.75rem}input[type=text],input[type=tel],textarea{font:inherit;padding:.75rem;border:1px solid #8a99a8;border-radius:.5rem}fieldset{border:1px solid #c5d0da;border-radius:.5rem}fieldset label{margin-right:1.5rem}.agree{display:block;margin:.5rem 0}button{font:inherit;font-weight:600;color:#fff;background:#0b6aa2;border:0;border-radius:.5rem;padding:.9rem 1rem;min-height:3rem}a{color:#0b5a8c}";

#[derive(Template)]
#[template(path = "form_error.html")]
struct RefusalPage<'a> {
    css: &'static str,
    brand: &'a str,
    problems: Vec<String>,
    name: &'a str,
    phone: &'a str,
    confirmation: &'a str,
    comment: &'a str,
    agreed: bool,
}

async fn submit(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let form = match read_form(&headers, body) {
        Ok(form) => form,
        Err((status, problem)) => {
            submit::invalid(&state);
            return refusal(&state, status, vec![problem.to_owned()], &LeadForm::default());
        }
    };
    if let Err(limited) = submit::check_rate(&state, &client, 1) {
        let problem = "Забагато спроб поспіль. Зачекайте, будь ласка, хвилину і надішліть ще раз.";
        let mut response = refusal(&state, StatusCode::TOO_MANY_REQUESTS, vec![problem.to_owned()], &form);
        response.headers_mut().extend(limited.headers());
        return response;
    }
    let input = LeadInput {
        name: Some(form.name.clone()),
        phone: Some(form.phone.clone()),
        confirmation: Some(form.confirmation.clone()),
        comment: Some(form.comment.clone()),
    };
    let mut problems: Vec<String> = match input.validate() {
        Ok(lead) if form.has_agreed() => {
            // Looking automated (the honeypot filled, say) holds the lead for review: a person
            // whose password manager filled the hidden field is still called. The answer is the
            // same either way.
            let mut leads = vec![lead];
            let sender = submit::sender(&state, &headers, !form.website.is_empty());
            submit::weigh(&state, &client, &sender, &mut leads);
            return match submit::store(&state, leads, None).await {
                Ok(_) => Redirect::to(&state.settings.redirect_url).into_response(),
                Err(_) => {
                    let problem =
                        "Сталася помилка: заявку не збережено. Спробуйте, будь ласка, ще раз за хвилину.";
                    refusal(&state, StatusCode::SERVICE_UNAVAILABLE, vec![problem.to_owned()], &form)
                }
            };
        }
        Ok(_) => Vec::new(),
        Err(problems) => problems.iter().map(|p| p.message_uk()).collect(),
    };
    if !form.has_agreed() {
        problems.push("Потрібна ваша згода з умовами публічної оферти.".to_owned());
    }
    submit::invalid(&state);
    tracing::info!(problems = problems.len(), "lead refused by validation (form)");
    refusal(&state, StatusCode::UNPROCESSABLE_ENTITY, problems, &form)
}

/// The form's fields, or why the body cannot be read. Text that is not UTF-8 is refused rather
/// than stored with its bytes replaced by `�`, which is what URL-decoding alone would do.
fn read_form(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<LeadForm, (StatusCode, &'static str)> {
    let media = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = media.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return Err((StatusCode::UNSUPPORTED_MEDIA_TYPE, "Форму надіслано в незнайомому форматі."));
    }
    let body = body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => {
            (StatusCode::PAYLOAD_TOO_LARGE, "Заявка завелика. Скоротіть, будь ласка, коментар.")
        }
        _ => (StatusCode::BAD_REQUEST, "Не вдалося прочитати заявку. Спробуйте, будь ласка, ще раз."),
    })?;
    let utf8 = body
        .split(|&byte| byte == b'&' || byte == b'=')
        .all(|part| percent_encoding::percent_decode(part).decode_utf8().is_ok());
    if !utf8 {
        return Err((
            StatusCode::BAD_REQUEST,
            "Текст заявки надіслано не в кодуванні UTF-8, тож його не вдалося прочитати.",
        ));
    }
    serde_urlencoded::from_bytes(&body)
        .map_err(|_| (StatusCode::BAD_REQUEST, "Не вдалося прочитати заявку. Спробуйте, будь ласка, ще раз."))
}

fn refusal(state: &AppState, status: StatusCode, problems: Vec<String>, form: &LeadForm) -> Response {
    let page = RefusalPage {
        css: ERROR_PAGE_CSS,
        brand: &state.settings.brand,
        problems,
        name: &form.name,
        phone: &form.phone,
        confirmation: &form.confirmation,
        comment: &form.comment,
        agreed: form.has_agreed(),
    };
    match page.render() {
        Ok(html) => (status, [(header::CACHE_CONTROL, "no-store")], Html(html)).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering the refusal page");
            super::pages::error_page(state)
        }
    }
}

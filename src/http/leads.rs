//! The leads in the inbox's API (`docs/admin-api.md`): the list (the call queue, filters, search,
//! pages), one lead with its calls and repeats, a call recorded, a held lead released, and a
//! person's leads erased.

use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::idempotency::idempotency_key;
use super::inbox_api::{AdminOnly, LeadDetail, SignedIn, actor, detail, lead_answer, read_json, time};
use crate::application::leads::{self, Call, CallRefusal};
use crate::application::reading::{self, Filter, PageAsked, PageRefusal};
use crate::http::AppState;
use crate::inbox::LeadView;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/leads", get(list_leads))
        .route("/admin/api/leads/{id}", get(lead))
        .route("/admin/api/leads/{id}/attempts", post(add_attempt))
        .route("/admin/api/leads/{id}/release", post(release))
        .route("/admin/api/erase", post(erase))
}

/// A page of the lead list, or the calls to make now.
#[derive(Serialize, TS)]
pub struct LeadPage {
    /// The server's clock (RFC 3339, UTC).
    pub now: String,
    pub leads: Vec<LeadView>,
    /// The id to ask the next page before; `null`: no more.
    pub next_before_id: Option<i64>,
}

/// How many leads an erasure removed.
#[derive(Serialize, TS)]
pub struct Erased {
    pub erased: usize,
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    filter: Option<String>,
    before_id: Option<i64>,
    limit: Option<u32>,
}

async fn list_leads(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<LeadPage>, AdminError> {
    let Query(query) = query.map_err(|_| AdminError::BadRequest("Некоректні параметри пошуку."))?;
    let filter = Filter::from_name(query.filter.as_deref().unwrap_or("all"))
        .ok_or(AdminError::BadRequest("Невідомий фільтр: due, all, open, overdue, mine, free або held."))?;
    let asked =
        PageAsked { filter, search: &query.q, before_id: query.before_id, limit: query.limit.unwrap_or(50) };
    let now = state.clock.now();
    let actor = actor(&session, &client);
    let page = reading::list(state.services(), asked, session.operator_id, &actor, now).await.map_err(
        |refusal| match refusal {
            PageRefusal::DueIsOneList => {
                AdminError::BadRequest("Черга дзвінків не поєднується з пошуком і сторінками.")
            }
            PageRefusal::SearchTooLong => {
                const _: () =
                    assert!(crate::lead::MAX_NAME_CHARS == 100, "the sentence below names the limit");
                AdminError::BadRequest("Пошук задовгий: не більше 100 символів.")
            }
            PageRefusal::Store(e) => AdminError::Database(e),
        },
    )?;
    Ok(Json(LeadPage { now: time(now), leads: page.leads, next_before_id: page.next_before_id }))
}

async fn lead(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<LeadDetail>, AdminError> {
    let now = state.clock.now();
    let opened = reading::open(state.services(), id, &actor(&session, &client), now).await?;
    Ok(Json(detail(opened.ok_or(AdminError::LeadNotFound)?, now)))
}

#[derive(Deserialize)]
struct NewAttempt {
    /// Without one, a call that sets `call_back_at` is a `call_back`.
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default)]
    note: String,
    /// "Передзвонити о …": when the person asked to be called (RFC 3339).
    #[serde(default)]
    call_back_at: Option<String>,
}

async fn add_attempt(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
    request: Request,
) -> Result<Response, AdminError> {
    let request_key = idempotency_key(request.headers())
        .map_err(|_| AdminError::BadRequest("Idempotency-Key: від 1 до 255 видимих символів ASCII."))?;
    let NewAttempt { outcome, note, call_back_at } = read_json(request).await?;
    let call_back_at = match call_back_at.as_deref().map(str::trim).filter(|at| !at.is_empty()) {
        None => None,
        Some(text) => Some(text.parse::<Timestamp>().map_err(|_| {
            AdminError::BadRequest("Час передзвону не розпізнано: потрібні дата й час (RFC 3339).")
        })?),
    };
    let call = Call { outcome, note, call_back_at, request_key };
    let actor = actor(&session, &client);
    let recorded = leads::record_call(state.services(), id, call, &actor, state.clock.now());
    let recorded = recorded.await.map_err(|refusal| match refusal {
        CallRefusal::CallBackTooFar => {
            const _: () = assert!(
                leads::CALL_BACK_WITHIN.as_secs() == 90 * 24 * 3600,
                "the sentence below names the limit"
            );
            AdminError::BadRequest("Передзвонити можна не пізніше ніж за 90 днів.")
        }
        CallRefusal::CallBackTooEarly => {
            AdminError::BadRequest("Час передзвону раніший за 1970 рік: перевірте дату.")
        }
        CallRefusal::NoOutcome => AdminError::BadRequest("Оберіть результат дзвінка."),
        CallRefusal::UnknownOutcome => {
            AdminError::BadRequest("Такого результату дзвінка немає: оновіть сторінку й оберіть зі списку.")
        }
        CallRefusal::CallBackOnClosed => AdminError::BadRequest(
            "Час передзвону вказують для заявки, що лишається відкритою: «Не відповіли» або «Просить передзвонити».",
        ),
        CallRefusal::CallBackWithoutTime => AdminError::BadRequest("Вкажіть, о котрій передзвонити."),
        CallRefusal::NoteTooLong => {
            const _: () = assert!(leads::MAX_NOTE_CHARS == 1000, "the sentence below names the limit");
            AdminError::BadRequest("Нотатка задовга: не більше 1000 символів.")
        }
        CallRefusal::KeyTaken => AdminError::Unprocessable(
            "Цей Idempotency-Key уже надіслано з іншим дзвінком: для нового дзвінка потрібен новий ключ.",
        ),
        CallRefusal::NoSuchLead => AdminError::LeadNotFound,
        CallRefusal::Held => AdminError::LeadHeld,
        CallRefusal::Repeat => {
            AdminError::Conflict("Це повторна заявка: дзвінки записуйте в першій заявці цієї людини.")
        }
        CallRefusal::Store(e) => AdminError::Database(e),
    })?;
    let outcome = recorded.outcome.as_str();
    if recorded.before {
        tracing::info!(id, outcome, operator = session.operator_id, "inbox: call sent again, logged before");
    } else {
        tracing::info!(id, outcome, operator = session.operator_id, "inbox: call logged");
    }
    Ok((StatusCode::CREATED, Json(lead_answer(&state, id).await?)).into_response())
}

/// Moves a held lead to the call list; its notifications then go out, once.
async fn release(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Response, AdminError> {
    if !leads::release(state.services(), id, &actor(&session, &client)).await? {
        // A colleague may have released it a moment ago.
        return Err(match state.store.lead(id).await? {
            Some(_) => AdminError::Conflict("Цю заявку вже передано в роботу."),
            None => AdminError::LeadNotFound,
        });
    }
    tracing::info!(id, operator = session.operator_id, "inbox: held lead released");
    Ok(Json(lead_answer(&state, id).await?).into_response())
}

#[derive(Deserialize)]
struct Erase {
    phone: String,
}

async fn erase(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Json<Erased>, AdminError> {
    let Erase { phone } = read_json(request).await?;
    let erased =
        leads::erase(state.services(), &phone, &actor(&session, &client)).await.map_err(|refusal| {
            match refusal {
                leads::EraseRefusal::NotAPhone => AdminError::BadRequest("Це не схоже на номер телефону."),
                leads::EraseRefusal::Store(e) => AdminError::Database(e),
            }
        })?;
    tracing::info!(erased, operator = session.operator_id, "inbox: a person's leads erased");
    Ok(Json(Erased { erased }))
}

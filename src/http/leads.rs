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
use super::inbox_api::{AdminOnly, SignedIn, actor, audit_entry, read_json, time};
use crate::application::leads::{self, Call, CallRefusal};
use crate::http::AppState;
use crate::inbox::{LeadRecord, LeadView, PROMISE, Search};
use crate::store::{Attempt, Holder, LeadQuery, Session};
use crate::team::Action;

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
    let now = state.clock.now();
    let filter = query.filter.as_deref().unwrap_or("all");
    let limit = query.limit.unwrap_or(50).clamp(1, 200);
    let (leads, next_before_id, search) = if filter == "due" {
        // The calls to make now, in their order: one list, not pages of a newest-first one.
        if !query.q.trim().is_empty() || query.before_id.is_some() {
            return Err(AdminError::BadRequest("Черга дзвінків не поєднується з пошуком і сторінками."));
        }
        (state.store.due_leads(now, limit).await?, None, "")
    } else {
        list_page(&state, &session, &query, filter, now, limit).await?
    };
    // Reading the list is reading leads: the trail says which were shown (ids, never the search's
    // text, which may be a name or a phone), so paging through it is no quieter than an export.
    if !leads.is_empty() {
        let ids: Vec<String> = leads.iter().map(|lead| lead.id.to_string()).collect();
        let detail = format!("{filter}{search}: {}", ids.join(" "));
        state.store.audit(audit_entry(&session, &client, Action::ListedLeads, None, Some(detail))).await?;
    }
    let calendar = state.store.calendar(state.settings.settings_calendar(), now).await?;
    let leads: Vec<LeadView> = leads.into_iter().map(|lead| LeadView::new(lead, now, &calendar)).collect();
    Ok(Json(LeadPage { now: time(now), leads, next_before_id }))
}

/// A page of the newest-first list under `filter`, the id to ask the next page before, and how
/// the search read the text (for the audit trail).
async fn list_page(
    state: &AppState,
    session: &Session,
    query: &ListQuery,
    filter: &str,
    now: Timestamp,
    limit: u32,
) -> Result<(Vec<LeadRecord>, Option<i64>, &'static str), AdminError> {
    let (open_only, created_before, held, holder) = match filter {
        "all" => (false, None, false, Holder::Anyone),
        "open" => (true, None, false, Holder::Anyone),
        "overdue" => (true, Some(now - PROMISE), false, Holder::Anyone),
        "mine" => (true, None, false, Holder::Operator { id: session.operator_id, now }),
        "free" => (true, None, false, Holder::Nobody { now }),
        "held" => (false, None, true, Holder::Anyone),
        _ => {
            return Err(AdminError::BadRequest(
                "Невідомий фільтр: due, all, open, overdue, mine, free або held.",
            ));
        }
    };
    // Longer than any name could be: refused before it becomes a search term per three letters.
    if query.q.chars().count() > crate::lead::MAX_NAME_CHARS {
        const _: () = assert!(crate::lead::MAX_NAME_CHARS == 100, "the sentence below names the limit");
        return Err(AdminError::BadRequest("Пошук задовгий: не більше 100 символів."));
    }
    let (name_pattern, phone) = Search::parse(&query.q).patterns();
    let search = match (&name_pattern, &phone) {
        (Some(_), _) => ", search by name",
        (_, Some(_)) => ", search by phone",
        _ => "",
    };
    let leads = state
        .store
        .find_leads(LeadQuery {
            name_pattern,
            phone,
            open_only,
            created_before,
            before_id: query.before_id,
            limit: limit + 1,
            held,
            holder,
        })
        .await?;
    let (leads, next_before_id) = one_page(leads, limit, |lead| lead.id);
    Ok((leads, next_before_id, search))
}

/// A page of a newest-first list read with `limit + 1` rows: the first `limit`, and the id to ask
/// the next page before (`None` when nothing is left).
pub fn one_page<T>(mut rows: Vec<T>, limit: u32, id: impl Fn(&T) -> i64) -> (Vec<T>, Option<i64>) {
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next_before_id = if more { rows.last().map(id) } else { None };
    (rows, next_before_id)
}

pub async fn lead_answer(state: &AppState, id: i64) -> Result<LeadDetail, AdminError> {
    let lead = state.store.lead(id).await?.ok_or(AdminError::LeadNotFound)?;
    let attempts = state.store.attempts(id).await?;
    let repeats = state.store.repeats(id).await?;
    let now = state.clock.now();
    let calendar = state.store.calendar(state.settings.settings_calendar(), now).await?;
    Ok(LeadDetail { now: time(now), lead: LeadView::new(lead, now, &calendar), attempts, repeats })
}

async fn lead(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<LeadDetail>, AdminError> {
    let answer = lead_answer(&state, id).await?;
    state.store.audit(audit_entry(&session, &client, Action::OpenedLead, Some(id), None)).await?;
    Ok(Json(answer))
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
    let NewAttempt { outcome, note, call_back_at } = read_json(request).await?;
    let call_back_at = match call_back_at.as_deref().map(str::trim).filter(|at| !at.is_empty()) {
        None => None,
        Some(text) => Some(text.parse::<Timestamp>().map_err(|_| {
            AdminError::BadRequest("Час передзвону не розпізнано: потрібні дата й час (RFC 3339).")
        })?),
    };
    let call = Call { outcome, note, call_back_at };
    let actor = actor(&session, &client);
    let recorded = leads::record_call(state.services(), id, call, &actor, state.clock.now());
    let outcome = recorded.await.map_err(|refusal| match refusal {
        CallRefusal::CallBackTooFar => {
            const _: () = assert!(leads::CALL_BACK_WITHIN.as_secs() == 90 * 24 * 3600, "the sentence below names the limit");
            AdminError::BadRequest("Передзвонити можна не пізніше ніж за 90 днів.")
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
        CallRefusal::NoSuchLead => AdminError::LeadNotFound,
        CallRefusal::Held => AdminError::LeadHeld,
        CallRefusal::Repeat => {
            AdminError::Conflict("Це повторна заявка: дзвінки записуйте в першій заявці цієї людини.")
        }
        CallRefusal::Store(e) => AdminError::Database(e),
    })?;
    tracing::info!(id, outcome = outcome.as_str(), operator = session.operator_id, "inbox: call logged");
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

//! Who calls whom, in the inbox's API (`docs/admin-api.md`): an operator takes a lead before
//! calling and may give it back, an admin hands a lead to someone, new leads may be handed out in
//! turn (`ZAYAVKA_ASSIGN`), and the figures per source and per operator.

use std::collections::BTreeMap;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use jiff::Timestamp;
use serde::Deserialize;
use serde_json::json;

use super::admin::{STATS_DAYS, lead_answer};
use super::client::ClientInfo;
use super::inbox_api::{AdminError, AdminOnly, SignedIn, audit_entry, read_json};
use crate::http::AppState;
use crate::inbox::{PROMISE, TakeRefusal, claim_until, source_of};
use crate::store::CountsAt;
use crate::team::{Action, Role, account_detail};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/leads/{id}/take", post(take))
        .route("/admin/api/leads/{id}/give-back", post(give_back))
        .route("/admin/api/leads/{id}/assign", post(assign))
        .route("/admin/api/stats/breakdown", get(breakdown))
}

/// "Я телефоную": the lead is this operator's for `ZAYAVKA_CLAIM_MINUTES`, or until their call.
async fn take(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let now = Timestamp::now();
    let until = claim_until(now, state.settings.claim_minutes);
    if !state.store.take(id, session.operator_id, until, now).await? {
        let lead = state.store.lead(id).await?.ok_or_else(AdminError::lead_not_found)?;
        return Err(match lead.take_refusal(&session.email, now) {
            Some(TakeRefusal::Held) => {
                AdminError::new(StatusCode::CONFLICT, "Ця заявка на перевірці: спершу передайте її в роботу.")
            }
            Some(TakeRefusal::Closed) => AdminError::new(StatusCode::CONFLICT, "Ця заявка вже закрита."),
            // Taken by a colleague a moment ago (or so): the lead's page shows who.
            Some(TakeRefusal::Taken) | None => {
                AdminError::new(StatusCode::CONFLICT, "Цю заявку вже взяв інший оператор.")
            }
        });
    }
    tracing::info!(id, operator = session.operator_id, "inbox: lead taken");
    state.store.audit(audit_entry(&session, &client, Action::TookLead, Some(id), None)).await?;
    Ok(Json(lead_answer(&state, id).await?))
}

/// The operator puts a lead they have back in the pool.
async fn give_back(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<serde_json::Value>, AdminError> {
    if !state.store.give_back(id, session.operator_id, Timestamp::now()).await? {
        state.store.lead(id).await?.ok_or_else(AdminError::lead_not_found)?;
        return Err(AdminError::new(StatusCode::CONFLICT, "Ця заявка не у вас."));
    }
    tracing::info!(id, operator = session.operator_id, "inbox: lead given back");
    state.store.audit(audit_entry(&session, &client, Action::GaveBack, Some(id), None)).await?;
    Ok(Json(lead_answer(&state, id).await?))
}

#[derive(Deserialize)]
struct Assignment {
    /// The account to hand the lead to; `null` puts it back in the pool.
    email: Option<String>,
}

/// An admin hands a lead to an operator (with no end), or puts it back in the pool.
async fn assign(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(id): Path<i64>,
    request: Request,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Assignment { email } = read_json(request).await?;
    let account = match email {
        Some(email) => Some(
            state
                .store
                .operator(crate::auth::normalise_email(&email))
                .await?
                .ok_or_else(|| AdminError::bad_request("Такого облікового запису немає."))?,
        ),
        None => None,
    };
    let operator_id = account.as_ref().map(|account| account.id);
    if !state.store.hand_to(id, operator_id).await? {
        return Err(AdminError::lead_not_found());
    }
    tracing::info!(id, to = ?operator_id, admin = session.operator_id, "inbox: lead handed over");
    let detail = Some(account.map_or_else(|| "pool".to_owned(), |a| account_detail(&a.email, a.role)));
    state.store.audit(audit_entry(&session, &client, Action::HandedOver, Some(id), detail)).await?;
    Ok(Json(lead_answer(&state, id).await?))
}

/// The figures beside the inbox's totals, over the same 30 days: per source, leads and how many
/// were reached within 48 hours; per operator, calls made and leads reached within 48 hours (an
/// admin sees every account, an operator their own).
async fn breakdown(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
) -> Result<Json<serde_json::Value>, AdminError> {
    let now = Timestamp::now();
    let zone = crate::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(STATS_DAYS - 1);
    let window_start = first_day.to_zoned(zone).map_err(|e| {
        tracing::error!(error = %e, "inbox: the stats window");
        AdminError::new(StatusCode::INTERNAL_SERVER_ERROR, "Не вдалося порахувати.")
    })?;
    let at = CountsAt { overdue_before: now - PROMISE, window_start: window_start.timestamp() };

    let mut sources: BTreeMap<Option<String>, (i64, i64)> = BTreeMap::new();
    for row in state.store.source_counts(at).await? {
        let entry = sources.entry(source_of(row.utm_source.as_deref(), row.referrer.as_deref())).or_default();
        entry.0 += row.leads;
        entry.1 += row.reached;
    }
    let mut sources: Vec<_> = sources.into_iter().collect();
    sources.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let sources: Vec<serde_json::Value> = sources
        .into_iter()
        .map(|(source, (leads, reached))| json!({ "source": source, "leads": leads, "reached": reached }))
        .collect();

    let counts = state.store.operator_counts(at.window_start).await?;
    let emails: Vec<String> = if session.role == Role::Admin {
        // Every account, those without a call too; then anyone removed who called meanwhile.
        let mut emails: Vec<String> = state.store.accounts().await?.into_iter().map(|a| a.email).collect();
        for count in &counts {
            if !emails.contains(&count.email) {
                emails.push(count.email.clone());
            }
        }
        emails
    } else {
        vec![session.email.clone()]
    };
    let operators: Vec<serde_json::Value> = emails
        .iter()
        .map(|email| {
            let count = counts.iter().find(|c| &c.email == email);
            json!({
                "email": email,
                "calls": count.map_or(0, |c| c.calls),
                "reached": count.map_or(0, |c| c.reached),
            })
        })
        .collect();
    Ok(Json(json!({ "now": format!("{now:.6}"), "sources": sources, "operators": operators })))
}

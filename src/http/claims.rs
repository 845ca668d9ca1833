//! Who calls whom, in the inbox's API (`docs/admin-api.md`): an operator takes a lead before
//! calling and may give it back, and an admin hands a lead to someone (`application::claims`).

use axum::extract::{Path, Request, State};
use axum::routing::post;
use axum::{Extension, Json, Router};
use serde::Deserialize;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, LeadDetail, SignedIn, actor, lead_answer, read_json};
use crate::application::claims::{self, ClaimRefusal};
use crate::http::AppState;
use crate::inbox::TakeRefusal;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/leads/{id}/take", post(take))
        .route("/admin/api/leads/{id}/give-back", post(give_back))
        .route("/admin/api/leads/{id}/assign", post(assign))
}

/// "Я телефоную": the lead is this operator's for `ZAYAVKA_CLAIM_MINUTES`, or until their call.
async fn take(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<LeadDetail>, AdminError> {
    let actor = actor(&session, &client);
    let taken = claims::take(state.services(), id, session.operator_id, &actor, state.clock.now());
    taken.await.map_err(refused)?;
    tracing::info!(id, operator = session.operator_id, "inbox: lead taken");
    Ok(Json(lead_answer(&state, id).await?))
}

/// The operator puts a lead they have back in the pool.
async fn give_back(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<LeadDetail>, AdminError> {
    let actor = actor(&session, &client);
    let given = claims::give_back(state.services(), id, session.operator_id, &actor, state.clock.now());
    given.await.map_err(refused)?;
    tracing::info!(id, operator = session.operator_id, "inbox: lead given back");
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
) -> Result<Json<LeadDetail>, AdminError> {
    let Assignment { email } = read_json(request).await?;
    let actor = actor(&session, &client);
    let handed = claims::hand_to(state.services(), id, email.as_deref(), &actor);
    let operator_id = handed.await.map_err(refused)?;
    tracing::info!(id, to = ?operator_id, admin = session.operator_id, "inbox: lead handed over");
    Ok(Json(lead_answer(&state, id).await?))
}

/// The inbox's answer to a claim refused.
fn refused(refusal: ClaimRefusal) -> AdminError {
    match refusal {
        ClaimRefusal::NoSuchLead => AdminError::LeadNotFound,
        ClaimRefusal::NotTakeable(TakeRefusal::Held) => AdminError::LeadHeld,
        ClaimRefusal::NotTakeable(TakeRefusal::Closed) => AdminError::Conflict("Ця заявка вже закрита."),
        // Taken by a colleague a moment ago (or so): the lead's page shows who.
        ClaimRefusal::NotTakeable(TakeRefusal::Taken) => {
            AdminError::Conflict("Цю заявку вже взяв інший оператор.")
        }
        ClaimRefusal::NotTheirs => AdminError::Conflict("Ця заявка не у вас."),
        ClaimRefusal::NoSuchAccount => AdminError::BadRequest("Такого облікового запису немає."),
        ClaimRefusal::Repeat => {
            AdminError::Conflict("Це повторна заявка: передайте першу заявку цієї людини.")
        }
        ClaimRefusal::Store(e) => AdminError::Database(e),
    }
}

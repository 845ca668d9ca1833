//! The team in the inbox's API (`docs/admin-api.md`): admins manage the accounts and read the
//! audit trail. Every change of an account is itself in the trail.

use axum::extract::{Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::admin::{new_account, one_page};
use super::client::ClientInfo;
use super::inbox_api::{AdminError, AdminOnly, audit_entry, read_json};
use crate::auth;
use crate::http::AppState;
use crate::team::{AccountChange, Action, Role, account_detail};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/operators", get(accounts).post(add))
        .route("/admin/api/operators/role", post(set_role))
        .route("/admin/api/operators/remove", post(remove))
        .route("/admin/api/audit", get(audit))
}

async fn accounts(
    State(state): State<AppState>,
    AdminOnly(_): AdminOnly,
) -> Result<Json<serde_json::Value>, AdminError> {
    Ok(Json(json!({ "operators": state.store.accounts().await? })))
}

/// A role as the API names it.
fn role(name: &str) -> Result<Role, AdminError> {
    Role::from_name(name).ok_or_else(|| AdminError::bad_request("Роль: admin або operator."))
}

#[derive(Deserialize)]
struct NewAccount {
    email: String,
    password: String,
    role: String,
}

async fn add(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Response, AdminError> {
    let NewAccount { email, password, role: role_name } = read_json(request).await?;
    let role = role(&role_name)?;
    let (email, hash) = new_account(&email, password).await?;
    if !state.store.add_operator(email.clone(), hash, Some(role)).await? {
        return Err(AdminError::new(StatusCode::CONFLICT, "Обліковий запис із цією адресою вже є."));
    }
    let detail = Some(account_detail(&email, role));
    state.store.audit(audit_entry(&session, &client, Action::AddedOperator, None, detail)).await?;
    Ok((StatusCode::CREATED, Json(json!({ "email": email, "role": role }))).into_response())
}

#[derive(Deserialize)]
struct RoleChange {
    email: String,
    role: String,
}

async fn set_role(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Json<serde_json::Value>, AdminError> {
    let RoleChange { email, role: role_name } = read_json(request).await?;
    let (email, role) = (auth::normalise_email(&email), role(&role_name)?);
    answer(state.store.set_role(email.clone(), role).await?)?;
    let detail = Some(account_detail(&email, role));
    state.store.audit(audit_entry(&session, &client, Action::ChangedRole, None, detail)).await?;
    Ok(Json(json!({ "email": email, "role": role })))
}

#[derive(Deserialize)]
struct Removal {
    email: String,
}

async fn remove(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Response, AdminError> {
    let Removal { email } = read_json(request).await?;
    let email = auth::normalise_email(&email);
    answer(state.store.remove_operator(email.clone()).await?)?;
    state.store.audit(audit_entry(&session, &client, Action::RemovedOperator, None, Some(email))).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn answer(change: AccountChange) -> Result<(), AdminError> {
    match change {
        AccountChange::Done => Ok(()),
        AccountChange::NoSuchOperator => {
            Err(AdminError::new(StatusCode::NOT_FOUND, "Такого облікового запису немає."))
        }
        AccountChange::LastAdmin => {
            Err(AdminError::new(StatusCode::CONFLICT, "Це останній адміністратор: спершу призначте іншого."))
        }
    }
}

#[derive(Deserialize)]
struct AuditQuery {
    before_id: Option<i64>,
    limit: Option<u32>,
}

/// The audit trail, newest first, a page at a time.
async fn audit(
    State(state): State<AppState>,
    AdminOnly(_): AdminOnly,
    query: Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Query(query) = query.map_err(|_| AdminError::bad_request("Некоректні параметри."))?;
    let limit = query.limit.unwrap_or(100).clamp(1, 500);
    let entries = state.store.audit_page(query.before_id, limit + 1).await?;
    let (entries, next_before_id) = one_page(entries, limit, |entry| entry.id);
    Ok(Json(json!({ "entries": entries, "next_before_id": next_before_id })))
}

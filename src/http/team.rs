//! The team in the inbox's API (`docs/admin-api.md`): admins manage the accounts and read the
//! audit trail. Every change of an account is itself in the trail.

use axum::extract::{Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, actor, read_json};
use crate::application::{accounts, audit_trail};
use crate::http::AppState;
use crate::store::{Account, AuditRecord};
use crate::team::{AccountChange, Role};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/operators", get(accounts).post(add))
        .route("/admin/api/operators/role", post(set_role))
        .route("/admin/api/operators/remove", post(remove))
        .route("/admin/api/audit", get(audit))
}

/// The accounts, oldest first.
#[derive(Serialize, TS)]
pub struct Accounts {
    pub operators: Vec<Account>,
}

/// An account added, or its role changed.
#[derive(Serialize, TS)]
pub struct AccountRole {
    pub email: String,
    pub role: Role,
}

/// A page of the audit trail, newest first.
#[derive(Serialize, TS)]
pub struct AuditPage {
    pub entries: Vec<AuditRecord>,
    /// The id to ask the next page before; `null`: no more.
    pub next_before_id: Option<i64>,
}

async fn accounts(
    State(state): State<AppState>,
    AdminOnly(_): AdminOnly,
) -> Result<Json<Accounts>, AdminError> {
    Ok(Json(Accounts { operators: state.store.accounts().await? }))
}

/// A role as the API names it.
fn role(name: &str) -> Result<Role, AdminError> {
    Role::from_name(name).ok_or(AdminError::BadRequest("Роль: admin або operator."))
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
    let account = accounts::new_account(&email, password).await?;
    let email = account.email.clone();
    let added = accounts::add(state.services(), account, Some(role), &actor(&session, &client)).await?;
    if added.is_none() {
        return Err(AdminError::Conflict("Обліковий запис із цією адресою вже є."));
    }
    Ok((StatusCode::CREATED, Json(AccountRole { email, role })).into_response())
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
) -> Result<Json<AccountRole>, AdminError> {
    let RoleChange { email, role: role_name } = read_json(request).await?;
    let role = role(&role_name)?;
    answer(accounts::set_role(state.services(), &email, role, &actor(&session, &client)).await?)?;
    Ok(Json(AccountRole { email: crate::auth::normalise_email(&email), role }))
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
    answer(accounts::remove(state.services(), &email, &actor(&session, &client)).await?)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn answer(change: AccountChange) -> Result<(), AdminError> {
    match change {
        AccountChange::Done => Ok(()),
        AccountChange::NoSuchOperator => Err(AdminError::NoSuchAccount),
        AccountChange::LastAdmin => {
            Err(AdminError::Conflict("Це останній адміністратор: спершу призначте іншого."))
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
) -> Result<Json<AuditPage>, AdminError> {
    let Query(query) = query.map_err(|_| AdminError::BadRequest("Некоректні параметри."))?;
    let page = audit_trail::newest_first(&state.store, query.before_id, query.limit).await?;
    Ok(Json(AuditPage { entries: page.entries, next_before_id: page.next_before_id }))
}

//! Signing in to the inbox's API (`docs/admin-api.md`): the session, sign-in with the password
//! and any second factor, the first start's setup of the first account, signing out.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{
    AnySession, OverHttps, audit_entry, read_json, same_origin, session_cookie, session_token,
};
use crate::application::accounts;
use crate::auth;
use crate::http::AppState;
use crate::store::{AuditEntry, Operator, Session};
use crate::team::{Action, Role};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/session", get(session))
        .route("/admin/api/login", post(login))
        .route("/admin/api/setup", post(setup))
        .route("/admin/api/logout", post(logout))
}

/// Whether this client may create the first operator with this token: only over a connection a
/// stranger on the network cannot read (this machine, or HTTPS), with a token that is still
/// good, while no operator exists.
pub(super) async fn setup_offered(
    state: &AppState,
    client: &ClientInfo,
    token: &str,
) -> Result<bool, AdminError> {
    if !(client.ip.is_loopback() || client.https) || token.is_empty() {
        return Ok(false);
    }
    Ok(state.store.setup_token_valid(auth::token_hash(token)).await?)
}

/// The signed-in account, as the session, sign-in and setup answer it.
#[derive(Serialize, TS)]
#[ts(rename = "Session")]
pub struct SessionAnswer {
    pub email: String,
    pub role: Role,
    /// Sent back in `X-CSRF-Token` with every change.
    pub csrf_token: String,
    pub second_factor: SecondFactorState,
}

/// Whether the account signs in with a second factor, and whether the settings require one
/// (`ZAYAVKA_REQUIRE_2FA`: an account without one may then only set it up).
#[derive(Serialize, TS)]
pub struct SecondFactorState {
    pub on: bool,
    pub required: bool,
}

fn session_answer(state: &AppState, session: &Session) -> SessionAnswer {
    SessionAnswer {
        email: session.email.clone(),
        role: session.role,
        csrf_token: session.csrf_token.clone(),
        second_factor: SecondFactorState { on: session.second_factor, required: state.settings.require_2fa },
    }
}

async fn session(State(state): State<AppState>, AnySession(session): AnySession) -> Json<SessionAnswer> {
    Json(session_answer(&state, &session))
}

#[derive(Deserialize)]
struct Login {
    email: String,
    password: String,
    /// The authenticator app's code or a recovery code, for an account with a second factor.
    #[serde(default)]
    code: String,
}

async fn login(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    OverHttps(https): OverHttps,
    request: Request,
) -> Result<Response, AdminError> {
    if !same_origin(request.headers(), https) {
        return Err(AdminError::ForeignOrigin);
    }
    // Before the body is read: a flood from one address costs a header each, not its bodies.
    state.login_limiter.check_address(client.ip).map_err(AdminError::TooManyLogins)?;
    let Login { email, password, code } = read_json(request).await?;
    let email = auth::normalise_email(&email);
    state.login_limiter.check_account(client.ip, &email).map_err(AdminError::TooManyLogins)?;
    let operator = state.store.operator(email.clone()).await?;
    let hash = operator.as_ref().map(|o| o.password_hash.clone());
    let matches = auth::check_password(hash, password).await;
    let Some(operator) = operator.filter(|_| matches) else {
        tracing::warn!("inbox: failed login");
        let typed = email.chars().take(auth::MAX_EMAIL_CHARS).collect();
        state.store.audit(failed_sign_in(typed, None, &client)).await?;
        return Err(AdminError::WrongPassword);
    };
    let mut detail = None;
    if let Some(secret) = &operator.totp_secret {
        if code.trim().is_empty() {
            // The password was right: whoever typed it has it, which the owner must be able to see.
            let detail = Some("right password, no second-factor code".to_owned());
            state.store.audit(failed_sign_in(operator.email, detail, &client)).await?;
            return Err(AdminError::CodeRequired("Введіть код із застосунку автентифікації."));
        }
        let now = state.clock.now();
        super::second_factor::refuse_codes_while_guessed(&state, &operator, &code, now).await?;
        let secret = super::second_factor::open_secret(&state, operator.id, secret)?;
        match second_factor_passes(&state, &operator, &secret, &code).await? {
            SecondFactor::App => {}
            SecondFactor::RecoveryCode { left } => {
                detail = Some(format!("with a recovery code, {left} left"))
            }
            SecondFactor::Refused => {
                tracing::warn!("inbox: failed login (second factor)");
                let detail = Some("wrong second-factor code".to_owned());
                state.store.audit(failed_sign_in(operator.email.clone(), detail, &client)).await?;
                super::second_factor::count_wrong_code(&state, &operator, now).await?;
                return Err(AdminError::CodeRequired(
                    "Код не підходить. Спробуйте наступний код із застосунку.",
                ));
            }
        }
    }
    sign_in(&state, operator, &client, https, detail).await
}

/// The audit entry of a refused sign-in: `actor` is the account, or what was typed as its e-mail.
fn failed_sign_in(actor: String, detail: Option<String>, client: &ClientInfo) -> AuditEntry {
    AuditEntry {
        actor,
        action: Action::SignInFailed,
        lead_id: None,
        detail,
        address: Some(client.ip.to_string()),
    }
}

/// How the second factor of a sign-in went.
enum SecondFactor {
    App,
    RecoveryCode { left: i64 },
    Refused,
}

/// Checks an app's code (each time step signs in once) or uses up a recovery code.
async fn second_factor_passes(
    state: &AppState,
    operator: &Operator,
    secret: &str,
    code: &str,
) -> Result<SecondFactor, AdminError> {
    use auth::second_factor;
    if second_factor::is_recovery_code(code) {
        let hash = second_factor::recovery_code_hash(code);
        if !state.store.use_recovery_code(operator.id, hash).await? {
            return Ok(SecondFactor::Refused);
        }
        let left = state.store.recovery_codes_left(operator.id).await?;
        return Ok(SecondFactor::RecoveryCode { left });
    }
    let Some(step) = second_factor::code_step(secret, code, state.clock.now()) else {
        return Ok(SecondFactor::Refused);
    };
    Ok(if state.store.use_code_step(operator.id, step).await? {
        SecondFactor::App
    } else {
        SecondFactor::Refused
    })
}

#[derive(Deserialize)]
struct Setup {
    token: String,
    email: String,
    password: String,
}

/// Creates the first operator with the first start's setup token, and signs them in.
async fn setup(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    OverHttps(https): OverHttps,
    request: Request,
) -> Result<Response, AdminError> {
    if !same_origin(request.headers(), https) {
        return Err(AdminError::ForeignOrigin);
    }
    let Setup { token, email, password } = read_json(request).await?;
    // Checked before the password is hashed: a request without a good token costs a lookup only.
    if !setup_offered(&state, &client, &token).await? {
        return Err(AdminError::NotFound);
    }
    let account = accounts::new_account(&email, password).await?;
    let first = accounts::set_up_first(state.services(), &token, account, client.ip.to_string()).await?;
    // `None`: used a moment ago, or expired meanwhile.
    let operator = first.ok_or(AdminError::NotFound)?;
    tracing::info!(operator = operator.id, "inbox: the first operator was created with the setup link");
    sign_in(&state, operator, &client, https, None).await
}

/// Starts a session for the operator: the cookie, and the session's CSRF token in the answer.
async fn sign_in(
    state: &AppState,
    operator: Operator,
    client: &ClientInfo,
    https: bool,
    audit_detail: Option<String>,
) -> Result<Response, AdminError> {
    let (token, csrf_token) = (auth::new_token(), auth::new_token());
    let token_hash = auth::token_hash(&token);
    let expires_at = state.clock.now() + auth::SESSION_LIFETIME;
    // An account with a second factor gets here only once a code passed.
    let second_factor = operator.totp_secret.is_some();
    let created = state
        .store
        .create_session(token_hash.clone(), &operator, csrf_token.clone(), expires_at, second_factor)
        .await?;
    if !created {
        // The password or the second factor changed while this sign-in was being checked.
        tracing::warn!(operator = operator.id, "inbox: sign-in refused, the account changed meanwhile");
        return Err(AdminError::WrongPassword);
    }
    tracing::info!(operator = operator.id, "inbox: signed in");
    let cookie = session_cookie(token, auth::SESSION_LIFETIME.as_secs(), https);
    let session = Session {
        token_hash,
        operator_id: operator.id,
        email: operator.email,
        role: operator.role,
        csrf_token,
        second_factor,
        seen_due: false,
    };
    state.store.audit(audit_entry(&session, client, Action::SignedIn, None, audit_detail)).await?;
    Ok(([(header::SET_COOKIE, cookie)], Json(session_answer(state, &session))).into_response())
}

async fn logout(
    State(state): State<AppState>,
    OverHttps(https): OverHttps,
    AnySession(_): AnySession,
    headers: HeaderMap,
) -> Result<Response, AdminError> {
    if let Some(token) = session_token(&headers, https) {
        state.store.delete_session(auth::token_hash(&token)).await?;
    }
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, session_cookie(String::new(), 0, https))])
        .into_response())
}

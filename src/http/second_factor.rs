//! Setting up the second factor in the inbox's API (`docs/admin-api.md`): a new secret with its
//! QR code, then the first code confirms it and the recovery codes are shown, once. Signing in
//! with it is `admin::login`'s; a lost phone is `zayavka admin reset-2fa`'s.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::admin::{AdminError, AnySession, audit_entry, read_json};
use super::client::ClientInfo;
use crate::auth::second_factor;
use crate::http::AppState;
use crate::team::Action;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/second-factor", get(status))
        .route("/admin/api/second-factor/start", post(start))
        .route("/admin/api/second-factor/confirm", post(confirm))
}

fn already_on() -> AdminError {
    AdminError::new(StatusCode::CONFLICT, "Двоетапну перевірку вже увімкнено.")
}

async fn status(
    State(state): State<AppState>,
    AnySession(session): AnySession,
) -> Result<Json<serde_json::Value>, AdminError> {
    let left = state.store.recovery_codes_left(session.operator_id).await?;
    Ok(Json(json!({
        "on": session.second_factor,
        "required": state.settings.require_2fa,
        "recovery_codes_left": left,
    })))
}

/// A new secret for the operator's app; it counts only once a code from it is confirmed.
async fn start(
    State(state): State<AppState>,
    AnySession(session): AnySession,
) -> Result<Json<second_factor::Enrolment>, AdminError> {
    let secret = second_factor::new_secret();
    if !state.store.start_second_factor(session.operator_id, secret.clone()).await? {
        return Err(already_on());
    }
    let enrolment = second_factor::enrolment(&secret, &session.email).map_err(|e| {
        tracing::error!(error = %e, "inbox: making the second factor's QR code");
        AdminError::new(StatusCode::INTERNAL_SERVER_ERROR, "Не вдалося створити QR-код. Спробуйте ще раз.")
    })?;
    Ok(Json(enrolment))
}

#[derive(Deserialize)]
struct Confirm {
    code: String,
}

/// The first code from the app turns the second factor on and gives the recovery codes.
async fn confirm(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AnySession(session): AnySession,
    request: Request,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Confirm { code } = read_json(request).await?;
    if session.second_factor {
        return Err(already_on());
    }
    let operator = state.store.operator(session.email.clone()).await?;
    let Some(secret) = operator.and_then(|o| o.totp_pending) else {
        return Err(AdminError::new(StatusCode::CONFLICT, "Почніть налаштування спочатку."));
    };
    let Some(step) = second_factor::code_step(&secret, &code, jiff::Timestamp::now()) else {
        return Err(AdminError::bad_request(
            "Код не підходить. Перевірте, що час на телефоні правильний, і введіть новий код.",
        ));
    };
    let codes = second_factor::new_recovery_codes();
    let hashes = codes.iter().map(|code| second_factor::recovery_code_hash(code)).collect();
    let confirmed = state
        .store
        .confirm_second_factor(session.operator_id, secret, step, hashes, session.token_hash.clone())
        .await?;
    if !confirmed {
        return Err(AdminError::new(StatusCode::CONFLICT, "Почніть налаштування спочатку."));
    }
    state.store.audit(audit_entry(&session, &client, Action::SecondFactorOn, None, None)).await?;
    Ok(Json(json!({ "recovery_codes": codes })))
}

//! Setting up the second factor in the inbox's API (`docs/admin-api.md`): a new secret with its
//! QR code, then the first code confirms it and the recovery codes are shown, once. Signing in
//! with it is `admin::login`'s; a lost phone is `zayavka admin reset-2fa`'s.

use axum::extract::{Request, State};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AnySession, audit_entry, read_json};
use crate::auth::second_factor;
use crate::http::AppState;
use crate::store::{FactorConfirmed, Operator};
use crate::team::Action;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/second-factor", get(status))
        .route("/admin/api/second-factor/start", post(start))
        .route("/admin/api/second-factor/confirm", post(confirm))
}

/// The signed-in account's second factor.
#[derive(Serialize, TS)]
pub struct SecondFactorStatus {
    pub on: bool,
    /// The settings require one (`ZAYAVKA_REQUIRE_2FA`).
    pub required: bool,
    pub recovery_codes_left: i64,
}

/// The recovery codes of a second factor just turned on, shown this once.
#[derive(Serialize, TS)]
pub struct RecoveryCodes {
    pub recovery_codes: Vec<String>,
}

fn already_on() -> AdminError {
    AdminError::Conflict("Двоетапну перевірку вже увімкнено.")
}

async fn status(
    State(state): State<AppState>,
    AnySession(session): AnySession,
) -> Result<Json<SecondFactorStatus>, AdminError> {
    let recovery_codes_left = state.store.recovery_codes_left(session.operator_id).await?;
    Ok(Json(SecondFactorStatus {
        on: session.second_factor,
        required: state.settings.require_2fa,
        recovery_codes_left,
    }))
}

/// A new secret for the operator's app; it counts only once a code from it is confirmed.
async fn start(
    State(state): State<AppState>,
    AnySession(session): AnySession,
) -> Result<Json<second_factor::Enrolment>, AdminError> {
    let secret = second_factor::new_secret();
    let sealed = state.secret_key.seal(session.operator_id, &secret);
    if !state.store.start_second_factor(session.operator_id, sealed).await? {
        return Err(already_on());
    }
    let enrolment = second_factor::enrolment(&secret, &session.email).map_err(AdminError::QrCode)?;
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
) -> Result<Json<RecoveryCodes>, AdminError> {
    let Confirm { code } = read_json(request).await?;
    if session.second_factor {
        return Err(already_on());
    }
    let operator = state.store.operator(session.email.clone()).await?;
    let Some(sealed) = operator.and_then(|o| o.totp_pending) else {
        return Err(AdminError::Conflict("Почніть налаштування спочатку."));
    };
    let secret = open_secret(&state, session.operator_id, &sealed)?;
    let Some(step) = second_factor::code_step(&secret, &code, state.clock.now()) else {
        return Err(AdminError::BadRequest(
            "Код не підходить. Перевірте, що час на телефоні правильний, і введіть новий код.",
        ));
    };
    let codes = second_factor::new_recovery_codes();
    let hashes = codes.iter().map(|code| second_factor::recovery_code_hash(code)).collect();
    let confirmed = FactorConfirmed {
        operator_id: session.operator_id,
        secret: sealed,
        step,
        code_hashes: hashes,
        session_token_hash: session.token_hash.clone(),
    };
    let trail = audit_entry(&session, &client, Action::SecondFactorOn, None, None);
    if !state.store.confirm_second_factor(confirmed, trail).await? {
        return Err(AdminError::Conflict("Почніть налаштування спочатку."));
    }
    Ok(Json(RecoveryCodes { recovery_codes: codes }))
}

/// The operator's second-factor secret from what the database keeps.
pub(super) fn open_secret(state: &AppState, operator_id: i64, stored: &str) -> Result<String, AdminError> {
    state.secret_key.open(operator_id, stored).ok_or(AdminError::SecretKey { operator_id })
}

/// Refuses an app's code while the account's codes are refused after wrong ones in a row. A
/// recovery code still signs in: it cannot be guessed (10 letters), and it lets the owner in.
pub(super) async fn refuse_codes_while_guessed(
    state: &AppState,
    operator: &Operator,
    code: &str,
    now: jiff::Timestamp,
) -> Result<(), AdminError> {
    if second_factor::is_recovery_code(code) {
        return Ok(());
    }
    match state.store.codes_refused_until(operator.id, now).await? {
        Some(until) => Err(codes_refused(until, now)),
        None => Ok(()),
    }
}

/// Counts a wrong code against the account; the one that completes a run refuses its codes for a
/// while and tells the team through the notification channels.
pub(super) async fn count_wrong_code(
    state: &AppState,
    operator: &Operator,
    now: jiff::Timestamp,
) -> Result<(), AdminError> {
    let channels = state.settings.notify.channels();
    let refused = state.store.code_failed(operator.id, now, second_factor::CODE_LIMIT, channels).await?;
    let Some(until) = refused else { return Ok(()) };
    tracing::warn!(operator = operator.id, until = %until, "inbox: wrong second-factor codes in a row; the account's codes are refused");
    state.notifier.wake_notices();
    Err(codes_refused(until, now))
}

fn codes_refused(until: jiff::Timestamp, now: jiff::Timestamp) -> AdminError {
    let at = until.to_zoned(crate::notice::operators_zone()).strftime("%d.%m.%Y %H:%M");
    let wait = until.duration_since(now).unsigned_abs();
    AdminError::TryLater(
        format!(
            "Забагато неправильних кодів поспіль. Вхід із кодом із застосунку призупинено до {at} \
             (за Києвом). Увійти можна резервним кодом."
        ),
        wait,
    )
}

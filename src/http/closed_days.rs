//! The days off in the inbox's API (`docs/admin-api.md`, "Closed days"): every operator sees
//! them, admins add and remove the inbox's own; the settings' days are shown, not changed here.

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, SignedIn, actor, read_json};
use crate::application::closed_days::{self, Added, DayRefusal, Listed, MAX_NOTE_CHARS};
use crate::http::AppState;
use crate::notice::operators_date;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/closed-days", get(list).post(add))
        .route("/admin/api/closed-days/{day}", delete(remove))
}

/// `GET /admin/api/closed-days`.
#[derive(Serialize, TS)]
pub struct ClosedDays {
    /// Today in Kyiv (`YYYY-MM-DD`): the earliest day that may be added.
    pub today: String,
    /// From today on, earliest first.
    pub days: Vec<ClosedDayView>,
}

/// One closed day.
#[derive(Serialize, TS)]
#[ts(rename = "ClosedDay")]
pub struct ClosedDayView {
    /// `YYYY-MM-DD`, Kyiv.
    pub day: String,
    pub note: Option<String>,
    /// `settings` (`ZAYAVKA_CLOSED_DAYS`, read-only here) or `inbox`.
    #[ts(type = "'settings' | 'inbox'")]
    pub source: &'static str,
    /// For an inbox day: who added it and when (RFC 3339, UTC).
    pub added_by: Option<String>,
    pub added_at: Option<String>,
}

impl From<Listed> for ClosedDayView {
    fn from(listed: Listed) -> ClosedDayView {
        let (added_by, added_at) = listed.added.unzip();
        ClosedDayView {
            day: listed.day.to_string(),
            note: listed.note,
            source: listed.source.name(),
            added_by,
            added_at,
        }
    }
}

async fn list(State(state): State<AppState>, SignedIn(_): SignedIn) -> Result<Json<ClosedDays>, AdminError> {
    let now = state.clock.now();
    let days = closed_days::list(state.services(), now).await?;
    let today = operators_date(now).to_string();
    Ok(Json(ClosedDays { today, days: days.into_iter().map(ClosedDayView::from).collect() }))
}

#[derive(Deserialize)]
struct NewDay {
    day: String,
    note: Option<String>,
}

/// 201 with the day when it was added, 200 when it was closed already.
async fn add(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Response, AdminError> {
    let NewDay { day, note } = read_json(request).await?;
    let now = state.clock.now();
    let actor = actor(&session, &client);
    let (day, added) =
        closed_days::add(state.services(), &day, note.as_deref(), &actor, now).await.map_err(refused)?;
    // The day as the list now shows it (the settings' where they close it too).
    let listed = closed_days::list(state.services(), now).await?;
    let view = listed.into_iter().find(|listed| listed.day == day).map(ClosedDayView::from);
    let status = if added == Added::Added { StatusCode::CREATED } else { StatusCode::OK };
    tracing::info!(%day, operator = session.operator_id, "inbox: closed day added");
    Ok((status, Json(view)).into_response())
}

async fn remove(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(day): Path<String>,
) -> Result<StatusCode, AdminError> {
    let day =
        closed_days::remove(state.services(), &day, &actor(&session, &client)).await.map_err(refused)?;
    tracing::info!(%day, operator = session.operator_id, "inbox: closed day removed");
    Ok(StatusCode::NO_CONTENT)
}

/// A refusal in the inbox's words.
fn refused(refusal: DayRefusal) -> AdminError {
    match refusal {
        DayRefusal::NotADate => {
            AdminError::BadRequest("Вкажіть дату у форматі РРРР-ММ-ДД, наприклад 2026-12-31.")
        }
        DayRefusal::Past => {
            AdminError::BadRequest("Цей день уже минув (за київським часом): оберіть сьогодні або пізніше.")
        }
        DayRefusal::TooFar => {
            const _: () =
                assert!(crate::calendar::DAYS_AHEAD_TO_CLOSE == 366, "the sentence below says a year");
            AdminError::BadRequest("Вихідний можна додати не більш як на рік уперед.")
        }
        DayRefusal::NoteTooLong => {
            const _: () = assert!(MAX_NOTE_CHARS == 100, "the sentence below names the limit");
            AdminError::BadRequest("Примітка задовга: не більше 100 символів.")
        }
        DayRefusal::InSettings => AdminError::Conflict(
            "Цей день закрито в налаштуваннях сервера (ZAYAVKA_CLOSED_DAYS): змінити його можна лише там.",
        ),
        DayRefusal::NotListed => AdminError::NotAClosedDay,
        DayRefusal::Store(e) => AdminError::Database(e),
    }
}

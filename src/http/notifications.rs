//! The admins' screen for a failing channel (`docs/admin-api.md`): every notification not yet
//! delivered, with its last error, and "send again" or "drop" for each.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde_json::json;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, actor};
use crate::application::notifications::{self, LISTED};
use crate::http::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/notifications", get(list))
        .route("/admin/api/notifications/{id}/send-again", post(send_again))
        .route("/admin/api/notifications/{id}/drop", post(drop))
}

/// The channels with something waiting, and the waiting notifications, next to be tried first.
async fn list(
    State(state): State<AppState>,
    AdminOnly(_): AdminOnly,
) -> Result<Json<serde_json::Value>, AdminError> {
    let configured = state.settings.notify.channels();
    let channels: Vec<serde_json::Value> = state
        .store
        .outbox_queues()
        .await?
        .into_iter()
        .map(|queue| {
            json!({
                "channel": queue.channel.name(),
                "configured": configured.contains(&queue.channel),
                "waiting": queue.waiting,
                "failing": queue.failing,
                "oldest_at": queue.oldest_at,
                "last_error": queue.last_error,
            })
        })
        .collect();
    let notifications: Vec<serde_json::Value> = state
        .store
        .pending_notifications(LISTED)
        .await?
        .into_iter()
        .map(|n| {
            json!({
                "id": n.id,
                "lead_id": n.lead_id,
                "event": n.event.name(),
                "channel": n.channel.name(),
                "created_at": n.created_at,
                "attempts": n.attempts,
                "next_attempt_at": n.next_attempt_at,
                "last_error": n.last_error,
            })
        })
        .collect();
    Ok(Json(json!({ "channels": channels, "notifications": notifications })))
}

async fn send_again(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(id): Path<i64>,
) -> Result<StatusCode, AdminError> {
    if !notifications::send_again(state.services(), id, state.clock.now(), &actor(&session, &client)).await? {
        return Err(AdminError::NotificationGone);
    }
    tracing::info!(id, operator = session.operator_id, "inbox: notification to be sent again");
    Ok(StatusCode::NO_CONTENT)
}

async fn drop(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(id): Path<i64>,
) -> Result<StatusCode, AdminError> {
    if !notifications::drop(state.services(), id, state.clock.now(), &actor(&session, &client)).await? {
        return Err(AdminError::NotificationGone);
    }
    tracing::info!(id, operator = session.operator_id, "inbox: notification dropped");
    Ok(StatusCode::NO_CONTENT)
}

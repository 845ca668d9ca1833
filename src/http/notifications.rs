//! The admins' screen for a failing channel (`docs/admin-api.md`): every notification not yet
//! delivered, with its last error, and "send again" or "drop" for each.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Serialize;
use ts_rs::TS;

use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, actor};
use crate::application::notifications::{self, LISTED};
use crate::http::AppState;
use crate::store::{ChannelQueue, PendingNotification, WaitingChange};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/notifications", get(list))
        .route("/admin/api/notifications/{id}/send-again", post(send_again))
        .route("/admin/api/notifications/{id}/drop", post(drop))
}

/// The channels with something waiting, and the waiting notifications.
#[derive(Serialize, TS)]
pub struct Notifications {
    pub channels: Vec<NotificationChannel>,
    /// The next to be tried first.
    pub notifications: Vec<PendingNotification>,
}

/// A channel with notifications not delivered yet.
#[derive(Serialize, TS)]
pub struct NotificationChannel {
    #[serde(flatten)]
    pub queue: ChannelQueue,
    /// `false`: the channel is no longer set up, so what waits for it is never tried again.
    pub configured: bool,
}

/// The channels with something waiting, and the waiting notifications, next to be tried first.
async fn list(
    State(state): State<AppState>,
    AdminOnly(_): AdminOnly,
) -> Result<Json<Notifications>, AdminError> {
    let configured = state.settings.notify.channels();
    let channels = state
        .store
        .outbox_queues()
        .await?
        .into_iter()
        .map(|queue| NotificationChannel { configured: configured.contains(&queue.channel), queue })
        .collect();
    let notifications = state.store.pending_notifications(LISTED).await?;
    Ok(Json(Notifications { channels, notifications }))
}

async fn send_again(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(id): Path<i64>,
) -> Result<StatusCode, AdminError> {
    waiting_changed(
        notifications::send_again(state.services(), id, state.clock.now(), &actor(&session, &client)).await?,
    )?;
    tracing::info!(id, operator = session.operator_id, "inbox: notification to be sent again");
    Ok(StatusCode::NO_CONTENT)
}

async fn drop(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    Path(id): Path<i64>,
) -> Result<StatusCode, AdminError> {
    waiting_changed(
        notifications::drop(state.services(), id, state.clock.now(), &actor(&session, &client)).await?,
    )?;
    tracing::info!(id, operator = session.operator_id, "inbox: notification dropped");
    Ok(StatusCode::NO_CONTENT)
}

/// A notification a sender holds is left alone: sent again it would go twice, and dropped it
/// might still arrive.
fn waiting_changed(change: WaitingChange) -> Result<(), AdminError> {
    match change {
        WaitingChange::Changed(_) => Ok(()),
        WaitingChange::BeingSent => {
            Err(AdminError::Conflict("Це сповіщення саме надсилається. Спробуйте ще раз за хвилину."))
        }
        WaitingChange::NotWaiting => Err(AdminError::NotificationGone),
    }
}

//! A failing channel, mended by an admin: "send again" and dropping a notification on purpose.
//! Each is written to the audit trail.

use jiff::Timestamp;

use super::{Actor, Services};
use crate::store::{EntryOf, PendingNotification, StoreError, WaitingChange};
use crate::team::Action;

/// How many waiting notifications the admins' screen lists: enough for a channel down for a day
/// on a busy campaign; the per-channel counts say how many there are in all.
pub const LISTED: u32 = 500;

/// Notification `id` is due at once, and its channel's rest ends; what it found (nothing changes
/// while a sender is sending it, or once it is sent or dropped).
pub async fn send_again(
    services: Services<'_>,
    id: i64,
    now: Timestamp,
    actor: &Actor,
) -> Result<WaitingChange, StoreError> {
    let trail = entry(actor, Action::ResentNotification);
    let change = services.store.resend_notification(id, now, trail).await?;
    if let WaitingChange::Changed(notification) = &change {
        if let Some(notifier) = services.notifier {
            notifier.send_again(notification.channel);
        }
    }
    Ok(change)
}

/// Gives up on notification `id`: it is never sent. What it found, as `send_again`.
pub async fn drop(
    services: Services<'_>,
    id: i64,
    now: Timestamp,
    actor: &Actor,
) -> Result<WaitingChange, StoreError> {
    services.store.drop_notification(id, now, entry(actor, Action::DroppedNotification)).await
}

/// The entry of `action` on a notification: the lead by id, the channel, the notice and its last
/// error, no visitor data.
fn entry(actor: &Actor, action: Action) -> EntryOf<PendingNotification> {
    let actor = actor.clone();
    Box::new(move |notification| {
        let mut detail = format!("{} {}", notification.channel.name(), notification.event.name());
        if let Some(error) = &notification.last_error {
            detail.push_str(": ");
            detail.push_str(error);
        }
        actor.did(action, Some(notification.lead_id), Some(detail))
    })
}

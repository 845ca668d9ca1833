//! A failing channel, mended by an admin: every notification still to send, "send again", and
//! dropping one on purpose. Each change is written to the audit trail.

use jiff::Timestamp;

use crate::notify::Notifier;
use crate::store::{AuditEntry, PendingNotification, Store, StoreError};
use crate::team::Action;

/// How many waiting notifications the admins' screen lists: enough for a channel down for a day
/// on a busy campaign, and the per-channel counts say how many there are in all.
pub const LISTED: u32 = 500;

/// Notification `id` is due at once, and its channel's rest ends. `false` if it is not waiting
/// (sent or dropped meanwhile).
pub async fn send_again(
    store: &Store,
    notifier: &Notifier,
    id: i64,
    now: Timestamp,
    audit: AuditEntry,
) -> Result<bool, StoreError> {
    let Some(notification) = store.resend_notification(id, now).await? else { return Ok(false) };
    store.audit(entry(audit, Action::ResentNotification, &notification)).await?;
    notifier.send_again(notification.channel);
    Ok(true)
}

/// Gives up on notification `id`: it is never sent. `false` if it is not waiting.
pub async fn drop(store: &Store, id: i64, now: Timestamp, audit: AuditEntry) -> Result<bool, StoreError> {
    let Some(notification) = store.drop_notification(id, now).await? else { return Ok(false) };
    store.audit(entry(audit, Action::DroppedNotification, &notification)).await?;
    Ok(true)
}

/// The entry names the lead by id, and the channel, the notice and its last error: no visitor data.
fn entry(audit: AuditEntry, action: Action, notification: &PendingNotification) -> AuditEntry {
    let mut detail = format!("{} {}", notification.channel.name(), notification.event.name());
    if let Some(error) = &notification.last_error {
        detail.push_str(": ");
        detail.push_str(error);
    }
    AuditEntry { action, lead_id: Some(notification.lead_id), detail: Some(detail), ..audit }
}

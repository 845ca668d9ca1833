//! Use cases the inbox and the command line share: each is one function over the store and the
//! settings, so the two cannot drift apart (issue 30 moves the rest here). HTTP handlers and
//! `zayavka` subcommands parse, call one of these, and render the answer.
//!
//! - [`release`]: a held lead joins the call list;
//! - [`hand_out`]: round-robin, new leads handed out in turn;
//! - [`notifications`]: a failing channel's notifications sent again or dropped.

pub mod hand_out;
pub mod notifications;

use crate::config::Settings;
use crate::store::{AuditEntry, Store, StoreError};

/// Moves held lead `id` to the call list: due for a call at once, its notifications queued,
/// handed out in turn under round-robin, and `audit` (who released it, from where) written to the
/// trail. `false` if there is no held lead `id`. The server's caller also wakes its sender.
pub async fn release(
    store: &Store,
    settings: &Settings,
    id: i64,
    audit: AuditEntry,
) -> Result<bool, StoreError> {
    if !store.release(id, settings.notify.channels()).await? {
        return Ok(false);
    }
    // At once, not queued: whoever released it sees who has the lead now.
    hand_out::hand_out(store, settings, vec![id]).await;
    store.audit(AuditEntry { lead_id: Some(id), ..audit }).await?;
    Ok(true)
}

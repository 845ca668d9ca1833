//! The chores nobody asks for (ADR 0009, 0010): leads past the retention period and held leads
//! nobody released are deleted, and `Idempotency-Key`s past their window and expired sessions
//! forgotten. The server does them hourly; `zayavka leads purge` does the first at once.

use std::sync::Arc;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use super::Actor;
use crate::config::Settings;
use crate::store::{IDEMPOTENCY_WINDOW, Store, StoreError};
use crate::team::Action;

/// Who deletes leads when nobody asked: the server's hourly chore, as its audit entries name it.
const CHORE: &str = "server (hourly chore)";

/// Deletes the leads sent more than `ZAYAVKA_RETENTION_DAYS` before `now`, for `actor`; returns how
/// many. A purge that deleted some is in the audit trail: deleting leads always leaves a trace.
pub async fn purge_past_retention(
    store: &Store,
    settings: &Settings,
    now: Timestamp,
    actor: &Actor,
) -> Result<usize, StoreError> {
    let purged = store.purge_leads(now - days(settings.retention_days)).await?;
    recorded(store, actor, purged, "lead(s)", settings.retention_days).await
}

/// Deletes the held leads nobody released within `ZAYAVKA_HOLD_DAYS`; returns how many, audited
/// as `purge_past_retention`'s.
async fn purge_unreleased(
    store: &Store,
    settings: &Settings,
    now: Timestamp,
    actor: &Actor,
) -> Result<usize, StoreError> {
    let purged = store.purge_held(now - days(settings.hold_days)).await?;
    recorded(store, actor, purged, "held lead(s)", settings.hold_days).await
}

/// Writes the audit entry of a purge that deleted `purged` of `which`, older than `age_days`, then
/// removes the deleted rows from the engine's log; returns `purged`. A purge that deleted nothing is
/// not recorded.
async fn recorded(
    store: &Store,
    actor: &Actor,
    purged: usize,
    which: &str,
    age_days: u32,
) -> Result<usize, StoreError> {
    if purged > 0 {
        let detail = format!("{purged} {which} older than {age_days} days");
        store.audit(actor.did(Action::Purged, None, Some(detail))).await?;
    }
    store.scrub_log().await?;
    Ok(purged)
}

/// Starts the hourly chores, the first at once. The task ends when the store closes.
pub fn spawn(store: Store, settings: Arc<Settings>) {
    tokio::spawn(async move {
        let mut every_hour = tokio::time::interval(Duration::from_secs(3600));
        loop {
            every_hour.tick().await;
            if let Err(StoreError::Closed) = chores(&store, &settings, store.clock().now()).await {
                return;
            }
        }
    });
}

/// One round of the chores at `now`. A failing chore is logged and the others still run; only a
/// closed store stops them.
async fn chores(store: &Store, settings: &Settings, now: Timestamp) -> Result<(), StoreError> {
    let (retention_days, hold_days) = (settings.retention_days, settings.hold_days);
    let chore = Actor { name: CHORE.into(), address: None };
    match purge_past_retention(store, settings, now, &chore).await {
        Ok(0) => {}
        Ok(purged) => tracing::info!(purged, retention_days, "leads past the retention period deleted"),
        Err(StoreError::Closed) => return Err(StoreError::Closed),
        Err(e) => tracing::warn!(error = %e, "deleting leads past the retention period"),
    }
    match purge_unreleased(store, settings, now, &chore).await {
        Ok(0) => {}
        Ok(purged) => tracing::info!(purged, hold_days, "held leads nobody released deleted"),
        Err(StoreError::Closed) => return Err(StoreError::Closed),
        Err(e) => tracing::warn!(error = %e, "deleting held leads past their days"),
    }
    let forget = async {
        store.purge_idempotency_keys(now - IDEMPOTENCY_WINDOW).await?;
        store.purge_sessions(now).await
    };
    match forget.await {
        Ok(_) => Ok(()),
        Err(StoreError::Closed) => Err(StoreError::Closed),
        Err(e) => {
            tracing::warn!(error = %e, "purging old idempotency keys and sessions");
            Ok(())
        }
    }
}

fn days(days: u32) -> SignedDuration {
    SignedDuration::from_hours(24 * i64::from(days))
}

//! Round-robin (`ZAYAVKA_ASSIGN=round-robin`): new leads of the call list handed out in turn to
//! the operators at work (ADR 0016, 0020).
//!
//! A submit's leads are handed out by one task after the submit has answered, in the order they
//! were stored. Done before answering, a first lead cost one more committed write than a repeat
//! of a known phone, and the answer's time told a stranger whether that phone had applied before
//! (issue 29). A lead whose hand-out has not run yet is in the pool, as one whose hand-out failed.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use crate::config::{Assign, Settings};
use crate::store::Store;

pub struct HandOuts {
    /// `None` unless leads are handed out in turn.
    queue: Option<mpsc::UnboundedSender<Vec<i64>>>,
    /// Hand-outs queued and not yet done.
    waiting: Arc<watch::Sender<usize>>,
}

impl HandOuts {
    /// Starts the task that hands leads out, when the settings say so.
    pub fn start(store: Store, settings: Arc<Settings>) -> HandOuts {
        let waiting = Arc::new(watch::channel(0).0);
        if settings.assign != Assign::RoundRobin {
            return HandOuts { queue: None, waiting };
        }
        let (queue, mut leads) = mpsc::unbounded_channel();
        let done = waiting.clone();
        tokio::spawn(async move {
            while let Some(ids) = leads.recv().await {
                hand_out(&store, &settings, ids).await;
                done.send_modify(|waiting| *waiting -= 1);
            }
        });
        HandOuts { queue: Some(queue), waiting }
    }

    /// Queues these stored leads of the call list to be handed out.
    pub fn queue(&self, ids: Vec<i64>) {
        let Some(queue) = &self.queue else { return };
        if ids.is_empty() {
            return;
        }
        self.waiting.send_modify(|waiting| *waiting += 1);
        if queue.send(ids).is_err() {
            // The task is gone (the runtime is shutting down): the leads stay in the pool.
            self.waiting.send_modify(|waiting| *waiting -= 1);
        }
    }

    /// Returns once every hand-out queued so far is done.
    pub async fn settled(&self) {
        let _ = self.waiting.subscribe().wait_for(|waiting| *waiting == 0).await;
    }
}

/// Hands these leads out in turn now, when the settings say so. The leads are stored already: a
/// failure here leaves them in the pool, where anyone can take them.
pub async fn hand_out(store: &Store, settings: &Settings, ids: Vec<i64>) {
    if settings.assign != Assign::RoundRobin || ids.is_empty() {
        return;
    }
    match store.hand_out_in_turn(ids, settings.require_2fa).await {
        Ok(handed) => tracing::debug!(handed, "leads handed out in turn"),
        Err(e) => tracing::warn!(error = %e, "handing out leads in turn failed; they stay in the pool"),
    }
}

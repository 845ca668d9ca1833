//! The use cases: what an operator, an admin, a visitor's submit or the hourly chores do, each one
//! function that the inbox's handlers and the `zayavka` subcommands both call, so the two cannot
//! drift apart (ADR 0025). A use case works through [`Services`] (never HTTP's `AppState`), writes
//! its own audit entry for the [`Actor`] it is given (a change's in the change's own transaction,
//! ADR 0088), and answers in its own terms: the callers
//! parse the request or the command line and render the answer (Ukrainian for the inbox, English
//! on the terminal). A use case that needs the time takes it as `now`: its caller reads the
//! store's clock once, so that an answer's `now` is the instant the use case worked at (ADR 0035).
//!
//! - [`intake`]: a submit's leads weighed, stored and handed out;
//! - [`reading`]: a page of the lead list, the calls due now, one lead, each read audited;
//! - [`leads`]: a call recorded, a held lead released, a person's leads erased;
//! - [`claims`]: a lead taken, given back, handed to someone;
//! - [`hand_out`]: round-robin, new leads handed out in turn;
//! - [`accounts`]: the operators' accounts, roles, passwords and second factor, the first setup;
//! - [`audit_trail`]: the trail read a page at a time, newest first or from the start;
//! - [`housekeeping`]: retention, unreleased held leads, expired keys and sessions;
//! - [`server_settings`]: the settings the server runs with, so that a command with others says so;
//! - [`notifications`]: a failing channel's notifications sent again or dropped;
//! - [`closed_days`]: the days off admins keep in the inbox, on top of the settings';
//! - [`export`]: every lead as a file, audited before any of it leaves;
//! - [`figures`]: how the 48-hour promise is kept, overall, per operator and per source;
//! - [`totals`]: the inbox's totals over the same 30 days, and per source and per operator.

pub mod accounts;
pub mod audit_trail;
pub mod claims;
pub mod closed_days;
pub mod export;
pub mod figures;
pub mod hand_out;
pub mod housekeeping;
pub mod intake;
pub mod leads;
pub mod notifications;
pub mod reading;
pub mod server_settings;
pub mod totals;

use crate::config::Settings;
use crate::metrics::Metrics;
use crate::notify::Notifier;
use crate::store::{AuditEntry, Store};
use crate::team::Action;

/// What a use case works through. The server lends its own; a `zayavka` subcommand opens the
/// store and has no sender of its own.
#[derive(Clone, Copy)]
pub struct Services<'a> {
    pub store: &'a Store,
    pub settings: &'a Settings,
    /// This process's notification sender, woken when a use case queued notifications. `None`
    /// on the command line: the server's sender finds them at its next poll.
    pub notifier: Option<&'a Notifier>,
    pub metrics: &'a Metrics,
}

impl Services<'_> {
    /// Notifications were queued: send them now rather than at the next poll.
    fn wake_notifier(&self) {
        if let Some(notifier) = self.notifier {
            notifier.wake();
        }
    }
}

/// Who does a use case, as the audit trail names them: an operator (their e-mail) from a client
/// address, or someone at the server's command line.
#[derive(Debug, Clone)]
pub struct Actor {
    pub name: String,
    /// The client's address; `None` for the command line.
    pub address: Option<String>,
}

impl Actor {
    /// The audit entry of `action` done by this actor.
    pub fn did(&self, action: Action, lead_id: Option<i64>, detail: Option<String>) -> AuditEntry {
        AuditEntry { actor: self.name.clone(), action, lead_id, detail, address: self.address.clone() }
    }
}

//! The team's rules: who may do what (roles), and what the audit trail records. No HTTP, no
//! storage here.

use serde::Serialize;
use ts_rs::TS;

/// Round-robin hands a new lead only to an operator who used the inbox this recently: someone at
/// work now, not anyone whose week-long session has not yet expired. With nobody at work, the lead
/// waits in the pool, where every operator sees it.
pub const ON_SHIFT: jiff::SignedDuration = jiff::SignedDuration::from_mins(60);

/// A session's use is written down at most this often, so a signed-in request adds a write only
/// now and then.
pub const SEEN_EVERY: jiff::SignedDuration = jiff::SignedDuration::from_mins(5);

/// What an operator account may do. Operators work leads; admins also manage the accounts,
/// export, erase and read the audit trail. The first account is an admin, and the last admin
/// cannot be removed or made an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, TS)]
#[ts(rename_all = "snake_case")]
pub enum Role {
    Admin,
    Operator,
}

impl Role {
    pub const ALL: [Role; 2] = [Role::Admin, Role::Operator];

    pub fn name(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Operator => "operator",
        }
    }

    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl Serialize for Role {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// What happened, as the audit trail names it. An entry names the lead by id only, never a
/// visitor's name, phone or comment, and it outlives the lead's erasure. The inbox names each
/// (`AuditAction`); an entry keeps its action as a name, so one this version does not know still
/// shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, TS)]
#[ts(rename = "AuditAction", rename_all = "snake_case")]
pub enum Action {
    SignedIn,
    SignInFailed,
    OpenedLead,
    Exported,
    Erased,
    Released,
    AddedOperator,
    ChangedRole,
    RemovedOperator,
    /// An admin handed a lead to an account, or back to the pool.
    HandedOver,
    SecondFactorOn,
    SecondFactorReset,
    /// A page of the lead list was read: `detail` names the filter and the ids shown.
    ListedLeads,
    /// An operator took a lead to call ("Я телефоную").
    TookLead,
    /// An operator gave a lead back to the pool.
    GaveBack,
    /// A call was recorded: `detail` is its outcome.
    RecordedCall,
    /// An admin had a notification sent again: `detail` names its channel, kind and last error.
    ResentNotification,
    /// An admin dropped a notification on purpose, so it is never sent (`detail` as above).
    DroppedNotification,
    /// An admin closed a day (the inbox's list of days off): `detail` is the date.
    AddedClosedDay,
    /// An admin took a day off that list: `detail` is the date.
    RemovedClosedDay,
    /// An account's password was set anew (`zayavka admin passwd`): `detail` is the account.
    ChangedPassword,
    /// Leads past the retention period, or held leads nobody released, were deleted (the hourly
    /// chore, or `zayavka leads purge`): `detail` says how many and which.
    Purged,
}

impl Action {
    pub const ALL: [Action; 22] = [
        Action::SignedIn,
        Action::SignInFailed,
        Action::OpenedLead,
        Action::Exported,
        Action::Erased,
        Action::Released,
        Action::AddedOperator,
        Action::ChangedRole,
        Action::RemovedOperator,
        Action::SecondFactorOn,
        Action::SecondFactorReset,
        Action::HandedOver,
        Action::ListedLeads,
        Action::TookLead,
        Action::GaveBack,
        Action::RecordedCall,
        Action::ResentNotification,
        Action::DroppedNotification,
        Action::AddedClosedDay,
        Action::RemovedClosedDay,
        Action::ChangedPassword,
        Action::Purged,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Action::SignedIn => "signed_in",
            Action::SignInFailed => "sign_in_failed",
            Action::OpenedLead => "opened_lead",
            Action::Exported => "exported",
            Action::Erased => "erased",
            Action::Released => "released",
            Action::AddedOperator => "added_operator",
            Action::ChangedRole => "changed_role",
            Action::RemovedOperator => "removed_operator",
            Action::SecondFactorOn => "second_factor_on",
            Action::SecondFactorReset => "second_factor_reset",
            Action::HandedOver => "handed_over",
            Action::ListedLeads => "listed_leads",
            Action::TookLead => "took_lead",
            Action::GaveBack => "gave_back",
            Action::ResentNotification => "resent_notification",
            Action::DroppedNotification => "dropped_notification",
            Action::RecordedCall => "recorded_call",
            Action::AddedClosedDay => "added_closed_day",
            Action::RemovedClosedDay => "removed_closed_day",
            Action::ChangedPassword => "changed_password",
            Action::Purged => "purged",
        }
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

impl Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// How an audit entry's `detail` names an account and its role.
pub fn account_detail(email: &str, role: Role) -> String {
    format!("{email} ({})", role.name())
}

/// What a change of accounts came to: the last admin stays an admin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountChange {
    Done,
    NoSuchOperator,
    LastAdmin,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for role in Role::ALL {
            assert_eq!(Role::from_name(role.name()), Some(role));
        }
        for action in Action::ALL {
            assert_eq!(Action::from_name(action.name()), Some(action));
        }
    }
}

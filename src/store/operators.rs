//! Accounts, first-start setup and sessions.

use super::audit::printable_entry;
use super::{AuditEntry, Engine, EntryOf, Store, StoreError};
use crate::team::{AccountChange, Role};

#[derive(Debug, Clone)]
pub struct Operator {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
    pub role: Role,
    /// The confirmed second-factor secret (base32), if the operator set one up.
    pub totp_secret: Option<String>,
    /// A secret being set up, until its first code is confirmed.
    pub totp_pending: Option<String>,
}

/// What a sign-in checked of an account: a session starts only while the account still has it.
#[derive(Debug, Clone)]
pub(super) struct Credentials {
    pub operator_id: i64,
    pub password_hash: String,
    pub totp_secret: Option<String>,
}

/// An account as the admins' list shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct Account {
    pub email: String,
    pub role: Role,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Whether the account has a second factor set up.
    pub second_factor: bool,
}

/// A signed-in operator, found by the hash of the session cookie.
#[derive(Debug, Clone)]
pub struct Session {
    /// What the database keeps of the session's token.
    pub token_hash: String,
    pub operator_id: i64,
    pub email: String,
    pub role: Role,
    pub csrf_token: String,
    /// Whether the operator has a second factor set up (and so this session passed it).
    pub second_factor: bool,
    /// The session's use was last written down over `team::SEEN_EVERY` ago: this request does it.
    pub seen_due: bool,
}

/// A role as both engines keep it (a CHECK constraint admits only known names); were one ever
/// unknown, the account gets the lesser rights.
pub(super) fn role_of(name: &str) -> Role {
    Role::from_name(name).unwrap_or(Role::Operator)
}

impl Store {
    /// Adds an operator with `role` (an operator without one); the first account is an admin,
    /// whatever was asked. With the entry `trail` makes of the role given, or neither. Returns
    /// that role; `None` if the e-mail has an account already.
    pub async fn add_operator(
        &self,
        email: String,
        password_hash: String,
        role: Option<Role>,
        trail: EntryOf<Role>,
    ) -> Result<Option<Role>, StoreError> {
        dispatch!(self, add_operator(email, password_hash, role, self.clock.now(), printable_entry(trail)))
    }

    /// Every account, oldest first.
    pub async fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        dispatch!(self, accounts())
    }

    /// Gives an account `role`; never takes the admin role from the last admin. A change of role
    /// ends the account's sessions, so its rights change at once. `trail` is written with the
    /// change, or neither is (as with every change of an account here).
    pub async fn set_role(
        &self,
        email: String,
        role: Role,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        dispatch!(self, set_role(email, role, self.clock.now(), trail.printable()))
    }

    /// Removes an account with its sessions; never the last admin.
    pub async fn remove_operator(
        &self,
        email: String,
        trail: AuditEntry,
    ) -> Result<AccountChange, StoreError> {
        dispatch!(self, remove_operator(email, self.clock.now(), trail.printable()))
    }

    /// Sets an operator's password and ends their sessions; `false` if there is no such account.
    pub async fn set_password(
        &self,
        email: String,
        password_hash: String,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        dispatch!(self, set_password(email, password_hash, self.clock.now(), trail.printable()))
    }

    pub async fn operator(&self, email: String) -> Result<Option<Operator>, StoreError> {
        dispatch!(self, operator(email))
    }

    /// Keeps a first-start setup token (its hash) until `expires_at`, if no operator exists yet;
    /// `false` (and every setup token forgotten) once one does.
    pub async fn offer_setup(
        &self,
        token_hash: String,
        expires_at: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        dispatch!(self, offer_setup(token_hash, expires_at, self.clock.now()))
    }

    /// Whether this setup token would create the first operator now.
    pub async fn setup_token_valid(&self, token_hash: String) -> Result<bool, StoreError> {
        dispatch!(self, setup_token_valid(token_hash, self.clock.now()))
    }

    /// Uses up the setup token and creates the first operator, with the entry `trail` makes of it,
    /// in one transaction; `None` if the token is unknown, used or expired, or an operator exists
    /// already.
    pub async fn add_first_operator(
        &self,
        token_hash: String,
        email: String,
        password_hash: String,
        trail: EntryOf<Operator>,
    ) -> Result<Option<Operator>, StoreError> {
        dispatch!(
            self,
            add_first_operator(token_hash, email, password_hash, self.clock.now(), printable_entry(trail))
        )
    }

    /// Starts a session for the account `checked` holds, if its password and second-factor secret
    /// are still the ones the sign-in checked: a password changed or a factor reset while the
    /// check waited its turn to hash ends the sessions there were, and must stop this one too.
    /// Returns whether the session was created.
    pub async fn create_session(
        &self,
        token_hash: String,
        checked: &Operator,
        csrf_token: String,
        expires_at: jiff::Timestamp,
        second_factor_passed: bool,
    ) -> Result<bool, StoreError> {
        let credentials = Credentials {
            operator_id: checked.id,
            password_hash: checked.password_hash.clone(),
            totp_secret: checked.totp_secret.clone(),
        };
        dispatch!(
            self,
            create_session(
                token_hash,
                credentials,
                csrf_token,
                expires_at,
                second_factor_passed,
                self.clock.now()
            )
        )
    }

    /// The session with this token hash, if it has not expired and, for an account with a second
    /// factor, passed it.
    pub async fn session(&self, token_hash: String) -> Result<Option<Session>, StoreError> {
        let now = self.clock.now();
        dispatch!(self, session(token_hash, now, now - crate::team::SEEN_EVERY))
    }

    /// Writes down that the session was used now (`Session::seen_due`).
    pub async fn session_seen(&self, token_hash: String) -> Result<(), StoreError> {
        dispatch!(self, session_seen(token_hash, self.clock.now()))
    }

    pub async fn delete_session(&self, token_hash: String) -> Result<(), StoreError> {
        dispatch!(self, delete_session(token_hash))
    }

    pub async fn purge_sessions(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        dispatch!(self, purge_sessions(before))
    }
}

//! The operators' accounts (ADR 0015): added, given another role, removed, a new password, a lost
//! phone's second factor turned off, and the first account made with the first start's link.
//! Every change that can be made from the inbox is in the audit trail, whoever made it.

use super::{Actor, Services};
use crate::auth::{self, NewAccountError};
use crate::store::{Operator, StoreError};
use crate::team::{AccountChange, Action, Role, account_detail};

/// An e-mail (normalised) and a password fit for an account, the password already hashed.
pub struct NewAccount {
    pub email: String,
    password_hash: String,
}

/// Why a new account's e-mail or password was not taken.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Invalid(#[from] NewAccountError),
    #[error("hashing the password: {0:#}")]
    Hashing(anyhow::Error),
}

/// Checks a new account's e-mail and password and hashes the password (slow on purpose, so done
/// before anything is stored).
pub async fn new_account(email: &str, password: String) -> Result<NewAccount, AccountError> {
    let email = auth::normalise_email(email);
    auth::check_new_account(&email, &password)?;
    let password_hash = auth::new_password_hash(password).await.map_err(AccountError::Hashing)?;
    Ok(NewAccount { email, password_hash })
}

/// Adds the account with `role` or, without one, as an admin if it is the first account and an
/// operator otherwise. Returns its role; `None` if the e-mail has an account already.
pub async fn add(
    services: Services<'_>,
    account: NewAccount,
    role: Option<Role>,
    actor: &Actor,
) -> Result<Option<Role>, StoreError> {
    let NewAccount { email, password_hash } = account;
    // The role as stored: the first account is an admin whatever was asked.
    let trail = {
        let (actor, email) = (actor.clone(), email.clone());
        Box::new(move |role: &Role| {
            actor.did(Action::AddedOperator, None, Some(account_detail(&email, *role)))
        })
    };
    services.store.add_operator(email, password_hash, role, trail).await
}

/// Creates the first operator (an admin) with the first start's setup token, used up at once;
/// `None` if the token is unknown, used or expired, or an operator exists already. `address`: the
/// client's who used the link.
pub async fn set_up_first(
    services: Services<'_>,
    token: &str,
    account: NewAccount,
    address: String,
) -> Result<Option<Operator>, StoreError> {
    let NewAccount { email, password_hash } = account;
    let trail = Box::new(move |operator: &Operator| {
        let actor = Actor { name: operator.email.clone(), address: Some(address) };
        let detail =
            format!("{}, with the first start's link", account_detail(&operator.email, operator.role));
        actor.did(Action::AddedOperator, None, Some(detail))
    });
    services.store.add_first_operator(auth::token_hash(token), email, password_hash, trail).await
}

/// Sets the account's password; its sessions end. `false` if there is no such account.
pub async fn set_password(
    services: Services<'_>,
    account: NewAccount,
    actor: &Actor,
) -> Result<bool, StoreError> {
    let NewAccount { email, password_hash } = account;
    let trail = actor.did(Action::ChangedPassword, None, Some(email.clone()));
    services.store.set_password(email, password_hash, trail).await
}

/// Gives the account (by e-mail, normalised here) another role; its sessions end. The last admin
/// stays an admin.
pub async fn set_role(
    services: Services<'_>,
    email: &str,
    role: Role,
    actor: &Actor,
) -> Result<AccountChange, StoreError> {
    let email = auth::normalise_email(email);
    let trail = actor.did(Action::ChangedRole, None, Some(account_detail(&email, role)));
    services.store.set_role(email, role, trail).await
}

/// Removes the account and ends its sessions; the last admin cannot be removed.
pub async fn remove(services: Services<'_>, email: &str, actor: &Actor) -> Result<AccountChange, StoreError> {
    let email = auth::normalise_email(email);
    let trail = actor.did(Action::RemovedOperator, None, Some(email.clone()));
    services.store.remove_operator(email, trail).await
}

/// Turns off the account's second factor (a lost phone) and ends its sessions. `false` if there
/// is no such account.
pub async fn reset_second_factor(
    services: Services<'_>,
    email: &str,
    actor: &Actor,
) -> Result<bool, StoreError> {
    let email = auth::normalise_email(email);
    let trail = actor.did(Action::SecondFactorReset, None, Some(email.clone()));
    services.store.reset_second_factor(email, trail).await
}

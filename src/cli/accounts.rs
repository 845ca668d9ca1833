//! `zayavka admin …`: the operators' accounts and the audit trail.

use std::io::Write as _;

use anyhow::Context as _;

use super::{Account, AdminCommand, AuditFormat, command_line, services};
use crate::application::accounts::{self, NewAccount};
use crate::application::audit_trail;
use crate::config::Settings;
use crate::lead::clean::printable;
use crate::metrics::Metrics;
use crate::store::{AuditRecord, Store};
use crate::team::{AccountChange, Role};

pub async fn run(settings: &Settings, command: AdminCommand) -> anyhow::Result<()> {
    match command {
        AdminCommand::AddUser { account, role } => add_user(settings, account, role.map(Role::from)).await,
        AdminCommand::Passwd(account) => passwd(settings, account).await,
        AdminCommand::ClosedDays(command) => super::closed_days::run(settings, command).await,
        other => {
            let store = Store::open_existing(&settings.database_url).await?;
            let result = team(&store, settings, other).await;
            store.close().await;
            result
        }
    }
}

/// The account's e-mail and the password it is asked for, checked and hashed.
async fn new_account(account: &Account) -> anyhow::Result<NewAccount> {
    let password = read_password(account.password_stdin)?;
    Ok(accounts::new_account(&account.email, password).await?)
}

async fn add_user(settings: &Settings, account: Account, role: Option<Role>) -> anyhow::Result<()> {
    let account = new_account(&account).await?;
    let email = account.email.clone();
    // It may create the database: a first operator before the first start.
    let store = Store::open(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = accounts::add(services(&store, settings, &metrics), account, role, &command_line()).await;
    store.close().await;
    match result? {
        Some(role) => eprintln!("zayavka: {email} added as {}; sign in at /admin", role.name()),
        None => anyhow::bail!("{email} has an account already; use `zayavka admin passwd {email}`"),
    }
    Ok(())
}

async fn passwd(settings: &Settings, account: Account) -> anyhow::Result<()> {
    let account = new_account(&account).await?;
    let email = account.email.clone();
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = accounts::set_password(services(&store, settings, &metrics), account, &command_line()).await;
    store.close().await;
    if !result? {
        anyhow::bail!("there is no operator {email}; use `zayavka admin add-user {email}`");
    }
    eprintln!("zayavka: password of {email} changed; their sessions have ended");
    Ok(())
}

/// The commands about the team: roles, removal, the second factor, the list, the audit trail.
async fn team(store: &Store, settings: &Settings, command: AdminCommand) -> anyhow::Result<()> {
    let metrics = Metrics::default();
    let services = services(store, settings, &metrics);
    let changed = |email: &str, change: AccountChange| match change {
        AccountChange::Done => Ok(()),
        AccountChange::NoSuchOperator => Err(anyhow::anyhow!("there is no operator {email}")),
        AccountChange::LastAdmin => {
            Err(anyhow::anyhow!("{email} is the last admin; make another account an admin first"))
        }
    };
    match command {
        AdminCommand::Role { email, role } => {
            let (email, role) = (crate::auth::normalise_email(&email), Role::from(role));
            changed(&email, accounts::set_role(services, &email, role, &command_line()).await?)?;
            eprintln!("zayavka: {email} is now {}; their sessions have ended", role.name());
        }
        AdminCommand::RemoveUser { email } => {
            let email = crate::auth::normalise_email(&email);
            changed(&email, accounts::remove(services, &email, &command_line()).await?)?;
            eprintln!("zayavka: {email} removed");
        }
        AdminCommand::Reset2fa { email } => {
            let email = crate::auth::normalise_email(&email);
            if !accounts::reset_second_factor(services, &email, &command_line()).await? {
                anyhow::bail!("there is no operator {email}");
            }
            eprintln!(
                "zayavka: the second factor of {email} is off and their sessions have ended; they sign in with \
                 the password alone and set it up again"
            );
        }
        AdminCommand::Users => {
            // Written, not printed: a reader gone (`| head -1`) is an error to report, not a panic.
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for account in store.accounts().await? {
                let second_factor = if account.second_factor { "  with a second factor" } else { "" };
                writeln!(
                    out,
                    "{:<8} {}  since {}{second_factor}",
                    account.role.name(),
                    account.email,
                    account.created_at
                )?;
            }
            out.flush()?;
        }
        AdminCommand::Audit { format } => print_audit_trail(store, format).await?,
        AdminCommand::AddUser { .. } | AdminCommand::Passwd(_) | AdminCommand::ClosedDays(_) => {
            unreachable!("run() handles them")
        }
    }
    Ok(())
}

/// The whole trail, oldest first, each page printed as it is read.
async fn print_audit_trail(store: &Store, format: AuditFormat) -> anyhow::Result<()> {
    let mut trail = audit_trail::OldestFirst::new(store);
    loop {
        let page = trail.next().await?;
        if page.is_empty() {
            return Ok(());
        }
        print_audit_entries(&page, format)?;
    }
}

fn print_audit_entries(entries: &[AuditRecord], format: AuditFormat) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for entry in entries {
        match format {
            AuditFormat::Jsonl => writeln!(out, "{}", serde_json::to_string(entry)?)?,
            AuditFormat::Text => writeln!(
                out,
                "{}  {:<16} {:<28} {}{}{}",
                entry.at,
                printable(&entry.action),
                printable(&entry.actor),
                entry.lead_id.map(|id| format!("lead {id} ")).unwrap_or_default(),
                printable(entry.detail.as_deref().unwrap_or("")),
                entry.address.as_deref().map(|a| format!(" from {a}")).unwrap_or_default(),
            )?,
        }
    }
    Ok(out.flush()?)
}

/// The first line of stdin, or asked for twice on the terminal without echo.
fn read_password(from_stdin: bool) -> anyhow::Result<String> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    // Without a terminal (`systemd-run --pipe`, `docker exec` without `-t`) there is nobody to ask.
    let no_terminal = "no terminal to ask for the password on: pipe it in with --password-stdin";
    let password = rpassword::prompt_password("Password: ").context(no_terminal)?;
    if rpassword::prompt_password("Again: ").context(no_terminal)? != password {
        anyhow::bail!("the two passwords differ");
    }
    Ok(password)
}

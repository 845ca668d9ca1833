//! The `zayavka` subcommands other than `serve`: each parses its arguments, opens the store, calls
//! the same use case (`application`) the inbox calls, and says what happened in one line on stderr.
//! `main.rs` reads the settings, starts logging and runs `serve` or one of these.

mod accounts;
mod closed_days;
mod leads;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::application::{Actor, Services, server_settings};
use crate::config::{SettingArgs, Settings};
use crate::export::Format;
use crate::metrics::Metrics;
use crate::store::Store;
use crate::team::Role;

#[derive(Parser)]
#[command(
    name = "zayavka",
    version,
    about = "Self-hosted lead-capture site: serves the form, stores every lead durably."
)]
pub struct Cli {
    /// A TOML file with settings (keys as the variables below, e.g. ZAYAVKA_LISTEN or listen);
    /// the environment wins over the file
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub settings: SettingArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the site (the default)
    Serve,
    /// Work with the stored leads
    #[command(subcommand)]
    Leads(LeadsCommand),
    /// Manage the operators who sign in to the inbox at /admin
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Copy the SQLite database to FILE while the server runs (online backup)
    Backup {
        /// A new file for the copy
        file: PathBuf,
    },
    /// Write the site with the settings filled in to DIR, for a static host or CDN; the form
    /// then posts to ZAYAVKA_BACKEND_URL (a zayavka server or a hosted Supabase project) with
    /// ZAYAVKA_ANON_KEY
    BuildStatic {
        /// The folder to write (created if missing)
        dir: PathBuf,
    },
}

#[derive(Subcommand)]
pub enum LeadsCommand {
    /// Write all leads to stdout, oldest first
    Export {
        #[arg(long, value_enum, default_value = "csv")]
        format: Format,
    },
    /// Delete every lead of one person (by phone, in any format) with its calls and queued
    /// notifications: a privacy request
    Erase {
        /// The person's phone number
        #[arg(long, value_name = "NUMBER")]
        phone: String,
    },
    /// Delete the leads older than ZAYAVKA_RETENTION_DAYS now (the server also does it hourly)
    Purge,
    /// Move a lead held for review to the call list; its notifications then go out (once)
    Release {
        /// The lead's id, as the export and the inbox show it
        id: i64,
    },
    /// How the 48-hour promise was kept over the last 30 days: the waits for the first call and
    /// for a call that reached the person, and the share reached in time, overall, per operator
    /// and per source; then the leads open now and the notifications not sent yet
    Figures,
}

#[derive(Subcommand)]
pub enum AdminCommand {
    /// Create an operator account; asks for the password (twice) unless --password-stdin
    AddUser {
        #[command(flatten)]
        account: Account,
        /// What the account may do [default: admin for the first account, operator after]
        #[arg(long, value_enum)]
        role: Option<RoleArg>,
    },
    /// Set an operator's password (their sessions end); asks for it unless --password-stdin
    Passwd(Account),
    /// Give an account another role (its sessions end); the last admin stays an admin
    Role {
        /// The operator's e-mail
        email: String,
        #[arg(value_enum)]
        role: RoleArg,
    },
    /// Remove an account and end its sessions; the last admin cannot be removed
    RemoveUser {
        /// The operator's e-mail
        email: String,
    },
    /// Turn off an operator's second factor (a lost phone): their app's codes and recovery codes
    /// stop working and their sessions end; they set it up again after signing in
    #[command(name = "reset-2fa")]
    Reset2fa {
        /// The operator's e-mail
        email: String,
    },
    /// List the accounts with their roles
    Users,
    /// Write the audit trail to stdout, oldest first: who opened, exported or erased what, and
    /// when (never a visitor's name, phone or comment)
    Audit {
        #[arg(long, value_enum, default_value = "text")]
        format: AuditFormat,
    },
    /// The days the team does not work, kept with the inbox's "Вихідні дні" on top of
    /// ZAYAVKA_CLOSED_DAYS: retries, reminders and the at-risk mark skip them
    #[command(subcommand)]
    ClosedDays(ClosedDaysCommand),
}

#[derive(Subcommand)]
pub enum ClosedDaysCommand {
    /// The closed days from today on (Kyiv), the settings' and the inbox's
    List,
    /// Close a day (YYYY-MM-DD, Kyiv; today or later); one closed already is left as it is
    Add {
        /// The day, e.g. 2026-12-31
        day: String,
        /// A short note shown with it, e.g. "Новий рік"
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
    },
    /// Open a day of the inbox's list again (a day of ZAYAVKA_CLOSED_DAYS is changed there)
    Remove {
        /// The day, e.g. 2026-12-31
        day: String,
    },
}

#[derive(clap::Args)]
pub struct Account {
    /// The operator's e-mail (their login)
    pub email: String,
    /// Read the password from the first line of standard input (for scripts)
    #[arg(long)]
    pub password_stdin: bool,
}

/// `admin`: manages the accounts, exports, erases, reads the audit trail; `operator`: works leads.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum RoleArg {
    Admin,
    Operator,
}

impl From<RoleArg> for Role {
    fn from(role: RoleArg) -> Role {
        match role {
            RoleArg::Admin => Role::Admin,
            RoleArg::Operator => Role::Operator,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum AuditFormat {
    /// One line per entry, aligned for reading
    Text,
    /// One JSON object per line
    Jsonl,
}

/// Runs a subcommand other than `serve` (`main.rs` runs that one).
pub async fn run(settings: &Settings, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve => unreachable!("main.rs serves"),
        Command::Backup { file } => {
            let store = Store::open_existing(&settings.database_url).await?;
            let result = crate::application::export::backup(&store, &file, &command_line()).await;
            store.close().await;
            result?;
            eprintln!("zayavka: backup written to {}", file.display());
            Ok(())
        }
        Command::BuildStatic { dir } => {
            crate::site::build_static(settings, &dir, crate::clock::Clock::system().now())
        }
        Command::Leads(command) => leads::run(settings, command).await,
        Command::Admin(command) => accounts::run(settings, command).await,
    }
}

/// What a subcommand's use case works through: the store it opened, the settings, and no
/// notification sender (the server's finds what was queued at its next poll).
fn services<'a>(store: &'a Store, settings: &'a Settings, metrics: &'a Metrics) -> Services<'a> {
    Services { store, settings, notifier: None, metrics }
}

/// Says, before a command acts, which of the settings it decides by differ from the server's last
/// start (a shell without the service's environment file, most likely). It still runs: the
/// settings given are the ones asked for.
async fn warn_of_other_settings(store: &Store, settings: &Settings, reads: &[server_settings::Shared]) {
    match server_settings::differences(store, settings, reads).await {
        Ok(differences) if differences.is_empty() => {}
        Ok(differences) => eprintln!(
            "zayavka: warning: this command runs with other settings than the server ({}); \
             see docs/deployment.md, \"Operator commands\"",
            differences.join("; ")
        ),
        Err(e) => tracing::warn!(error = %e, "reading the server's settings"),
    }
}

/// Someone running the `zayavka` command on the server itself, named by their login.
fn command_line() -> Actor {
    let user = std::env::var("SUDO_USER").or_else(|_| std::env::var("USER")).unwrap_or_default();
    let name = if user.is_empty() { "command line".to_owned() } else { format!("command line ({user})") };
    Actor { name, address: None }
}

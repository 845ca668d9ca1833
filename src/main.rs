//! The `zayavka` command: reads the settings, starts logging, runs a subcommand.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zayavka::config::{LogFormat, SettingArgs, Settings};
use zayavka::export::{Format, export};
use zayavka::lead::clean::printable;
use zayavka::store::{AuditEntry, Store};
use zayavka::team::{AccountChange, Action, Role, account_detail};

#[derive(Parser)]
#[command(
    name = "zayavka",
    version,
    about = "Self-hosted lead-capture site: serves the form, stores every lead durably."
)]
struct Cli {
    /// A TOML file with settings (keys as the variables below, e.g. ZAYAVKA_LISTEN or listen);
    /// the environment wins over the file
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(flatten)]
    settings: SettingArgs,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
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
enum LeadsCommand {
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
}

#[derive(Subcommand)]
enum AdminCommand {
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
}

#[derive(clap::Args)]
struct Account {
    /// The operator's e-mail (their login)
    email: String,
    /// Read the password from the first line of standard input (for scripts)
    #[arg(long)]
    password_stdin: bool,
}

/// `admin`: manages the accounts, exports, erases, reads the audit trail; `operator`: works leads.
#[derive(Clone, Copy, clap::ValueEnum)]
enum RoleArg {
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
enum AuditFormat {
    /// One line per entry, aligned for reading
    Text,
    /// One JSON object per line
    Jsonl,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::resolve(cli.settings, cli.config.as_deref()) {
        Ok(settings) => settings,
        Err(e) => return fail(&e),
    };
    // tokio-postgres logs query parameters (a lead's name and phone) at debug level: whatever the
    // operator's filter says, it never logs below info.
    let filter = tracing_subscriber::EnvFilter::new(&settings.log)
        .add_directive("tokio_postgres=info".parse().expect("a valid directive"));
    // Colour only where a person reads it: escape codes in a file or journald are noise.
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match settings.log_format {
        LogFormat::Text => logs.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())).init(),
        LogFormat::Json => logs.json().flatten_event(true).init(),
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&e.into()),
    };
    let result = runtime.block_on(async {
        match cli.command.unwrap_or(Command::Serve) {
            Command::Serve => zayavka::serve::serve(settings).await,
            Command::Backup { file } => {
                let store = Store::open_existing(&settings.database_url).await?;
                let result = store.backup_to(&file).await;
                store.close().await;
                result?;
                eprintln!("zayavka: backup written to {}", file.display());
                Ok(())
            }
            Command::BuildStatic { dir } => zayavka::site::build_static(&settings, &dir),
            Command::Leads(LeadsCommand::Export { format }) => {
                if format == Format::Xlsx && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                    anyhow::bail!("a workbook is binary: send it to a file, `--format xlsx > leads.xlsx`");
                }
                let store = Store::open_existing(&settings.database_url).await?;
                let mut result = export(&store, format, std::io::stdout()).await;
                if result.is_ok() {
                    let detail = Some(format!("{format:?}").to_lowercase());
                    result =
                        store.audit(from_command_line(Action::Exported, detail)).await.map_err(Into::into);
                }
                store.close().await;
                result
            }
            Command::Leads(LeadsCommand::Erase { phone }) => {
                let Some(e164) = zayavka::lead::normalise_phone(&phone) else {
                    anyhow::bail!("'{phone}' does not look like a phone number");
                };
                let store = Store::open_existing(&settings.database_url).await?;
                let result = store.erase_phone(&e164).await;
                if let Ok(erased) = result {
                    let detail = Some(format!("{erased} lead(s)"));
                    store.audit(from_command_line(Action::Erased, detail)).await?;
                }
                store.close().await;
                eprintln!("zayavka: {} lead(s) erased", result?);
                Ok(())
            }
            Command::Leads(LeadsCommand::Purge) => {
                let days = i64::from(settings.retention_days);
                let cutoff = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * days);
                let store = Store::open_existing(&settings.database_url).await?;
                let result = store.purge_leads(cutoff).await;
                store.close().await;
                eprintln!("zayavka: {} lead(s) older than {days} days deleted", result?);
                Ok(())
            }
            Command::Leads(LeadsCommand::Release { id }) => {
                let store = Store::open_existing(&settings.database_url).await?;
                let audit = from_command_line(Action::Released, None);
                let result = zayavka::application::release(&store, &settings, id, audit).await;
                store.close().await;
                if !result? {
                    anyhow::bail!("there is no held lead {id} (the export's held field names them)");
                }
                eprintln!("zayavka: lead {id} released to the call list");
                Ok(())
            }
            Command::Admin(command) => admin(&settings, command).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

async fn admin(settings: &Settings, command: AdminCommand) -> anyhow::Result<()> {
    let (account, role, adding) = match command {
        AdminCommand::AddUser { account, role } => (account, role.map(Role::from), true),
        AdminCommand::Passwd(account) => (account, None, false),
        other => return team(settings, other).await,
    };
    let email = zayavka::auth::normalise_email(&account.email);
    let password = read_password(account.password_stdin)?;
    zayavka::auth::check_new_account(&email, &password)?;
    let hash = zayavka::auth::new_password_hash(password).await?;
    // add-user may create the database (a first operator before the first start); passwd may not.
    let store = if adding {
        Store::open(&settings.database_url).await?
    } else {
        Store::open_existing(&settings.database_url).await?
    };
    let result = if adding {
        store.add_operator(email.clone(), hash, role).await
    } else {
        store.set_password(email.clone(), hash).await
    };
    let role = match store.operator(email.clone()).await {
        Ok(Some(operator)) => operator.role,
        _ => Role::Operator,
    };
    if adding && matches!(result, Ok(true)) {
        let detail = Some(account_detail(&email, role));
        store.audit(from_command_line(Action::AddedOperator, detail)).await?;
    }
    store.close().await;
    match (result?, adding) {
        (true, true) => eprintln!("zayavka: {email} added as {}; sign in at /admin", role.name()),
        (true, false) => eprintln!("zayavka: password of {email} changed; their sessions have ended"),
        (false, true) => anyhow::bail!("{email} has an account already; use `zayavka admin passwd {email}`"),
        (false, false) => anyhow::bail!("there is no operator {email}; use `zayavka admin add-user {email}`"),
    }
    Ok(())
}

/// The commands about the team: roles, removal, the list, the audit trail.
async fn team(settings: &Settings, command: AdminCommand) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let result = team_with(&store, command).await;
    store.close().await;
    result
}

async fn team_with(store: &Store, command: AdminCommand) -> anyhow::Result<()> {
    let changed = |email: &str, change: AccountChange| match change {
        AccountChange::Done => Ok(()),
        AccountChange::NoSuchOperator => Err(anyhow::anyhow!("there is no operator {email}")),
        AccountChange::LastAdmin => {
            Err(anyhow::anyhow!("{email} is the last admin; make another account an admin first"))
        }
    };
    match command {
        AdminCommand::Role { email, role } => {
            let (email, role) = (zayavka::auth::normalise_email(&email), Role::from(role));
            changed(&email, store.set_role(email.clone(), role).await?)?;
            let detail = Some(account_detail(&email, role));
            store.audit(from_command_line(Action::ChangedRole, detail)).await?;
            eprintln!("zayavka: {email} is now {}; their sessions have ended", role.name());
        }
        AdminCommand::RemoveUser { email } => {
            let email = zayavka::auth::normalise_email(&email);
            changed(&email, store.remove_operator(email.clone()).await?)?;
            store.audit(from_command_line(Action::RemovedOperator, Some(email.clone()))).await?;
            eprintln!("zayavka: {email} removed");
        }
        AdminCommand::Reset2fa { email } => {
            let email = zayavka::auth::normalise_email(&email);
            if !store.reset_second_factor(email.clone()).await? {
                anyhow::bail!("there is no operator {email}");
            }
            store.audit(from_command_line(Action::SecondFactorReset, Some(email.clone()))).await?;
            eprintln!(
                "zayavka: the second factor of {email} is off and their sessions have ended; they sign in with \
                 the password alone and set it up again"
            );
        }
        AdminCommand::Users => {
            for account in store.accounts().await? {
                let second_factor = if account.second_factor { "  with a second factor" } else { "" };
                println!(
                    "{:<8} {}  since {}{second_factor}",
                    account.role.name(),
                    account.email,
                    account.created_at
                );
            }
        }
        AdminCommand::Audit { format } => {
            // Newest first a page at a time, then printed oldest first.
            let mut entries = Vec::new();
            let mut before = None;
            loop {
                let page = store.audit_page(before, 1000).await?;
                let Some(last) = page.last() else { break };
                before = Some(last.id);
                entries.extend(page);
            }
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for entry in entries.iter().rev() {
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
            out.flush()?;
        }
        AdminCommand::AddUser { .. } | AdminCommand::Passwd(_) => unreachable!("handled by admin()"),
    }
    Ok(())
}

/// An audit entry for something done with the `zayavka` command on the server itself.
fn from_command_line(action: Action, detail: Option<String>) -> AuditEntry {
    let user = std::env::var("SUDO_USER").or_else(|_| std::env::var("USER")).unwrap_or_default();
    let actor = if user.is_empty() { "command line".to_owned() } else { format!("command line ({user})") };
    AuditEntry { actor, action, lead_id: None, detail, address: None }
}

/// The first line of stdin, or asked for twice on the terminal without echo.
fn read_password(from_stdin: bool) -> anyhow::Result<String> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    let password = rpassword::prompt_password("Password: ")?;
    if rpassword::prompt_password("Again: ")? != password {
        anyhow::bail!("the two passwords differ");
    }
    Ok(password)
}

/// One clear line on stderr, no backtrace.
fn fail(error: &anyhow::Error) -> ExitCode {
    eprintln!("zayavka: error: {error:#}");
    ExitCode::FAILURE
}

//! The `zayavka` command: reads the settings, starts logging, runs a subcommand.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zayavka::config::{SettingArgs, Settings};
use zayavka::export::{Format, export};
use zayavka::store::Store;

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
    AddUser(Account),
    /// Set an operator's password (their sessions end); asks for it unless --password-stdin
    Passwd(Account),
}

#[derive(clap::Args)]
struct Account {
    /// The operator's e-mail (their login)
    email: String,
    /// Read the password from the first line of standard input (for scripts)
    #[arg(long)]
    password_stdin: bool,
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
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
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
                let store = Store::open_existing(&settings.database_url).await?;
                let result = export(&store, format, std::io::stdout().lock()).await;
                store.close().await;
                result
            }
            Command::Leads(LeadsCommand::Erase { phone }) => {
                let Some(e164) = zayavka::lead::normalise_phone(&phone) else {
                    anyhow::bail!("'{phone}' does not look like a phone number");
                };
                let store = Store::open_existing(&settings.database_url).await?;
                let result = store.erase_phone(&e164).await;
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
                let result = store.release(id, zayavka::notify::configured_channels(&settings)).await;
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
    let (account, adding) = match command {
        AdminCommand::AddUser(account) => (account, true),
        AdminCommand::Passwd(account) => (account, false),
    };
    let email = zayavka::auth::normalise_email(&account.email);
    let password = read_password(account.password_stdin)?;
    zayavka::auth::check_new_account(&email, &password)?;
    let hash = tokio::task::spawn_blocking(move || zayavka::auth::hash_password(&password)).await??;
    // add-user may create the database (a first operator before the first start); passwd may not.
    let store = if adding {
        Store::open(&settings.database_url).await?
    } else {
        Store::open_existing(&settings.database_url).await?
    };
    let result = if adding {
        store.add_operator(email.clone(), hash).await
    } else {
        store.set_password(email.clone(), hash).await
    };
    store.close().await;
    match (result?, adding) {
        (true, true) => eprintln!("zayavka: operator {email} added; sign in at /admin"),
        (true, false) => eprintln!("zayavka: password of {email} changed; their sessions have ended"),
        (false, true) => anyhow::bail!("{email} has an account already; use `zayavka admin passwd {email}`"),
        (false, false) => anyhow::bail!("there is no operator {email}; use `zayavka admin add-user {email}`"),
    }
    Ok(())
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

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
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// One clear line on stderr, no backtrace.
fn fail(error: &anyhow::Error) -> ExitCode {
    eprintln!("zayavka: error: {error:#}");
    ExitCode::FAILURE
}

//! The `zayavka` command: reads the settings, starts logging, serves or runs a subcommand
//! (`zayavka::cli`).

use std::process::ExitCode;

use clap::Parser;
use zayavka::cli::{Cli, Command};
use zayavka::config::{LogFormat, Settings};

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
            command => zayavka::cli::run(&settings, command).await,
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

//! `zayavka admin closed-days …`: the days off admins keep in the inbox, on top of
//! ZAYAVKA_CLOSED_DAYS, through the same use cases as the inbox's "Вихідні дні" screen.

use std::io::Write as _;

use super::{ClosedDaysCommand, command_line, services, warn_of_other_settings};
use crate::application::closed_days::{self, Added, DayRefusal};
use crate::application::server_settings::Shared;
use crate::config::Settings;
use crate::metrics::Metrics;
use crate::store::Store;

pub async fn run(settings: &Settings, command: ClosedDaysCommand) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = closed_days(&store, settings, &metrics, command).await;
    store.close().await;
    result
}

async fn closed_days(
    store: &Store,
    settings: &Settings,
    metrics: &Metrics,
    command: ClosedDaysCommand,
) -> anyhow::Result<()> {
    let services = services(store, settings, metrics);
    let now = store.clock().now();
    match command {
        ClosedDaysCommand::List => {
            // Written, not printed: a reader gone (`| head -1`) is an error to report, not a panic.
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for listed in closed_days::list(services, now).await? {
                let added =
                    listed.added.map(|(by, at)| format!("  added by {by} at {at}")).unwrap_or_default();
                let note = listed.note.map(|note| format!("  {note}")).unwrap_or_default();
                writeln!(out, "{}  {:<8}{note}{added}", listed.day, listed.source.name())?;
            }
            out.flush()?;
        }
        ClosedDaysCommand::Add { day, note } => {
            // Closing a day moves the retries set on it, by the team's calendar.
            warn_of_other_settings(store, settings, &[Shared::WorkingHours, Shared::ClosedDays]).await;
            match closed_days::add(services, &day, note.as_deref(), &command_line(), now).await {
                Ok((day, Added::Added)) => eprintln!("zayavka: {day} is closed"),
                Ok((day, Added::AlreadyClosed)) => eprintln!("zayavka: {day} was closed already"),
                Err(refusal) => return Err(refused(&day, refusal)),
            }
        }
        ClosedDaysCommand::Remove { day } => match closed_days::remove(services, &day, &command_line()).await
        {
            Ok(day) => eprintln!("zayavka: {day} is a working day again"),
            Err(refusal) => return Err(refused(&day, refusal)),
        },
    }
    Ok(())
}

fn refused(day: &str, refusal: DayRefusal) -> anyhow::Error {
    match refusal {
        DayRefusal::InSettings => {
            anyhow::anyhow!("{day} is closed by ZAYAVKA_CLOSED_DAYS: change the setting to open it")
        }
        DayRefusal::NotListed => anyhow::anyhow!("{day} is not on the list of closed days"),
        DayRefusal::Store(e) => e.into(),
        other => anyhow::anyhow!("'{day}': {other}"),
    }
}

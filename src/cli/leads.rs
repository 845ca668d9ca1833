//! `zayavka leads …`: export, erase, purge, release, figures.

use std::io::Write as _;

use super::{LeadsCommand, command_line, services, warn_of_other_settings};
use crate::application::figures::{self, FiguresError, PromiseFigures, PromiseRow, Viewer};
use crate::application::server_settings::Shared;
use crate::application::totals::{self, Totals};
use crate::application::{export, housekeeping, leads};
use crate::config::Settings;
use crate::export::Format;
use crate::metrics::Metrics;
use crate::store::Store;

pub async fn run(settings: &Settings, command: LeadsCommand) -> anyhow::Result<()> {
    match command {
        LeadsCommand::Export { format } => export_leads(settings, format).await,
        LeadsCommand::Erase { phone } => erase(settings, &phone).await,
        LeadsCommand::Purge => purge(settings).await,
        LeadsCommand::Release { id } => release(settings, id).await,
        LeadsCommand::Figures => print_figures(settings).await,
    }
}

async fn export_leads(settings: &Settings, format: Format) -> anyhow::Result<()> {
    if format == Format::Xlsx && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        anyhow::bail!("a workbook is binary: send it to a file, `--format xlsx > leads.xlsx`");
    }
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let written = async {
        let mut export =
            export::export(services(&store, settings, &metrics), format, &command_line()).await?;
        let mut out = std::io::stdout().lock();
        while let Some(chunk) = export.next().await {
            out.write_all(&chunk?)?;
        }
        out.flush()?;
        anyhow::Ok(())
    };
    let result = written.await;
    store.close().await;
    result
}

async fn erase(settings: &Settings, phone: &str) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = leads::erase(services(&store, settings, &metrics), phone, &command_line()).await;
    store.close().await;
    let erased = result.map_err(|refusal| match refusal {
        leads::EraseRefusal::NotAPhone => anyhow::anyhow!("'{phone}' does not look like a phone number"),
        leads::EraseRefusal::Store(e) => e.into(),
    })?;
    eprintln!("zayavka: {erased} lead(s) erased");
    Ok(())
}

async fn purge(settings: &Settings) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let now = store.clock().now();
    warn_of_other_settings(&store, settings, &[Shared::RetentionDays]).await;
    let result = housekeeping::purge_past_retention(&store, settings, now, &command_line()).await;
    store.close().await;
    eprintln!("zayavka: {} lead(s) older than {} days deleted", result?, settings.retention_days);
    Ok(())
}

async fn release(settings: &Settings, id: i64) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    warn_of_other_settings(&store, settings, &[Shared::Channels, Shared::Assign, Shared::DuplicateWindow])
        .await;
    let released = leads::release(services(&store, settings, &metrics), id, &command_line()).await;
    // Where it went: the call list, or the person's open lead there (ADR 0085). Released either
    // way; a failed read only says less.
    let repeat_of = match &released {
        Ok(true) => store.lead(id).await.ok().flatten().and_then(|lead| lead.repeat_of),
        _ => None,
    };
    store.close().await;
    if !released? {
        anyhow::bail!("there is no held lead {id} (the export's held field names them)");
    }
    match repeat_of {
        Some(first) => eprintln!(
            "zayavka: lead {id} released as a repeat of the person's open lead {first}, the one to call"
        ),
        None => eprintln!("zayavka: lead {id} released to the call list"),
    }
    Ok(())
}

async fn print_figures(settings: &Settings) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let now = store.clock().now();
    let result = async {
        let promise = figures::promise(&store, now, Viewer::Everyone).await?;
        let totals = totals::totals(&store, &settings.notify.channels(), now).await?;
        Ok::<_, FiguresError>((promise, totals))
    }
    .await;
    store.close().await;
    let (promise, totals) = result?;
    // Written, not printed: a reader gone (`| head -1`) is an error to report, not a panic.
    let mut out = std::io::stdout().lock();
    write!(out, "{}{}", figures_table(&promise), totals_lines(&totals))?;
    Ok(out.flush()?)
}

/// Under the table, the inbox's totals: the leads open now, and what the channels have not sent.
fn totals_lines(totals: &Totals) -> String {
    let mut lines = format!(
        "\nNow: {} open, {} of them overdue; {} held for review\n",
        totals.open, totals.overdue, totals.held
    );
    for queue in &totals.notifications {
        lines.push_str(&format!(
            "Not sent yet by {}: {} ({} failing), the oldest queued {}\n",
            queue.channel.name(),
            queue.waiting,
            queue.failing,
            queue.oldest_at
        ));
    }
    lines
}

/// The figures as a small table, a row per group.
fn figures_table(figures: &PromiseFigures) -> String {
    let hours = figures.promise.as_hours();
    let mut table = format!(
        "Leads of the call list sent from {:.0} to {:.0}\n{:<32} {:>6} {:>7} {:>22} {:>8} {:>22} {:>16}\n",
        figures.since,
        figures.until,
        "",
        "leads",
        "called",
        "first call median/p90",
        "reached",
        "reaching median/p90",
        format!("within {hours} h"),
    );
    let mut line = |group: String, row: &PromiseRow| {
        let within = match row.reached_in_time_share {
            Some(share) => format!("{} of {} ({:.0}%)", row.reached_in_time, row.due, share * 100.0),
            None => "-".to_owned(),
        };
        table.push_str(&format!(
            "{group:<32} {:>6} {:>7} {:>22} {:>8} {:>22} {within:>16}\n",
            row.leads,
            row.attempted,
            waits(row.first_attempt_median_minutes, row.first_attempt_p90_minutes),
            row.reached,
            waits(row.reach_median_minutes, row.reach_p90_minutes),
        ));
    };
    line("all".to_owned(), &figures.overall);
    for row in &figures.by_operator {
        line(format!("operator {}", row.operator.as_deref().unwrap_or("(not called yet)")), &row.figures);
    }
    for row in &figures.by_source {
        line(format!("source {}", row.source.as_deref().unwrap_or("(direct)")), &row.figures);
    }
    table
}

/// A median and a 90th percentile in minutes, `-` where there is none.
fn waits(median: Option<i64>, p90: Option<i64>) -> String {
    match (median, p90) {
        (Some(median), Some(p90)) => format!("{median} / {p90} min"),
        _ => "-".to_owned(),
    }
}

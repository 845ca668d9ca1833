//! `zayavka leads …`: export, erase, purge, release.

use super::{LeadsCommand, command_line, services};
use crate::application::{housekeeping, leads};
use crate::config::Settings;
use crate::export::{Format, export};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::team::Action;

pub async fn run(settings: &Settings, command: LeadsCommand) -> anyhow::Result<()> {
    match command {
        LeadsCommand::Export { format } => export_leads(settings, format).await,
        LeadsCommand::Erase { phone } => erase(settings, &phone).await,
        LeadsCommand::Purge => purge(settings).await,
        LeadsCommand::Release { id } => release(settings, id).await,
    }
}

async fn export_leads(settings: &Settings, format: Format) -> anyhow::Result<()> {
    if format == Format::Xlsx && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        anyhow::bail!("a workbook is binary: send it to a file, `--format xlsx > leads.xlsx`");
    }
    let store = Store::open_existing(&settings.database_url).await?;
    let mut result = export(&store, format, std::io::stdout()).await;
    if result.is_ok() {
        let detail = Some(format!("{format:?}").to_lowercase());
        result = store.audit(command_line().did(Action::Exported, None, detail)).await.map_err(Into::into);
    }
    store.close().await;
    result
}

async fn erase(settings: &Settings, phone: &str) -> anyhow::Result<()> {
    let Some(e164) = crate::lead::normalise_phone(phone) else {
        anyhow::bail!("'{phone}' does not look like a phone number");
    };
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = leads::erase(services(&store, settings, &metrics), &e164, &command_line()).await;
    store.close().await;
    eprintln!("zayavka: {} lead(s) erased", result?);
    Ok(())
}

async fn purge(settings: &Settings) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let result = housekeeping::purge_past_retention(&store, settings, store.clock().now()).await;
    store.close().await;
    eprintln!("zayavka: {} lead(s) older than {} days deleted", result?, settings.retention_days);
    Ok(())
}

async fn release(settings: &Settings, id: i64) -> anyhow::Result<()> {
    let store = Store::open_existing(&settings.database_url).await?;
    let metrics = Metrics::default();
    let result = leads::release(services(&store, settings, &metrics), id, &command_line()).await;
    store.close().await;
    if !result? {
        anyhow::bail!("there is no held lead {id} (the export's held field names them)");
    }
    eprintln!("zayavka: lead {id} released to the call list");
    Ok(())
}

//! Every lead as a file, for the inbox's download and `zayavka leads export` alike: the audit
//! entry is written once the file's first chunk is made (so a database that is down fails the
//! export before anything is recorded or sent) and before any of it leaves, so every export that
//! gave out a byte is in the trail, however it ends.

use bytes::Bytes;
use tokio::sync::mpsc;

use super::{Actor, Services};
use crate::export::{Format, chunks};
use crate::store::{Store, StoreError};
use crate::team::Action;

/// Why an export did not start.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The first chunk could not be made (the database did not answer).
    #[error("the export failed: {0}")]
    Failed(anyhow::Error),
    /// The audit entry could not be written: nothing was given out.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An export under way: its chunks, in order, the first one already made.
pub struct Export {
    first: Option<Bytes>,
    rest: mpsc::Receiver<anyhow::Result<Bytes>>,
}

impl Export {
    /// The next chunk of the file; `None` at its end. An error ends the file unfinished.
    pub async fn next(&mut self) -> Option<anyhow::Result<Bytes>> {
        match self.first.take() {
            Some(first) => Some(Ok(first)),
            None => self.rest.recv().await,
        }
    }
}

/// Starts the export of every lead as `format` for `actor`, and audits it.
pub async fn export(services: Services<'_>, format: Format, actor: &Actor) -> Result<Export, ExportError> {
    let mut rest = chunks(services.store.clone(), format);
    let first = match rest.recv().await {
        Some(Ok(chunk)) => Some(chunk),
        Some(Err(e)) => return Err(ExportError::Failed(e)),
        None => None,
    };
    let detail = Some(format.extension().to_owned());
    services.store.audit(actor.did(Action::Exported, None, detail)).await?;
    tracing::info!(format = format.extension(), "leads exported");
    Ok(Export { first, rest })
}

/// Copies the whole database (every lead, the accounts, the trail) to the new file `path` for
/// `actor` (`zayavka backup`), audited as an export: a copy whose entry cannot be written is
/// removed, so that no copy exists that the trail does not name.
pub async fn backup(store: &Store, path: &std::path::Path, actor: &Actor) -> anyhow::Result<()> {
    store.backup_to(path).await?;
    let detail = Some(format!("backup of the whole database to {}", path.display()));
    if let Err(e) = store.audit(actor.did(Action::Exported, None, detail)).await {
        let _ = std::fs::remove_file(path);
        return Err(
            anyhow::Error::from(e).context("the copy was removed: its audit entry could not be written")
        );
    }
    tracing::info!("database backed up");
    Ok(())
}

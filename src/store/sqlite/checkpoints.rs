//! The WAL's checkpoints, on a thread beside the writer (ADR 0048).
//!
//! SQLite copies the WAL back into the database file (a checkpoint) in the connection whose
//! commit made the WAL long: on the writer thread, between two commits, so the writes queued
//! meanwhile waited for its page copies and its fsync. In a filled database the pages it copies
//! lie all over the file (the phone and name indexes take random keys), and that wait grew with
//! the table. Here the writer's commit only wakes a thread of its own, which checkpoints on a
//! connection of its own while the writer goes on.

use std::ffi::c_int;
use std::path::Path;
use std::sync::mpsc::sync_channel;
use std::thread::JoinHandle;

use anyhow::Context;
use rusqlite::Connection;
use rusqlite::hooks::Wal;
use rusqlite::wal::CheckpointMode;

/// WAL pages written since the checkpointer was last woken that wake it again. Each checkpoint
/// ends with an fsync of the database file, so one per commit would cost more than it saves. And
/// a checkpoint writes each page once, however many commits changed it: in a large database the
/// phone indexes' pages a new lead changes lie all over this month's part of them, and with
/// SQLite's own 1,000 pages nearly every change to one was written back on its own (ADR 0063).
const CHECKPOINT_PAGES: c_int = 8000;

/// WAL pages after a commit that make the writer copy what is left itself. A checkpoint beside
/// the writer copies what was committed when it started; the WAL starts again from its beginning
/// only when a write begins with every page copied, which under a steady load may never happen.
/// Once the WAL is this long, the writer copies the last commits' pages, and its next write
/// starts the WAL afresh. So that it has few to copy (its commits wait meanwhile), the
/// checkpointer is woken after every commit in the last `CHECKPOINT_PAGES` before. Under a
/// steady load the WAL file grows to this length (131 MB of 4 KiB pages) and is reused.
const CATCH_UP_PAGES: c_int = 4 * CHECKPOINT_PAGES;

/// Starts the checkpointer for the database at `path` and hands the writer's commits to it.
/// The thread ends once `writer` is closed.
pub(super) fn start(path: &Path, writer: &mut Connection) -> anyhow::Result<JoinHandle<()>> {
    let conn = Connection::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    super::configure(&conn)?;
    // One wake-up waiting is enough: commits made while a checkpoint runs are in the next one.
    let (wake, woken) = sync_channel::<()>(1);
    // The hook replaces SQLite's automatic checkpoint on this connection. It runs after the
    // commit: an error it returned would fail a write that is stored, so errors are only logged.
    let mut woken_at: c_int = 0;
    writer.wal_hook(Some(move |wal: &mut Wal, pages: c_int| {
        if pages < woken_at {
            woken_at = 0; // the WAL started afresh
        }
        if pages >= CATCH_UP_PAGES {
            log_unless_busy(wal.checkpoint_v2(CheckpointMode::PASSIVE));
        } else if pages - woken_at >= CHECKPOINT_PAGES || pages >= CATCH_UP_PAGES - CHECKPOINT_PAGES {
            woken_at = pages;
            let _ = wake.try_send(());
        }
        Ok(())
    }))?;
    std::thread::Builder::new()
        .name("sqlite-checkpoints".into())
        .spawn(move || {
            while woken.recv().is_ok() {
                log_unless_busy(conn.wal_checkpoint_v2(None::<&str>, CheckpointMode::PASSIVE));
            }
        })
        .context("cannot start the database's checkpoint thread")
}

/// A passive checkpoint waits for nobody: busy (the other one is checkpointing) is no error.
fn log_unless_busy(checkpointed: rusqlite::Result<(c_int, c_int)>) {
    if let Err(e) = checkpointed
        && e.sqlite_error_code() != Some(rusqlite::ErrorCode::DatabaseBusy)
    {
        tracing::warn!(error = %e, "checkpointing the database's log");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;

    /// Writes one after the other copy the log into the database file and start it afresh: it
    /// stays near `CATCH_UP_PAGES` long, where without checkpoints it would hold every page.
    #[tokio::test]
    async fn the_log_is_copied_into_the_database_and_stays_short() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        store.write(|conn| conn.execute("CREATE TABLE pages (bytes BLOB)", [])).await.unwrap();
        const PAGES_A_WRITE: c_int = 400;
        for _ in 0..2 * CATCH_UP_PAGES / PAGES_A_WRITE {
            store
                .write(|conn| {
                    conn.execute(
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1) \
                         INSERT INTO pages SELECT zeroblob(4000) FROM n",
                        [PAGES_A_WRITE],
                    )
                })
                .await
                .unwrap();
        }
        let pages = |file: &str| std::fs::metadata(dir.path().join(file)).unwrap().len() / 4096;
        // Room for the writes committed while the checkpointer held its lock at the catch-up;
        // without checkpoints the log would hold 64,000 pages.
        assert!(pages("leads.db-wal") <= u64::try_from(CATCH_UP_PAGES + 2 * CHECKPOINT_PAGES).unwrap());
        assert!(pages("leads.db") >= u64::try_from(CATCH_UP_PAGES).unwrap());
        store.close().await;
    }
}

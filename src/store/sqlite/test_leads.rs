//! Leads stored straight into a test's store, and what a search of names finds there: shared by
//! the tests of the name index (`names`) and of the words of names (`name_words`).

use rusqlite::Connection;

use super::SqliteStore;
use crate::store::LeadQuery;

/// Stores a lead with id `id` (and so in the name index's part `id / names::PART_IDS`), named `name`.
pub(super) fn add(conn: &Connection, id: i64, name: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO \"CRN\" (id, created_at, name, phone, phone_e164, confirmation, policy_version) \
         VALUES (?1, '2026-12-01T10:00:00.000000Z', ?2, '067', ?3, ?4, 'policy')",
        rusqlite::params![id, name, format!("+38067{id:07}"), crate::lead::YES],
    )
    .map(drop)
}

/// A store in a directory of its own, with a lead of each id and name, stored in one write.
pub(super) async fn store_with(leads: Vec<(i64, String)>) -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
    store
        .write(move |conn| {
            for (id, name) in &leads {
                add(conn, *id, name)?;
            }
            Ok(())
        })
        .await
        .unwrap();
    (dir, store)
}

pub(super) async fn found(store: &SqliteStore, query: LeadQuery) -> Vec<i64> {
    store.find_leads(query).await.unwrap().iter().map(|record| record.id).collect()
}

/// The one number `sql` reads.
pub(super) async fn number(store: &SqliteStore, sql: &'static str) -> i64 {
    store.read(move |conn| conn.query_row(sql, [], |row| row.get(0))).await.unwrap()
}

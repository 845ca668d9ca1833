//! SQLite's trigram index of names is a pile of segments, one a commit, that FTS5 merges as it
//! grows. The writer merges them while no write waits (ADR 0061), so that an insert rarely pays
//! for merges left undone: by the commits before it, or by a bulk load such as the bench's year.
//!
//! Not run again on PostgreSQL: its trigram index (GIN) has no segments to merge.

use crate::common;

use std::time::{Duration, Instant};

use common::{TestDatabase, found_leads, new_lead};
use zayavka::store::{Holder, InsertContext, Store};

/// The segments the name index's first part (the first 100,000 ids) is made of now (each has at
/// least one row in `lead_names_0_idx`).
fn segments(database: &TestDatabase) -> i64 {
    let connection = rusqlite::Connection::open(database.dir.path().join("leads.db")).unwrap();
    connection.query_row("SELECT count(DISTINCT segid) FROM lead_names_0_idx", [], |row| row.get(0)).unwrap()
}

#[tokio::test]
async fn the_name_index_left_unmerged_is_merged_while_no_write_waits() {
    let database = TestDatabase::new().await;
    let store = Store::open(&database.settings_url()).await.unwrap();
    let context = InsertContext {
        channels: Vec::new().into(),
        policy_version: "policy-1".into(),
        duplicate_window: None,
    };
    let mut ids = Vec::new();
    for n in 0..12 {
        if n == 1 {
            // The first name made the part. FTS5's own merging inside a commit turned off: every
            // commit's segment stays, as merges left undone would (FTS5 still merges by itself
            // once a level holds 16).
            database.execute("INSERT INTO lead_names_0 (lead_names_0, rank) VALUES ('automerge', 0)").await;
        }
        let lead = new_lead(&format!("Олена Коваленко {n}"), &format!("+3806712345{n:02}"));
        // One insert a commit: twelve segments, unless the writer merges them between the commits.
        ids.push(store.insert(vec![lead], &context, None).await.unwrap()[0].lead.id);
    }

    // FTS5 merges a level once it holds four segments (its `usermerge`): fewer than four are left.
    let deadline = Instant::now() + Duration::from_secs(10);
    while segments(&database) >= 4 {
        assert!(Instant::now() < deadline, "still {} segments after 10 s", segments(&database));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let found: Vec<i64> =
        found_leads(&store, "коваленко", Holder::Anyone).await.iter().map(|record| record.id).collect();
    ids.reverse();
    assert_eq!(found, ids, "every name is found in the merged index, newest first");
}

//! The trigram index of names, in parts of `PART_IDS` lead ids (migration 0027, ADR 0067).
//!
//! FTS5 merges a trigram's whole list of names in one step, and the writer waits for the step. In
//! one index of every name, a trigram most names share made that step longer as the table grew;
//! in a part it is bounded by the part's size. Each part is an FTS5 table of its own, made when
//! its first name comes and dropped once none of its leads is left. The triggers only queue (a
//! trigger cannot name a table known at run time): the writer indexes what they queued just
//! before each commit, so a commit writes one segment in each part it touches (ADR 0047).
//!
//! A closed part also has its trigrams counted (`name_part_trigrams`, ADR 0075): a search skips a
//! part that lacks a trigram of its text, so a search that finds nothing does not ask every part.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, OptionalExtension, params};

use super::trigrams::trigrams;

/// Lead ids a part holds: lead `id` is in part `id / PART_IDS`. A merge step's length grows with
/// the names of its part: after a bulk load of 1.1 M names in parts and 320,000 more in commits
/// of 16, no step took over 14 ms; in one index, 48-51 ms, and 117-128 ms on a slower machine
/// (bench/name-merges.sh, bench/RESULTS.md of 2 Dec).
pub(super) const PART_IDS: i64 = 100_000;

/// The FTS5 table of a part.
pub(super) fn table(part: i64) -> String {
    format!("lead_names_{part}")
}

/// Takes the names of the leads deleted since the last commit out of their parts, and puts the
/// names queued since then into theirs: one statement a part, outside every savepoint, so that
/// FTS5 writes one segment a part at the commit; their words are counted too (ADR 0076). The parts
/// with idle work to do: those that got names, and so a segment, and the part before a part just
/// made, now closed.
pub(super) fn index_queued(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    unindex_deleted(conn)?;
    let queued: Vec<(i64, String)> = conn
        .prepare_cached(
            "SELECT queued.id, zayavka_fold(lead.name) FROM names_to_index AS queued \
             CROSS JOIN \"CRN\" AS lead ON lead.id = queued.id",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if queued.is_empty() {
        return Ok(Vec::new()); // emptying an empty queue would still write its page
    }
    let indexed: BTreeSet<i64> = queued.iter().map(|(id, _)| id / PART_IDS).collect();
    let mut to_merge: Vec<i64> = indexed.iter().copied().collect();
    for &part in &indexed {
        if !exists(conn, part)? {
            make(conn, part)?;
            to_merge.extend(parts_below(conn, Some(part * PART_IDS))?.first());
        }
        conn.prepare_cached(&index_part_sql(part))?.execute([part * PART_IDS, (part + 1) * PART_IDS])?;
        if let Some(below) = trigrams_below(conn, part)? {
            // A name given an id in a closed part (an import, an operator's `sqlite3`): counted
            // as it is indexed, or a search could skip the part that holds it.
            count_trigrams(conn, part, names_in(&queued, part * PART_IDS..below), 1)?;
        }
    }
    super::name_words::count(conn, queued.iter().map(|(_, name)| name.as_str()), 1)?;
    conn.prepare_cached("DELETE FROM names_to_index")?.execute([])?;
    Ok(to_merge)
}

/// Indexes the queued names of the ids from `?1` up to `?2` (a part's) into the part. CROSS JOIN
/// keeps the queue the outer loop: left to choose, SQLite read the leads of the whole range and
/// looked each up in the queue, so each commit read every lead of the newest part (ADR 0067).
fn index_part_sql(part: i64) -> String {
    format!(
        "INSERT INTO {} (rowid, name) SELECT queued.id, zayavka_fold(lead.name) \
         FROM names_to_index AS queued CROSS JOIN \"CRN\" AS lead ON lead.id = queued.id \
         WHERE queued.id >= ?1 AND queued.id < ?2",
        table(part)
    )
}

/// Indexes what is left queued when the store opens (migration 0027 queues every lead), before it
/// answers. Only then does it write, so that a second store opened on a file in use (the CLI
/// beside the server) does not wait for the first one's writes.
pub(super) fn index_left_queued(conn: &mut Connection) -> rusqlite::Result<()> {
    let queued: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM names_to_index) OR EXISTS (SELECT 1 FROM names_to_unindex)",
        [],
        |row| row.get(0),
    )?;
    if queued {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        index_queued(&tx)?;
        tx.commit()?;
    }
    Ok(())
}

/// Takes the names of the leads deleted since the last call out of their parts, and drops a part
/// once none of its leads is left. A purge calls it after each delete, so that the time its
/// writes take counts this work too (ADR 0046).
pub(super) fn unindex_deleted(conn: &Connection) -> rusqlite::Result<()> {
    let deleted: Vec<(i64, String)> = conn
        .prepare_cached("SELECT id, name FROM names_to_unindex")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if deleted.is_empty() {
        return Ok(()); // as in `index_queued`: an insert's commit writes no page for this queue
    }
    super::name_words::count(conn, deleted.iter().map(|(_, name)| name.as_str()), -1)?;
    let parts: BTreeSet<i64> = deleted.iter().map(|(id, _)| id / PART_IDS).collect();
    for part in parts {
        if !exists(conn, part)? {
            continue; // never made: its leads were deleted before a commit indexed them
        }
        let (from, to) = (part * PART_IDS, (part + 1) * PART_IDS);
        if let Some(below) = trigrams_below(conn, part)? {
            count_trigrams(conn, part, names_in(&deleted, from..below), -1)?;
        }
        let lead_left = conn
            .prepare_cached("SELECT 1 FROM \"CRN\" WHERE id >= ?1 AND id < ?2 LIMIT 1")?
            .query_row([from, to], |_| Ok(()))
            .optional()?;
        if lead_left.is_none() {
            // `secure_delete` overwrites the part's pages as they are freed.
            conn.execute_batch(&format!("DROP TABLE {}", table(part)))?;
            conn.prepare_cached("DELETE FROM lead_name_parts WHERE part = ?1")?.execute([part])?;
        } else {
            let table = table(part);
            conn.prepare_cached(&format!(
                "INSERT INTO {table} ({table}, rowid, name) \
                 SELECT 'delete', id, name FROM names_to_unindex WHERE id >= ?1 AND id < ?2"
            ))?
            .execute([from, to])?;
        }
    }
    conn.prepare_cached("DELETE FROM names_to_unindex")?.execute([])?;
    Ok(())
}

/// The names of `names` (ids and folded names) whose ids are in `ids`.
fn names_in(names: &[(i64, String)], ids: std::ops::Range<i64>) -> impl Iterator<Item = &str> {
    names.iter().filter(move |(id, _)| ids.contains(id)).map(|(_, name)| name.as_str())
}

fn exists(conn: &Connection, part: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM lead_name_parts WHERE part = ?1")?
        .query_row([part], |_| Ok(()))
        .optional()
        .map(|found| found.is_some())
}

/// Makes a part as migration 0026 made the one index: which names hold a trigram, without
/// positions or lengths (ADR 0065), and a deleted name's entries taken out at once.
fn make(conn: &Connection, part: i64) -> rusqlite::Result<()> {
    let table = table(part);
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE {table} USING fts5(\
             name, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0); \
         INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1);"
    ))?;
    conn.prepare_cached("INSERT INTO lead_name_parts (part) VALUES (?1)")?.execute([part])?;
    Ok(())
}

/// The parts a search for a text with `trigrams` asks, of those that hold ids below `before_id`
/// (all of them without it), newest first: a part whose trigrams are not all counted yet, and a
/// counted part that holds every trigram. A name holding the text holds each of its trigrams, as
/// `trigrams` works them out for the name and for the text alike.
pub(super) fn parts_to_ask(
    conn: &Connection,
    before_id: Option<i64>,
    trigrams: &BTreeSet<String>,
) -> rusqlite::Result<Vec<i64>> {
    let last = last_part_below(before_id);
    let trigrams_json = serde_json::to_string(trigrams).expect("a set of strings is JSON");
    conn.prepare_cached(&format!(
        "SELECT part FROM lead_name_parts AS p WHERE part <= ?1 \
         AND (trigrams_below IS NULL OR trigrams_below < (part + 1) * {PART_IDS} \
              OR NOT EXISTS (SELECT 1 FROM json_each(?2) AS text WHERE NOT EXISTS \
                  (SELECT 1 FROM name_part_trigrams AS t WHERE t.part = p.part AND t.trigram = text.value))) \
         ORDER BY part DESC"
    ))?
    .query_map(params![last, trigrams_json], |row| row.get(0))?
    .collect()
}

/// How many of a text's trigrams a counted part is asked for: the part's rarest. FTS5 reads every
/// name of the part that holds a trigram asked for, and most names hold the common ones (`енк`,
/// `нко`): a search for "шевченкова", which no name holds but whose every trigram each part holds,
/// took 60-100 ms at 2 M leads asking for all eight (bench/RESULTS.md, 3 Dec).
const RAREST_TRIGRAMS: usize = 3;

/// What `part` is asked for by a search for a text with `trigrams`: in a counted part, its
/// `RAREST_TRIGRAMS` rarest there (the LIKE decides), or nothing if the part lacks one; elsewhere
/// every one.
pub(super) fn trigrams_to_ask(
    conn: &Connection,
    part: i64,
    trigrams: &BTreeSet<String>,
) -> rusqlite::Result<Option<Vec<String>>> {
    if trigrams_below(conn, part)? != Some((part + 1) * PART_IDS) {
        return Ok(Some(trigrams.iter().cloned().collect()));
    }
    let trigrams_json = serde_json::to_string(trigrams).expect("a set of strings is JSON");
    let held: Vec<String> = conn
        .prepare_cached(
            "SELECT trigram FROM name_part_trigrams \
             WHERE part = ?1 AND trigram IN (SELECT value FROM json_each(?2)) ORDER BY names",
        )?
        .query_map(params![part, trigrams_json], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((held.len() == trigrams.len()).then(|| held.into_iter().take(RAREST_TRIGRAMS).collect()))
}

/// How far `part`'s trigrams are counted: its names of ids below this are. `None`: not begun.
fn trigrams_below(conn: &Connection, part: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT trigrams_below FROM lead_name_parts WHERE part = ?1")?
        .query_row([part], |row| row.get(0))
        .optional()
        .map(Option::flatten)
}

/// Adds `sign` (1 or -1) to the count of each trigram of `folded_names` in `part`; a trigram no
/// name holds any more leaves the table, so an erased name leaves no trace there.
fn count_trigrams<'a>(
    conn: &Connection,
    part: i64,
    folded_names: impl IntoIterator<Item = &'a str>,
    sign: i64,
) -> rusqlite::Result<()> {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for name in folded_names {
        for trigram in trigrams(name) {
            *counts.entry(trigram).or_default() += sign;
        }
    }
    let mut add = conn.prepare_cached(
        "INSERT INTO name_part_trigrams (part, trigram, names) VALUES (?1, ?2, ?3) \
         ON CONFLICT DO UPDATE SET names = names + excluded.names",
    )?;
    let mut forget = conn
        .prepare_cached("DELETE FROM name_part_trigrams WHERE part = ?1 AND trigram = ?2 AND names <= 0")?;
    for (trigram, count) in counts {
        add.execute(params![part, trigram, count])?;
        if count < 0 {
            forget.execute(params![part, trigram])?;
        }
    }
    Ok(())
}

/// Lead ids whose names one step counts into a closed part's trigrams, in a transaction of its own.
/// A step's time grows with the trigrams its names hold that it has not met yet: at 2 M leads, 200
/// names took 1.6 ms (median) in the `scale` year's parts, 8.4 ms (p99 16 ms) in parts of random
/// letters, the most a part's names can differ; 2,000 names took 10 and 54 ms (bench/RESULTS.md,
/// 3 Dec).
const COUNT_IDS: i64 = 200;

/// Counts the trigrams of the next `COUNT_IDS` ids' names of closed `part`; whether more are left.
fn count_a_step(conn: &Connection, part: i64) -> rusqlite::Result<bool> {
    // Where to start is read in the step's own write transaction: another process's writer (the
    // CLI's) may count the same part, and a name counted twice would keep its trigrams after it
    // is erased.
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let end = (part + 1) * PART_IDS;
    let from = trigrams_below(&tx, part)?.unwrap_or(part * PART_IDS);
    if from >= end {
        return Ok(false);
    }
    let to = (from + COUNT_IDS).min(end);
    let names = tx
        .prepare_cached("SELECT zayavka_fold(name) FROM \"CRN\" WHERE id >= ?1 AND id < ?2")?
        .query_map([from, to], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    count_trigrams(&tx, part, names.iter().map(String::as_str), 1)?;
    tx.prepare_cached("UPDATE lead_name_parts SET trigrams_below = ?2 WHERE part = ?1")?
        .execute([part, to])?;
    tx.commit()?;
    Ok(to < end)
}

/// The newest part that may hold ids below `before_id` (any part without it).
fn last_part_below(before_id: Option<i64>) -> i64 {
    before_id.map_or(i64::MAX, |id| (id - 1).div_euclid(PART_IDS))
}

/// The parts that hold ids below `before_id` (all of them without it), newest first.
pub(super) fn parts_below(conn: &Connection, before_id: Option<i64>) -> rusqlite::Result<Vec<i64>> {
    let last = last_part_below(before_id);
    conn.prepare_cached("SELECT part FROM lead_name_parts WHERE part <= ?1 ORDER BY part DESC")?
        .query_map([last], |row| row.get(0))?
        .collect()
}

/// Leaf pages that one merge step writes, in a transaction of its own: a few ms (more when a step
/// meets a trigram most names of the part share), which a write queued meanwhile waits.
const MERGE_PAGES: i64 = 128;

/// Leaf pages of a step that merges a closed part (one with a newer part beside it, so no insert
/// writes into it any more) into one segment. A search that finds nothing asks every part, and
/// each segment of a part is asked for each trigram: at 2 M, 21 parts of 2-6 segments took
/// 0.78 ms, of one segment each 0.19 ms. In steps of 32 pages a part of 100,000 names took 11
/// steps of at most 9 ms (128 pages: 4 steps of up to 32 ms), once (bench/RESULTS.md, 2 Dec).
const CLOSED_MERGE_PAGES: i64 = 32;

/// The parts of the name index that may have idle work left, merges or, in a closed part, trigrams
/// to count (ADR 0061, 0067, 0075): after a start any of them; after a commit those it wrote names
/// into, the part it closed, and those whose step another process's write (the CLI's) refused.
pub(super) struct IdleWork {
    parts: BTreeSet<i64>,
    refused: BTreeSet<i64>,
}

impl IdleWork {
    pub(super) fn new(parts: impl IntoIterator<Item = i64>) -> IdleWork {
        IdleWork { parts: parts.into_iter().collect(), refused: BTreeSet::new() }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Does a step of the newest part's work.
    pub(super) fn step(&mut self, conn: &Connection) {
        let Some(part) = self.parts.last().copied() else { return };
        match idle_step(conn, part) {
            IdleStep::More => {}
            IdleStep::Done => {
                self.parts.remove(&part);
            }
            IdleStep::Busy => {
                self.parts.remove(&part);
                self.refused.insert(part);
            }
        }
    }

    /// After a commit that wrote names into `indexed` (and closed a part), the work it left, and the
    /// work refused before it.
    pub(super) fn committed(&mut self, indexed: Vec<i64>) {
        self.parts.extend(indexed);
        self.parts.append(&mut self.refused);
    }
}

/// What a step of the idle work on a part left.
enum IdleStep {
    /// There may be more to do.
    More,
    /// Nothing left to do (or the step failed, which the log says).
    Done,
    /// Another process (the CLI) was writing: the part's work waits for the next commit.
    Busy,
}

/// Does a step of the idle work on `part` (ADR 0061, 0068, 0075). The newest part is merged level
/// by level as FTS5 does (a level of four segments at a time). A closed part is merged, every level
/// into one segment, which FTS5 does when it is given a negative number of pages; then its names'
/// trigrams are counted. FTS5's `'merge'` changes at least two rows when it did some work (its
/// documentation). A step does not wait for another process's write.
fn idle_step(conn: &Connection, part: i64) -> IdleStep {
    let before = conn.total_changes();
    let table = table(part);
    let step = conn.busy_timeout(std::time::Duration::ZERO).and_then(|()| {
        if !exists(conn, part)? {
            return Ok(false); // dropped with its last lead
        }
        let closed: bool = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM lead_name_parts WHERE part > ?1)")?
            .query_row([part], |row| row.get(0))?;
        let pages = if closed { -CLOSED_MERGE_PAGES } else { MERGE_PAGES };
        conn.prepare_cached(&format!("INSERT INTO {table} ({table}, rank) VALUES ('merge', ?1)"))?
            .execute([pages])?;
        let merged = conn.total_changes() - before >= 2;
        Ok(merged || (closed && count_a_step(conn, part)?))
    });
    match step {
        Ok(true) => IdleStep::More,
        Ok(false) => IdleStep::Done,
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => IdleStep::Busy,
        Err(e) => {
            tracing::warn!(error = %e, part, "merging the name index's segments or counting its trigrams");
            IdleStep::Done
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SqliteStore;
    use super::super::test_leads::{add, found, number, store_with};
    use super::*;
    use crate::store::LeadQuery;

    async fn parts(store: &SqliteStore) -> Vec<i64> {
        store.read(|conn| parts_below(conn, None)).await.unwrap()
    }

    /// Fails unless `part` is whole: FTS5 checks its segments against the ids and names given to it.
    async fn assert_whole(store: &SqliteStore, part: i64) {
        let table = table(part);
        store
            .write(move |conn| {
                conn.execute(
                    &format!("INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)"),
                    [],
                )
            })
            .await
            .unwrap();
    }

    /// A search reads the parts newest first and pages across them; a part goes with its last
    /// lead, and a deleted name leaves the part it was in, whichever part the commit wrote into.
    #[tokio::test]
    async fn names_are_found_across_parts_and_a_part_goes_with_its_last_lead() {
        let mut leads: Vec<(i64, String)> =
            [7, 99_999, 100_000, 250_001].map(|id| (id, format!("Олена Коваленко {id}"))).into();
        leads.push((250_002, "Марія Шевчук".into()));
        let (_dir, store) = store_with(leads).await;
        assert_eq!(parts(&store).await, [2, 1, 0]);
        assert_eq!(found(&store, LeadQuery::by_name("коваленко", None, 3)).await, [250_001, 100_000, 99_999]);
        assert_eq!(found(&store, LeadQuery::by_name("коваленко", Some(99_999), 3)).await, [7]);
        assert_eq!(
            found(&store, LeadQuery::by_name("коваленко", Some(100_001), 50)).await,
            [100_000, 99_999, 7]
        );

        // Part 1's only lead and one of part 0's go in one write, beside a new lead of part 2.
        store
            .write(|conn| {
                conn.execute("DELETE FROM \"CRN\" WHERE id IN (100000, 7)", [])?;
                add(conn, 250_003, "Ганна Коваленко")
            })
            .await
            .unwrap();
        assert_eq!(parts(&store).await, [2, 0]);
        assert_eq!(
            found(&store, LeadQuery::by_name("коваленко", None, 50)).await,
            [250_003, 250_001, 99_999]
        );
        let tables =
            number(&store, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'lead_names_1%'").await;
        assert_eq!(tables, 0, "part 1's tables are dropped");
        for part in [0, 2] {
            assert_whole(&store, part).await;
        }
        let queued = number(
            &store,
            "SELECT (SELECT count(*) FROM names_to_index) + (SELECT count(*) FROM names_to_unindex)",
        )
        .await;
        assert_eq!(queued, 0);
    }

    /// Once a newer part is made, the writer merges the part before it into one segment while no
    /// write waits: a search that finds nothing asks each segment of every part.
    #[tokio::test]
    async fn a_closed_part_is_merged_into_one_segment() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        let segments = "SELECT count(DISTINCT segid) FROM lead_names_0_idx";
        // A commit each, and so a segment each. While idle, the writer merges four segments of a
        // level into one, so how many are left depends on when it found time (as few as one);
        // two or three it leaves as they are. So leads are added until, after a merge of four,
        // two or three segments are left.
        let mut last_id = 0;
        loop {
            last_id += 1;
            store.write(move |conn| add(conn, last_id, &format!("Олена Коваленко {last_id}"))).await.unwrap();
            if last_id > 4 && (2..=3).contains(&number(&store, segments).await) {
                break;
            }
            assert!(last_id < 50, "the open part is never left in two or three segments");
        }

        store.write(|conn| add(conn, 100_000, "Марія Шевчук")).await.unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while number(&store, segments).await > 1 {
            assert!(std::time::Instant::now() < deadline, "part 0 still has several segments after 10 s");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let expected: Vec<i64> = (1..=last_id).rev().collect();
        assert_eq!(found(&store, LeadQuery::by_name("коваленко", None, 50)).await, expected);
        assert_whole(&store, 0).await;
    }

    /// Waits until the writer has counted the trigrams of every part below the newest.
    async fn wait_counted(store: &SqliteStore) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let uncounted = "SELECT count(*) FROM lead_name_parts WHERE part < (SELECT max(part) FROM lead_name_parts) \
             AND trigrams_below IS NOT (part + 1) * 100000";
        while number(store, uncounted).await > 0 {
            assert!(std::time::Instant::now() < deadline, "closed parts still uncounted after 10 s");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    type Counts = BTreeMap<(i64, String), i64>;

    /// The trigram counts as the table has them, and as the names of the counted ids give them.
    async fn counts_kept_and_recounted(store: &SqliteStore) -> (Counts, Counts) {
        store
            .read(|conn| {
                let kept = conn
                    .prepare("SELECT part, trigram, names FROM name_part_trigrams")?
                    .query_map([], |row| Ok(((row.get(0)?, row.get(1)?), row.get(2)?)))?
                    .collect::<rusqlite::Result<Counts>>()?;
                let mut recounted = Counts::new();
                let mut names = conn.prepare(
                    "SELECT part, zayavka_fold(name) FROM lead_name_parts JOIN \"CRN\" \
                     ON id >= part * 100000 AND id < trigrams_below",
                )?;
                for row in names.query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)))? {
                    let (part, name) = row?;
                    for trigram in trigrams(&name) {
                        *recounted.entry((part, trigram)).or_default() += 1;
                    }
                }
                Ok((kept, recounted))
            })
            .await
            .unwrap()
    }

    async fn asked(store: &SqliteStore, text: &'static str) -> Vec<i64> {
        store.read(move |conn| parts_to_ask(conn, None, &trigrams(text))).await.unwrap()
    }

    /// Once a part is closed, a search asks it only if its names hold every trigram of the text:
    /// a search that finds nothing asks the newest part only.
    #[tokio::test]
    async fn a_search_skips_the_closed_parts_that_cannot_hold_its_text() {
        let mut leads: Vec<(i64, String)> = (1..=5).map(|id| (id, format!("Олена Коваленко {id}"))).collect();
        leads.extend([(100_000, "Марія Шевчук".into()), (200_000, "Ганна Коваленко".into())]);
        let (_dir, store) = store_with(leads).await;
        wait_counted(&store).await;

        assert_eq!(asked(&store, "шевчук").await, [2, 1]);
        assert_eq!(asked(&store, "коваленко").await, [2, 0]);
        assert_eq!(asked(&store, "ґжьфщ").await, [2], "only the newest part, whose names are not counted");
        // Every trigram of the text in a part, but not in one name: the part is asked, the LIKE decides.
        assert_eq!(asked(&store, "шевчукова").await, [2]);
        assert_eq!(asked(&store, "лена ко").await, [2, 0]);
        assert_eq!(found(&store, LeadQuery::by_name("коваленко", None, 50)).await, [200_000, 5, 4, 3, 2, 1]);
        assert_eq!(found(&store, LeadQuery::by_name("шевчук", None, 50)).await, [100_000]);
        assert_eq!(found(&store, LeadQuery::by_name("ґжьфщ", None, 50)).await, Vec::<i64>::new());
        let (kept, recounted) = counts_kept_and_recounted(&store).await;
        assert_eq!(kept, recounted);
        assert!(kept.contains_key(&(1, "чук".to_owned())));

        // A counted part is asked for the text's rarest trigrams there; the newest part for all.
        let to_ask = |part: i64, text: &'static str| {
            store.read(move |conn| trigrams_to_ask(conn, part, &trigrams(text)))
        };
        let asked_of_0 = to_ask(0, "коваленко 3").await.unwrap().expect("part 0 holds every trigram");
        assert_eq!(asked_of_0.len(), RAREST_TRIGRAMS);
        assert_eq!(asked_of_0[0], "о 3", "one name holds it, five hold each of the others");
        assert_eq!(to_ask(0, "шевчук").await.unwrap(), None);
        assert_eq!(to_ask(2, "коваленко 3").await.unwrap().map(|asked| asked.len()), Some(9));
        assert_eq!(found(&store, LeadQuery::by_name("коваленко 3", None, 50)).await, [3]);
    }

    /// The counts follow the names of a counted part: an erased name's trigrams leave with it, a
    /// name given an id there is found, and a part's counts go with its last lead.
    #[tokio::test]
    async fn the_trigram_counts_follow_names_that_come_and_go() {
        let leads = [
            (1, "Олена Коваленко"),
            (2, "Ярема Зозуля"),
            (100_000, "Марія Шевчук"),
            (200_000, "Ганна Коваленко"),
        ];
        let (_dir, store) = store_with(leads.map(|(id, name)| (id, name.to_owned())).into()).await;
        wait_counted(&store).await;
        assert_eq!(asked(&store, "зозул").await, [2, 0]);

        store
            .write(|conn| {
                conn.execute("DELETE FROM \"CRN\" WHERE id IN (2, 100000)", [])?;
                add(conn, 50, "Тарас Бульба")
            })
            .await
            .unwrap();
        assert_eq!(asked(&store, "зозул").await, [2], "the erased name's trigrams left part 0");
        assert_eq!(asked(&store, "бульба").await, [2, 0]);
        assert_eq!(found(&store, LeadQuery::by_name("бульба", None, 50)).await, [50]);
        let (kept, recounted) = counts_kept_and_recounted(&store).await;
        assert_eq!(kept, recounted);
        assert!(kept.keys().all(|(part, _)| *part == 0), "part 1 went with its last lead: {kept:?}");
    }

    /// A part whose step another process's write refused (the CLI's, beside the server) is taken
    /// up again after the writer's next commit, not left uncounted until the store opens again.
    #[tokio::test]
    async fn a_part_whose_step_was_refused_is_worked_on_after_the_next_commit() {
        let leads = [(1, "Олена Коваленко"), (100_000, "Марія Шевчук")];
        let (dir, store) = store_with(leads.map(|(id, name)| (id, name.to_owned())).into()).await;
        wait_counted(&store).await;
        drop(store);
        let path = dir.path().join("leads.db");
        let writer = Connection::open(&path).unwrap();
        super::super::configure(&writer).unwrap();
        writer
            .execute_batch(
                "UPDATE lead_name_parts SET trigrams_below = NULL; DELETE FROM name_part_trigrams;",
            )
            .unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();

        let mut work = IdleWork::new([0, 1]);
        while !work.is_empty() {
            work.step(&writer);
        }
        let below = |conn: &Connection| trigrams_below(conn, 0).unwrap();
        assert_eq!(below(&writer), None, "refused: the other connection is writing");
        other.execute_batch("COMMIT").unwrap();
        work.committed(Vec::new());
        while !work.is_empty() {
            work.step(&writer);
        }
        assert_eq!(below(&writer), Some(PART_IDS), "part 0 counted after the next commit");
    }

    /// Whatever the name and the text, a search with counted parts finds what a scan of every name
    /// finds: the counts and the text's trigrams, and the words of names and texts (ADR 0076), are
    /// worked out alike, whatever case, apostrophe, space or character changes length as it is
    /// folded.
    #[tokio::test]
    async fn a_search_with_counted_parts_finds_every_name_a_scan_finds() {
        const NAMES: [&str; 11] = [
            "ОЛЕНА КОВАЛЕНКО",
            "Д’Артаньян Шарль",
            "Мар`яна Ґудзь",
            "İsmail Öztürk",
            "STRASSE Straße",
            "Ǆemal ǅokić",
            "Ὀδυσσεύς ΣΟΦΟΣ",
            "Анна-Марія О'Коннор",
            "Петро 🌻 Соняшник",
            "ﬃ ligature Ǉ",
            "Ірина\u{a0}Мельник\tОльга",
        ];
        let (_dir, store) =
            store_with((0..).zip(NAMES).map(|(part, name)| (part * PART_IDS + 1, name.to_owned())).collect())
                .await;
        wait_counted(&store).await;

        for name in NAMES {
            let chars: Vec<char> = name.chars().collect();
            for start in 0..chars.len() {
                for end in (start + 3).min(chars.len())..=chars.len() {
                    let typed = String::from_iter(&chars[start..end]);
                    let (Some(pattern), None) = crate::inbox::Search::parse(&typed).patterns() else {
                        continue; // blank, or digits: not a name search
                    };
                    let folded = crate::inbox::fold(typed.trim());
                    let scanned: Vec<i64> = (0..NAMES.len())
                        .rev()
                        .filter(|&part| crate::inbox::fold(NAMES[part]).contains(&folded))
                        .map(|part| i64::try_from(part).unwrap() * PART_IDS + 1)
                        .collect();
                    let query = LeadQuery { name_pattern: Some(pattern), ..LeadQuery::by_name("", None, 50) };
                    assert_eq!(found(&store, query).await, scanned, "{typed:?}");
                }
            }
        }
    }

    /// A commit reads its queued names and their leads, not every lead of the part.
    #[test]
    fn a_part_is_indexed_from_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        drop(SqliteStore::open(&dir.path().join("leads.db")).unwrap());
        let conn = Connection::open(dir.path().join("leads.db")).unwrap();
        super::super::configure(&conn).unwrap();
        make(&conn, 0).unwrap();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", index_part_sql(0)))
            .unwrap()
            .query_map([0, PART_IDS], |row| row.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            plan,
            [
                "SEARCH queued USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
                "SEARCH lead USING INTEGER PRIMARY KEY (rowid=?)"
            ]
        );
    }

    /// A database of the one index (migration 0026) opens with its names in parts, found as before.
    #[tokio::test]
    async fn the_one_index_of_names_becomes_parts_when_the_store_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leads.db");
        let conn = Connection::open(&path).unwrap();
        super::super::configure(&conn).unwrap();
        for sql in &super::super::MIGRATIONS[..26] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 26).unwrap();
        for id in [3, 140_000] {
            add(&conn, id, &format!("Олена Коваленко {id}")).unwrap();
        }
        // Indexed as the writer did then: the queue into the one index.
        conn.execute_batch(
            "INSERT INTO lead_search (rowid, name) SELECT queued.id, zayavka_fold(lead.name) \
             FROM names_to_index AS queued JOIN \"CRN\" AS lead USING (id); DELETE FROM names_to_index;",
        )
        .unwrap();
        drop(conn);

        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(parts(&store).await, [1, 0]);
        assert_eq!(found(&store, LeadQuery::by_name("олена", None, 50)).await, [140_000, 3]);
        let old = number(&store, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'lead_search%'").await;
        assert_eq!(old, 0, "the one index is gone");
    }
}

//! The words of every name and its pairs of adjacent words, and in how many names each is
//! (migrations 0030 and 0031, ADR 0076 and 0077).
//!
//! A name holding a text holds each of the text's words (its runs between spaces) inside one of
//! its own words, and each two adjacent words of the text inside one of its own pairs. So a search
//! one of whose words or pairs is inside none of the names' finds nothing, and one look per piece
//! into this table says so, however many leads there are: the name index's parts hold each
//! trigram of "шевченкова" (Шевченко, Коваленко), and many names both words of "шевченко тарас",
//! but no name holds such a word, or those two words in that order.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rusqlite::{Connection, params};

use crate::store::search::{pieces_to_look_up, words_and_pairs};

/// Adds `sign` (1 or -1) to the count of each word and pair of `folded_names`; one no name holds
/// any more leaves the table and its index, so an erased name leaves no trace here.
pub(super) fn count<'a>(
    conn: &Connection,
    folded_names: impl IntoIterator<Item = &'a str>,
    sign: i64,
) -> rusqlite::Result<()> {
    let mut counts: BTreeMap<Cow<'_, str>, i64> = BTreeMap::new();
    for name in folded_names {
        for piece in words_and_pairs(name) {
            *counts.entry(piece).or_default() += sign;
        }
    }
    let mut add = conn.prepare_cached(
        "INSERT INTO name_words (word, names) VALUES (?1, ?2) \
         ON CONFLICT (word) DO UPDATE SET names = names + excluded.names RETURNING id, names",
    )?;
    let mut index = conn.prepare_cached("INSERT INTO name_words_trigrams (rowid, word) VALUES (?1, ?2)")?;
    let mut unindex = conn.prepare_cached(
        "INSERT INTO name_words_trigrams (name_words_trigrams, rowid, word) VALUES ('delete', ?1, ?2)",
    )?;
    let mut forget = conn.prepare_cached("DELETE FROM name_words WHERE id = ?1")?;
    for (piece, count) in counts {
        let (id, names): (i64, i64) =
            add.query_row(params![piece.as_ref(), count], |row| Ok((row.get(0)?, row.get(1)?)))?;
        if names <= 0 {
            unindex.execute(params![id, piece.as_ref()])?;
            forget.execute([id])?;
        } else if names == count {
            index.execute(params![id, piece.as_ref()])?; // a piece new to the table
        }
    }
    Ok(())
}

/// Names whose words are counted and written at a time when the words of every name are counted at
/// once: a bound on memory for names as varied as random letters, and a sorted run of writes.
const NAMES_A_CHUNK: usize = 50_000;

/// Counts the words and pairs of the names stored before migration 0031, once, when the store
/// opens, before it answers (as `names::index_left_queued` does), and only then writes. A name
/// still queued for the name index is counted when it is indexed.
pub(super) fn count_left(conn: &mut Connection) -> rusqlite::Result<()> {
    let left = "SELECT EXISTS (SELECT 1 FROM name_words_to_count)";
    if !conn.query_row(left, [], |row| row.get::<_, bool>(0))? {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // Asked again in the write: another process (the CLI's store) may have counted them meanwhile.
    if tx.query_row(left, [], |row| row.get::<_, bool>(0))? {
        let mut names = tx.prepare(
            "SELECT zayavka_fold(name) FROM \"CRN\" WHERE id NOT IN (SELECT id FROM names_to_index)",
        )?;
        let mut rows = names.query([])?;
        let mut chunk: Vec<String> = Vec::with_capacity(NAMES_A_CHUNK);
        while let Some(row) = rows.next()? {
            chunk.push(row.get(0)?);
            if chunk.len() == NAMES_A_CHUNK {
                count(&tx, chunk.iter().map(String::as_str), 1)?;
                chunk.clear();
            }
        }
        count(&tx, chunk.iter().map(String::as_str), 1)?;
    }
    tx.execute("DELETE FROM name_words_to_count", [])?;
    tx.commit()
}

/// Whether some piece of the folded `text` (a word, or two in a row, of those looked up) is inside
/// none of the names' words and pairs, so that no name holds the text.
pub(super) fn held_by_no_name(conn: &Connection, text: &str) -> rusqlite::Result<bool> {
    let mut inside = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM name_words_trigrams AS t CROSS JOIN name_words AS w ON w.id = t.rowid \
         WHERE name_words_trigrams MATCH ?1 AND instr(w.word, ?2) > 0)",
    )?;
    for piece in pieces_to_look_up(text) {
        let trigrams: Vec<String> = super::trigrams::trigrams(&piece).into_iter().collect();
        if !inside
            .query_row(params![super::trigrams::match_expression(&trigrams), piece], |row| row.get(0))?
        {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::super::SqliteStore;
    use super::super::test_leads::{add, found, number, store_with};
    use super::*;
    use crate::store::LeadQuery;

    async fn held_by_no_name_of(store: &SqliteStore, text: &'static str) -> bool {
        store.read(move |conn| held_by_no_name(conn, text)).await.unwrap()
    }

    type Counts = BTreeMap<String, i64>;

    /// The word counts as the table has them, and as every stored name gives them; fails unless
    /// the words' trigram index holds exactly the table's words.
    async fn counts_kept_and_recounted(store: &SqliteStore) -> (Counts, Counts) {
        store
            .write(|conn| {
                conn.execute(
                    "INSERT INTO name_words_trigrams (name_words_trigrams, rank) VALUES ('integrity-check', 1)",
                    [],
                )?;
                let kept = conn
                    .prepare("SELECT word, names FROM name_words")?
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<rusqlite::Result<Counts>>()?;
                let mut recounted = Counts::new();
                let mut names = conn.prepare("SELECT zayavka_fold(name) FROM \"CRN\"")?;
                for name in names.query_map([], |row| row.get::<_, String>(0))? {
                    for piece in words_and_pairs(&name?) {
                        *recounted.entry(piece.into_owned()).or_default() += 1;
                    }
                }
                Ok((kept, recounted))
            })
            .await
            .unwrap()
    }

    /// A text none of whose words' trigrams any part lacks, but with a word inside no name's
    /// word, or two words in a row inside no name's pair, is answered from the words and pairs
    /// alone: nothing. A text whose every piece is inside some name's goes on to the name index,
    /// where the LIKE decides.
    #[tokio::test]
    async fn a_text_with_a_word_no_name_holds_finds_nothing() {
        // In three parts of the name index (ids 100,000 apart), each holding every trigram.
        let leads = [0, 100_000, 200_000].into_iter().flat_map(|first| {
            [(first + 1, "Тарас Шевченко".to_owned()), (first + 2, "Олена Коваленко".to_owned())]
        });
        let (_dir, store) = store_with(leads.collect()).await;

        assert!(held_by_no_name_of(&store, "шевченкова").await);
        assert!(held_by_no_name_of(&store, "тарас шевченкова").await);
        assert!(!held_by_no_name_of(&store, "ченко ко").await);
        assert!(!held_by_no_name_of(&store, "ко").await, "too short to look up");
        assert!(
            held_by_no_name_of(&store, "тарас коваленко").await,
            "each word is some name's, the pair none's"
        );
        assert!(
            held_by_no_name_of(&store, "шевченко тарас").await,
            "both words are one name's, not in that order"
        );
        assert!(!held_by_no_name_of(&store, "ас шевченко").await);
        assert!(!held_by_no_name_of(&store, "олена ко").await, "the second word too short: looked up alone");
        assert_eq!(found(&store, LeadQuery::by_name("шевченкова", None, 50)).await, Vec::<i64>::new());
        assert_eq!(found(&store, LeadQuery::by_name("тарас коваленко", None, 50)).await, Vec::<i64>::new());
        assert_eq!(found(&store, LeadQuery::by_name("ченко т", None, 50)).await, Vec::<i64>::new());
        assert_eq!(found(&store, LeadQuery::by_name("ас шевч", None, 50)).await, [200_001, 100_001, 1]);
        let (kept, recounted) = counts_kept_and_recounted(&store).await;
        assert_eq!(kept, recounted);
        assert_eq!(kept.get("шевченко"), Some(&3));
        assert_eq!(kept.get("тарас шевченко"), Some(&3));
    }

    /// An erased name's words leave with it once no other name holds them; the counts stay those
    /// of the stored names.
    #[tokio::test]
    async fn the_word_counts_follow_names_that_come_and_go() {
        let leads = [(1, "Олена Коваленко"), (2, "Ярема Зозуля"), (100_000, "Ярема Коваленко")];
        let (_dir, store) = store_with(leads.map(|(id, name)| (id, name.to_owned())).into()).await;
        assert!(!held_by_no_name_of(&store, "зозул").await);
        assert!(!held_by_no_name_of(&store, "ярема зоз").await);

        store
            .write(|conn| {
                conn.execute("DELETE FROM \"CRN\" WHERE id = 2", [])?;
                add(conn, 3, "Тарас Бульба")
            })
            .await
            .unwrap();
        assert!(held_by_no_name_of(&store, "зозул").await, "the erased name's word left");
        assert!(held_by_no_name_of(&store, "ярема зоз").await, "and its pair");
        assert_eq!(found(&store, LeadQuery::by_name("ярема", None, 50)).await, [100_000]);
        assert_eq!(found(&store, LeadQuery::by_name("бульба", None, 50)).await, [3]);
        let (kept, recounted) = counts_kept_and_recounted(&store).await;
        assert_eq!(kept, recounted);
        assert_eq!(kept.get("ярема"), Some(&1));
        assert_eq!(number(&store, "SELECT count(*) FROM name_words WHERE word = 'зозуля'").await, 0);
    }

    /// The names stored before migration 0031 have their words and pairs counted when the store
    /// opens, once: those indexed then by the open, and those queued for it, which their indexing
    /// counts.
    #[tokio::test]
    async fn the_words_of_names_stored_before_are_counted_when_the_store_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leads.db");
        let store = SqliteStore::open(&path).unwrap();
        store.write(|conn| add(conn, 1, "Олена Коваленко")).await.unwrap();
        drop(store);
        // As before the migration: no words, and one more name stored and queued, not indexed.
        let conn = Connection::open(&path).unwrap();
        super::super::configure(&conn).unwrap();
        conn.execute_batch(
            "DELETE FROM name_words; INSERT INTO name_words_trigrams (name_words_trigrams) VALUES ('delete-all'); \
             INSERT INTO name_words_to_count (migration) VALUES (31);",
        )
        .unwrap();
        add(&conn, 2, "Марія Коваленко").unwrap();
        drop(conn);

        let store = SqliteStore::open(&path).unwrap();
        let (kept, recounted) = counts_kept_and_recounted(&store).await;
        assert_eq!(kept, recounted);
        assert_eq!(kept.get("коваленко"), Some(&2));
        assert_eq!(kept.get("олена коваленко"), Some(&1));
        assert_eq!(number(&store, "SELECT count(*) FROM name_words_to_count").await, 0);
        assert_eq!(found(&store, LeadQuery::by_name("коваленко", None, 50)).await, [2, 1]);
        assert!(!held_by_no_name_of(&store, "марія").await);
    }
}

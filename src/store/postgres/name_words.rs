//! The words of names and their pairs of adjacent words (ADR 0076, 0077, migrations 0026, 0027): a
//! name search one of whose words is inside no stored name's word, or two of whose words in a row
//! are inside no name's pair, finds nothing, and one look per piece into the table of words says
//! so, instead of the name index reading the lists of the text's trigrams, however common.
//!
//! The transactions that store or delete names only queue their words' changes
//! (`name_word_changes`, written by triggers); `Folds::fold` adds the queue into the counts after
//! each commit that changed names. A search looks at both, in its own statement's snapshot.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Pool, StoreError, unavailable};

/// After a write of names: whether the fold waits for another connection's fold (after an
/// erasure, so that its words are gone when it returns) or leaves the queue to it (after an
/// insert: it, or the next fold, takes what is queued).
#[derive(Clone, Copy)]
pub(super) enum Fold {
    Waiting,
    UnlessBusy,
}

/// Queued changes folded between two vacuums of the queue, at most (about 70 of its pages).
const VACUUM_AFTER: u64 = 10_000;

/// A store's folds of the queue into the counts, shared by its writers.
pub(super) struct Folds {
    pool: Pool,
    /// Queued changes this store folded (and so left dead in the queue) since it last vacuumed it.
    since_vacuum: AtomicU64,
}

impl Folds {
    pub(super) fn new(pool: Pool) -> Folds {
        Folds { pool, since_vacuum: AtomicU64::new(0) }
    }

    /// Adds the queued changes of the words of names into their counts. A failure loses nothing:
    /// the queue stays, searches read it meanwhile, and the next fold takes it.
    pub(super) async fn fold(&self, how: Fold) {
        if let Err(error) = self.fold_and_vacuum(how).await {
            tracing::warn!(%error, "the words of names were not folded; the next write's fold takes them");
        }
    }

    /// A fold leaves the rows it took dead in the queue, and a search and the next fold read past
    /// them: the queue is vacuumed here every `VACUUM_AFTER` of them, as autovacuum would, which
    /// may be off or behind (as on this project's test machines).
    async fn fold_and_vacuum(&self, how: Fold) -> Result<(), StoreError> {
        let client = self.pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))?;
        let wait = matches!(how, Fold::Waiting);
        let taken: i64 = client
            .query_one("SELECT zayavka_fold_name_words($1)", &[&wait])
            .await
            .map_err(unavailable)?
            .get(0);
        let taken = u64::try_from(taken).unwrap_or(0);
        if self.since_vacuum.fetch_add(taken, Ordering::Relaxed) + taken >= VACUUM_AFTER {
            self.since_vacuum.store(0, Ordering::Relaxed);
            // SKIP_LOCKED: another instance vacuuming it now does the same work. TRUNCATE false:
            // giving its empty pages back would lock the queue against the writers' triggers.
            client
                .batch_execute("VACUUM (SKIP_LOCKED, TRUNCATE false) name_word_changes")
                .await
                .map_err(unavailable)?;
        }
        Ok(())
    }
}

/// The condition, on a name search, that some name's word or pair, counted or queued as added,
/// holds the `LIKE` pattern `inside` (a bound parameter) of one of the text's pieces. Uncorrelated,
/// it is checked once, before any lead is read, and in the statement's one snapshot (a fold moves
/// words from the queue into the counts at once). A name erased but not yet folded only makes the
/// search read the name index, never miss.
pub(super) fn some_name_holds(inside: &str) -> String {
    format!("(SELECT EXISTS ({}))", words_holding(inside))
}

/// The words and pairs of names, counted or queued as added, that hold the `LIKE` pattern `inside`
/// (a bound parameter); a word in both is there twice.
fn words_holding(inside: &str) -> String {
    format!(
        "SELECT word FROM name_words WHERE word LIKE {inside}::text ESCAPE '\\' \
         UNION ALL SELECT word FROM name_word_changes WHERE names > 0 AND word LIKE {inside}::text ESCAPE '\\'"
    )
}

/// The most lists of leads a name search reads (ADR 0078). Each is two pages of leads more to
/// check: the 48 lists holding "ковал" took 13.6–18.3 ms at 2 M leads, against 2.9 ms from the
/// leads table, where a text inside that many names' pieces is common.
pub(super) const MOST_LISTS: usize = 8;

/// The pieces names are listed under (`name_piece_leads`: their pairs, or a one-word name's word)
/// that hold the `LIKE` pattern `inside`, counted or queued as added; at most `MOST_LISTS + 1`.
pub(super) async fn listed_pieces_holding(
    client: &tokio_postgres::Client,
    inside: &str,
) -> Result<Vec<String>, StoreError> {
    let most = MOST_LISTS as i64 + 1;
    let sql = format!(
        "SELECT DISTINCT word FROM ({}) AS held \
         WHERE position(' ' IN word) > 0 \
           OR EXISTS (SELECT 1 FROM name_piece_leads WHERE piece = word COLLATE \"C\") \
         LIMIT $2",
        words_holding("$1")
    );
    let rows = client.query(&sql, &[&inside, &most]).await.map_err(unavailable)?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::LeadQuery;

    /// The words of names another process stored and did not fold (its fold was refused, or it
    /// ended first) are searched in the queue meanwhile, and the next fold counts them.
    #[tokio::test]
    async fn names_queued_and_not_yet_folded_are_found_and_the_next_fold_counts_them() {
        let (client, schema, url) = crate::store::postgres::tests::fresh_schema().await;
        let store = crate::store::postgres::PostgresStore::open(&url).await.unwrap();
        // Another process's connection, which writes and does not fold.
        client.batch_execute(&format!("SET search_path = {schema}")).await.unwrap();
        let stored = |name: &str| {
            format!(
                "INSERT INTO \"CRN\" (name, phone, phone_e164, confirmation, policy_version) \
                 VALUES ('{name}', '067', '+380671234567', '{}', 'policy')",
                crate::lead::YES
            )
        };
        client.batch_execute(&stored("Тарас Шевченко")).await.unwrap();
        client.batch_execute(&stored("Тарас Коваленко")).await.unwrap();
        let count = |sql: &'static str| {
            let client = &client;
            async move { client.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
        };
        assert_eq!(count("SELECT count(*) FROM name_words").await, 0, "nothing folded yet");

        let found = |part: &'static str| {
            let store = &store;
            async move { store.find_leads(LeadQuery::by_name(part, None, 50)).await.unwrap().len() }
        };
        assert_eq!(found("шевч").await, 1, "a word still queued");
        assert_eq!(found("тарас").await, 2);
        assert_eq!(found("шевченкова").await, 0);
        assert_eq!(found("ас шевченко").await, 1, "a pair still queued");
        assert_eq!(found("шевченко тарас").await, 0);

        store.folds.fold(Fold::Waiting).await;
        assert_eq!(count("SELECT count(*) FROM name_word_changes").await, 0);
        assert_eq!(count("SELECT names FROM name_words WHERE word = 'тарас'").await, 2);
        assert_eq!(count("SELECT names FROM name_words WHERE word = 'тарас коваленко'").await, 1);
        assert_eq!(found("шевч").await, 1, "a word counted");
        store.close().await;
        client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    }

    /// Folds take what they fold out of the queue, and vacuum it every `VACUUM_AFTER` changes, as
    /// autovacuum would (this machine's PostgreSQL runs without it, where a queue never vacuumed grew
    /// to 31 MB in 0.8 M leads). The queue's size is not asserted: a vacuum frees only rows no open
    /// snapshot can see, and the other tests running beside this one hold snapshots.
    #[tokio::test]
    async fn the_queue_is_emptied_and_vacuumed_however_much_goes_through_it() {
        let (client, schema, url) = crate::store::postgres::tests::fresh_schema().await;
        let store = crate::store::postgres::PostgresStore::open(&url).await.unwrap();
        client.batch_execute(&format!("SET search_path = {schema}")).await.unwrap();
        // 50,000 changes, 1,000 a fold: each word's pair adds up to nothing.
        for _ in 0..50 {
            client
                .batch_execute(
                    "INSERT INTO name_word_changes (word, names) \
                     SELECT 'слово' || (g / 2), CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END FROM generate_series(0, 999) g",
                )
                .await
                .unwrap();
            store.folds.fold(Fold::Waiting).await;
        }
        let queue = "SELECT (SELECT count(*) FROM name_word_changes) + (SELECT count(*) FROM name_words)";
        assert_eq!(client.query_one(queue, &[]).await.unwrap().get::<_, i64>(0), 0);
        let vacuums =
            "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'name_word_changes'::regclass";
        let vacuums: i64 = client.query_one(vacuums, &[]).await.unwrap().get(0);
        assert_eq!(vacuums, 5, "50,000 changes folded, one vacuum every 10,000");
        store.close().await;
        client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    }
}

//! The words of names (ADR 0076, migration 0026): a name search one of whose words is inside no
//! stored name's word finds nothing, and one look per word into the small table of words says
//! so, instead of the name index reading the lists of the text's trigrams, however common.
//!
//! The transactions that store or delete names only queue their words' changes
//! (`name_word_changes`, written by triggers); `fold` adds the queue into the counts after each
//! commit that changed names. A search looks at both, in one snapshot.

use super::{Pool, StoreError, unavailable};

/// After a write of names: whether the fold waits for another connection's fold (after an
/// erasure, so that its words are gone when it returns) or leaves the queue to it (after an
/// insert: it, or the next fold, takes what is queued).
#[derive(Clone, Copy)]
pub(super) enum Fold {
    Waiting,
    UnlessBusy,
}

/// Adds the queued changes of the words of names into their counts. A failure loses nothing: the
/// queue stays, searches read it meanwhile, and the next fold takes it.
pub(super) async fn fold(pool: &Pool, how: Fold) {
    let folded = async {
        let client = pool.get().await.map_err(|e| StoreError::Unavailable(e.to_string()))?;
        let wait = matches!(how, Fold::Waiting);
        client.execute("SELECT zayavka_fold_name_words($1)", &[&wait]).await.map_err(unavailable)
    };
    if let Err(error) = folded.await {
        tracing::warn!(%error, "the words of names were not folded; the next write's fold takes them");
    }
}

/// Whether some word of the folded `text` (of those looked up) is inside no stored name's word, so
/// that no name holds the text. A word counted, or queued as added, may hold it: a name erased but
/// not yet folded only makes the search ask the name index, never miss.
pub(super) async fn held_by_no_name(client: &tokio_postgres::Client, text: &str) -> Result<bool, StoreError> {
    for word in crate::store::search::words_to_look_up(text) {
        let pattern = format!("%{}%", crate::inbox::escape_like(word));
        // One statement, so one snapshot: a fold moves words from the queue into the counts at once.
        let inside = "SELECT EXISTS (SELECT 1 FROM name_words WHERE word LIKE $1::text ESCAPE '\\') \
                      OR EXISTS (SELECT 1 FROM name_word_changes WHERE names > 0 AND word LIKE $1::text ESCAPE '\\')";
        if !client.query_one(inside, &[&pattern]).await.map_err(unavailable)?.get::<_, bool>(0) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Holder, LeadQuery};

    fn by_name(part: &str) -> LeadQuery {
        LeadQuery {
            name_pattern: Some(format!("%{part}%")),
            phone: None,
            open_only: false,
            created_before: None,
            before_id: None,
            held: false,
            holder: Holder::Anyone,
            limit: 50,
        }
    }

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
            async move { store.find_leads(by_name(part)).await.unwrap().len() }
        };
        assert_eq!(found("шевч").await, 1, "a word still queued");
        assert_eq!(found("тарас").await, 2);
        assert_eq!(found("шевченкова").await, 0);

        fold(&store.pool, Fold::Waiting).await;
        assert_eq!(count("SELECT count(*) FROM name_word_changes").await, 0);
        assert_eq!(count("SELECT names FROM name_words WHERE word = 'тарас'").await, 2);
        assert_eq!(found("шевч").await, 1, "a word counted");
        store.close().await;
        client.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
    }
}

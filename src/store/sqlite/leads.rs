//! The visitor's leads: the insert (with its idempotency record and outbox rows), the pages of an
//! export, erasure, retention and release from quarantine.

use super::*;
use crate::store::{ExportedLead, IDEMPOTENCY_WINDOW};
use std::sync::atomic::Ordering;

impl SqliteStore {
    pub async fn insert(
        &self,
        leads: Vec<NewLead>,
        context: InsertContext,
        idempotency: Option<Idempotency>,
        now: jiff::Timestamp,
    ) -> Result<Vec<Stored>, StoreError> {
        self.write(move |conn| {
            // The request that recorded the key may have ended before its write was done (its
            // client gone), freeing the key for a retry that found no record: it stores nothing.
            if let Some(idempotency) = &idempotency {
                let since = format!("{:.6}", now - IDEMPOTENCY_WINDOW);
                let recorded = conn
                    .prepare_cached("SELECT 1 FROM idempotency_keys WHERE key = ?1 AND created_at >= ?2")?
                    .exists(params![idempotency.key, since])?;
                if recorded {
                    return Ok(None);
                }
            }
            insert_leads(conn, &leads, &context, idempotency.as_ref(), now).map(Some)
        })
        .await?
        .ok_or(StoreError::IdempotencyKeyTaken)
    }

    pub async fn purge_idempotency_keys(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        let before = format!("{before:.6}");
        self.write(move |conn| conn.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", [before]))
            .await
    }

    pub async fn idempotency_record(
        &self,
        key: &str,
        since: jiff::Timestamp,
    ) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let (key, since) = (key.to_owned(), format!("{since:.6}"));
        self.read(move |conn| {
            let record: Option<(String, String)> = conn
                .query_row(
                    "SELECT fingerprint, lead_ids FROM idempotency_keys WHERE key = ?1 AND created_at >= ?2",
                    params![key, since],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            Ok(record.map(|(fingerprint, ids)| (fingerprint, parse_ids(&ids))))
        })
        .await
    }

    pub async fn leads_by_ids(&self, ids: Vec<i64>) -> Result<Vec<Lead>, StoreError> {
        self.read(move |conn| leads_with_ids(conn, LEAD_COLUMNS, ids, lead_from)).await
    }

    pub async fn leads_after(&self, after_id: i64, limit: u32) -> Result<Vec<LeadRecord>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM \"CRN\" WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![after_id, limit], record_from)?;
            rows.collect()
        })
        .await
    }

    pub async fn export_span(&self) -> Result<Option<(i64, i64)>, StoreError> {
        self.read(|conn| {
            conn.query_row("SELECT min(id), max(id) FROM \"CRN\"", [], |row| {
                Ok(row.get::<_, Option<i64>>(0)?.zip(row.get::<_, Option<i64>>(1)?))
            })
        })
        .await
    }

    pub async fn export_page(&self, after_id: i64, through_id: i64) -> Result<Vec<ExportedLead>, StoreError> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, created_at, name, phone, confirmation, comment, status, reached_at, policy_version, \
                 repeat_of, held, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, \
                 first_call_at FROM \"CRN\" WHERE id > ?1 AND id <= ?2 ORDER BY id",
            )?;
            let rows = stmt.query_map(params![after_id, through_id], |row| {
                Ok(ExportedLead {
                    id: row.get(0)?,
                    created_at: row.get(1)?,
                    name: row.get(2)?,
                    phone: row.get(3)?,
                    confirmation: row.get(4)?,
                    comment: row.get(5)?,
                    status: status_of(&row.get::<_, String>(6)?),
                    reached_at: row.get(7)?,
                    policy_version: row.get(8)?,
                    repeat_of: row.get(9)?,
                    held: held_codes(row.get(10)?),
                    attribution: Attribution::from_values([
                        row.get(11)?,
                        row.get(12)?,
                        row.get(13)?,
                        row.get(14)?,
                        row.get(15)?,
                        row.get(16)?,
                    ]),
                    first_attempt_at: row.get(17)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn erase_phone(&self, phone_e164: String) -> Result<usize, StoreError> {
        let erased = self.delete_leads(PHONE_IN_ANY_MONTH.as_str(), phone_e164).await?;
        // Even one that found nothing: an earlier erasure, perhaps another process's, may have
        // left the number's rows in the WAL.
        self.truncation_owed.store(true, Ordering::Relaxed);
        Ok(erased)
    }

    pub async fn purge_leads(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("created_at < ?1", text(before)).await
    }

    pub async fn purge_held(&self, before: jiff::Timestamp) -> Result<usize, StoreError> {
        self.delete_leads("held IS NOT NULL AND created_at < ?1", text(before)).await
    }

    /// Truncates the WAL if a deletion left rows' copies in it. A deletion that deleted nothing
    /// leaves the WAL alone (a truncation blocks the writes while it copies), unless an earlier
    /// truncation found the database busy.
    pub async fn scrub_log(&self) -> Result<(), StoreError> {
        // Taken before the truncation: a deletion committed while it runs owes the next one.
        if self.truncation_owed.swap(false, Ordering::Relaxed) {
            self.checkpoint().await.inspect_err(|_| self.truncation_owed.store(true, Ordering::Relaxed))?;
        }
        Ok(())
    }

    pub async fn release(
        &self,
        id: i64,
        channels: std::sync::Arc<[Channel]>,
        duplicate_window: Option<std::time::Duration>,
        now: jiff::Timestamp,
        trail: AuditEntry,
    ) -> Result<bool, StoreError> {
        let window = window_back(duplicate_window, now);
        let now = text(now);
        self.write(move |conn| {
            let phone: Option<String> = conn
                .query_row("SELECT phone_e164 FROM \"CRN\" WHERE id = ?1 AND held IS NOT NULL", [id], |row| {
                    row.get(0)
                })
                .optional()?;
            let Some(phone) = phone else { return Ok(false) };
            // The person's open lead of the call list, as a lead sent now would find it: the
            // released one is its repeat, not a second lead to call the same person (ADR 0085).
            let first: Option<i64> = match &window {
                Some((since, months)) => conn
                    .prepare_cached(&FIND_FIRST)?
                    .query_row(params![phone, since, months], |row| row.get(0))
                    .optional()?,
                None => None,
            };
            // Released into the call list, a first lead is due at once, ordered by its deadline.
            conn.execute(
                &format!(
                    "UPDATE \"CRN\" SET held = NULL, call_back = 0, repeat_of = coalesce(repeat_of, ?3), \
                     next_call_at = CASE WHEN repeat_of IS NULL AND ?3 IS NULL AND status IN ({open}) \
                     THEN ?2 END WHERE id = ?1",
                    open = open_statuses_sql()
                ),
                params![id, now, first],
            )?;
            super::audit::append(conn, &trail, &now)?;
            if let Some(first) = first {
                let mut queue_wrote_again = conn.prepare_cached(&QUEUE_WROTE_AGAIN)?;
                for channel in channels.iter() {
                    queue_wrote_again.execute(params![first, now, channel.name()])?;
                }
                return Ok(true);
            }
            let mut queue = conn.prepare_cached(
                "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
                 VALUES (?1, ?4, ?2, ?3, ?3) ON CONFLICT (lead_id, event, channel) DO NOTHING",
            )?;
            for channel in channels.iter() {
                queue.execute(params![id, channel.name(), now, Event::New.name()])?;
            }
            Ok(true)
        })
        .await
    }

    /// Moves the WAL into the main file and empties it, so deleted (and zeroed) rows leave no
    /// copy behind in the WAL. A reader in the middle of a query (another process's, say) makes the
    /// checkpoint answer "busy" and leave the WAL as it is: tried again for a few seconds, then an
    /// error, never a quiet success with the bytes still there. A try holds the write lock while
    /// it waits for readers, so each waits `TRUNCATION_TRY` and no more: with the connection's
    /// own `LOCK_WAIT` the inserts stalled 5 s a try, 50 tries in a row.
    async fn checkpoint(&self) -> Result<(), StoreError> {
        const TRUNCATION_TRY: Duration = Duration::from_millis(50);
        let busy = self
            .read(|conn| {
                conn.busy_timeout(TRUNCATION_TRY)?;
                let tries = || {
                    for _ in 0..50 {
                        let busy: i64 =
                            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
                        if busy == 0 {
                            return Ok(false);
                        }
                        std::thread::sleep(TRUNCATION_TRY);
                    }
                    Ok(true)
                };
                let busy = tries();
                conn.busy_timeout(LOCK_WAIT)?;
                busy
            })
            .await?;
        if busy {
            return Err(StoreError::Unavailable(
                "the database is busy: the deleted rows may still be in its log; try again".into(),
            ));
        }
        Ok(())
    }

    /// Deletes the leads `condition` (with `?1` bound to `value`) picks and the repeats that name
    /// them, their calls and notifications (by cascade) and the idempotency records that name
    /// them, in writes of at most `DELETE_WRITE_TIME` each: each is a short transaction of its
    /// own, and the inserts queued meanwhile are written between two of them (ADR 0029, 0046).
    /// Returns how many went.
    async fn delete_leads(&self, condition: &'static str, value: String) -> Result<usize, StoreError> {
        let mut deleted = 0;
        loop {
            let value = value.clone();
            let started = Instant::now();
            let (gone, finished) = self.write(move |conn| delete_some(conn, condition, &value)).await?;
            deleted += gone;
            if gone > 0 {
                // The deleted rows' pages are in the WAL until it is truncated (`scrub_log`).
                self.truncation_owed.store(true, Ordering::Relaxed);
            }
            if finished {
                return Ok(deleted);
            }
            // The one writer is left twice as long to the inserts (and their commits and the WAL's
            // checkpoints) before the next write: a long purge takes at most a third of it, which
            // since the name index lost its positions deletes more than half did before (ADR 0065).
            tokio::time::sleep(started.elapsed() * 2).await;
        }
    }
}

/// How long one write of a purge or an erasure goes on deleting. A lead's name leaves FTS5's
/// segments page by page (secure-delete, ADR 0039): a millisecond or more per lead in a large
/// index, so a count of leads per write would not bound the wait of the inserts queued behind it.
const DELETE_WRITE_TIME: Duration = Duration::from_millis(10);

/// Leads picked at a time (with their repeats) while a write goes on.
const DELETE_PICK: usize = 100;

/// Deletes leads that `condition` picks, with their repeats, until none is left or the write has
/// run `DELETE_WRITE_TIME`: how many went, and whether none is left.
fn delete_some(conn: &Connection, condition: &str, value: &str) -> rusqlite::Result<(usize, bool)> {
    let started = Instant::now();
    let mut pick =
        conn.prepare_cached(&format!("SELECT id FROM \"CRN\" WHERE {condition} LIMIT {DELETE_PICK}"))?;
    // Chosen first: a cascade would delete a repeat without a RETURNING row to say so.
    let mut repeats = conn.prepare_cached("SELECT id FROM \"CRN\" WHERE repeat_of = ?1")?;
    let mut delete = conn.prepare_cached("DELETE FROM \"CRN\" WHERE id = ?1 RETURNING created_at")?;
    let (mut gone, mut sent) = (Vec::new(), Vec::<String>::new());
    let finished = 'write: loop {
        let picked: Vec<i64> = pick.query_map([value], |row| row.get(0))?.collect::<Result<_, _>>()?;
        for id in &picked {
            let named: Vec<i64> = repeats.query_map([id], |row| row.get(0))?.collect::<Result<_, _>>()?;
            // The repeats before their first lead: stopped between them, the next write picks
            // the first lead again.
            for id in named.iter().chain([id]) {
                // A repeat may have been picked, or named by another lead, already.
                if let Some(created_at) = delete.query_row([id], |row| row.get(0)).optional()? {
                    gone.push(*id);
                    sent.push(created_at);
                    super::names::unindex_deleted(conn)?;
                }
                if started.elapsed() >= DELETE_WRITE_TIME {
                    break 'write false;
                }
            }
        }
        if picked.len() < DELETE_PICK {
            break true;
        }
    };
    // One pass over the records for the whole write (`lead_ids` is a comma-separated list), only
    // over those written when these leads were: a record has its leads' `created_at`.
    if let (Some(first), Some(last)) = (sent.iter().min(), sent.iter().max()) {
        let ids_json = serde_json::to_string(&gone).expect("numbers");
        conn.prepare_cached(
            "DELETE FROM idempotency_keys WHERE created_at BETWEEN ?2 AND ?3 \
             AND EXISTS (SELECT 1 FROM json_each('[' || lead_ids || ']') AS named \
             WHERE named.value IN (SELECT value FROM json_each(?1)))",
        )?
        .execute(params![ids_json, first, last])?;
    }
    Ok((gone.len(), finished))
}

/// The leads of the number `?1`, looked for in each month that has leads (ADR 0060).
static PHONE_IN_ANY_MONTH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("id IN ({LEAD_MONTHS} {})", ids_in_each_month("CRN_month_phone", "phone_e164 = ?1"))
});

/// The open first lead of a phone since a time (`?2`), of which a new lead is a repeat: looked
/// for in the months of that window (`?3`, a JSON array of `YYYY-MM`), the first key of its index.
/// A person who writes again after their lead was closed asks anew: a lead of its own (ADR 0081).
/// Of two open ones (a closed lead called again), the newest.
static FIND_FIRST: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT id FROM \"CRN\" INDEXED BY \"CRN_month_phone\" \
         WHERE substr(created_at, 1, 7) IN (SELECT value FROM json_each(?3)) AND phone_e164 = ?1 \
         AND created_at >= ?2 AND repeat_of IS NULL AND held IS NULL AND status IN ({}) \
         ORDER BY id DESC LIMIT 1",
        open_statuses_sql()
    )
});
const INSERT_LEAD: &str = "INSERT INTO \"CRN\" \
     (created_at, name, phone, phone_e164, confirmation, comment, policy_version, repeat_of, held, \
      utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer, next_call_at, phone_reversed) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
      CASE WHEN ?8 IS NULL AND ?9 IS NULL THEN ?1 END, ?16) RETURNING id";
/// A repeat's "wrote again" notice on one channel (`?3`), in the insert's own transaction, so that
/// a repeat's answer costs no more writes than a first lead's: only for an open first lead (`?1`)
/// someone holds at `?2`, once per lead.
static QUEUE_WROTE_AGAIN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) \
         SELECT id, '{}', ?3, ?2, ?2 FROM \"CRN\" WHERE id = ?1 AND status IN ({}) \
         AND claimed_by IS NOT NULL AND (claimed_until IS NULL OR claimed_until > ?2) \
         ON CONFLICT (lead_id, event, channel) DO NOTHING",
        Event::WroteAgain.name(),
        open_statuses_sql()
    )
});

fn insert_leads(
    conn: &Connection,
    leads: &[NewLead],
    context: &InsertContext,
    idempotency: Option<&Idempotency>,
    now: jiff::Timestamp,
) -> rusqlite::Result<Vec<Stored>> {
    let created_at = format!("{now:.6}");
    let duplicates_since = window_back(context.duplicate_window, now);
    let mut find_first = conn.prepare_cached(&FIND_FIRST)?;
    let mut insert = conn.prepare_cached(INSERT_LEAD)?;
    let mut queue = conn.prepare_cached(
        "INSERT INTO outbox (lead_id, event, channel, created_at, next_attempt_at) VALUES (?1, ?4, ?2, ?3, ?3)",
    )?;
    let mut queue_wrote_again = conn.prepare_cached(&QUEUE_WROTE_AGAIN)?;
    let mut stored = Vec::with_capacity(leads.len());
    for lead in leads {
        let held = held_text(&lead.held);
        // A held lead stands alone: it must not make a person's real lead its repeat.
        let repeat_of: Option<i64> = match &duplicates_since {
            Some((since, months)) if held.is_none() => {
                find_first.query_row(params![lead.phone_e164, since, months], |row| row.get(0)).optional()?
            }
            _ => None,
        };
        let source = lead.attribution.values();
        let id = insert.query_row(
            params![
                created_at,
                lead.name,
                lead.phone,
                lead.phone_e164,
                lead.confirmation,
                lead.comment,
                &*context.policy_version,
                repeat_of,
                held,
                source[0],
                source[1],
                source[2],
                source[3],
                source[4],
                source[5],
                reversed(&lead.phone_e164),
            ],
            |row| row.get(0),
        )?;
        // A repeat's first lead was notified already: its holder is told the person wrote again.
        // A held lead is notified once released.
        match repeat_of {
            None if held.is_none() => {
                for channel in context.channels.iter() {
                    queue.execute(params![id, channel.name(), created_at, Event::New.name()])?;
                }
            }
            None => {}
            Some(first) => {
                for channel in context.channels.iter() {
                    queue_wrote_again.execute(params![first, created_at, channel.name()])?;
                }
            }
        }
        stored.push(Stored { lead: lead.stored_as(id, created_at.clone()), repeat_of });
    }
    if let Some(idempotency) = idempotency {
        // With its leads' `created_at`: an erasure or a purge finds the record by it (ADR 0046).
        let ids = stored.iter().map(|row| row.lead.id.to_string()).collect::<Vec<_>>().join(",");
        conn.prepare_cached(
            "INSERT INTO idempotency_keys (key, fingerprint, lead_ids, created_at) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (key) DO NOTHING",
        )?
        .execute(params![idempotency.key, idempotency.fingerprint, ids, created_at])?;
    }
    Ok(stored)
}

/// The duplicate window back from `now`, as `FIND_FIRST` takes it: its start, in the text format
/// of `created_at` (so that comparing the text compares the times), and its months.
fn window_back(window: Option<std::time::Duration>, now: jiff::Timestamp) -> Option<(String, String)> {
    let since = now.checked_sub(jiff::SignedDuration::try_from(window?).ok()?).ok()?;
    Some((format!("{since:.6}"), months_from(since, now)))
}

/// The months (UTC) from `since`'s to `until`'s, as a JSON array of the `YYYY-MM` that begins a
/// `created_at` in them.
fn months_from(since: jiff::Timestamp, until: jiff::Timestamp) -> String {
    let month = |at: jiff::Timestamp| at.to_zoned(jiff::tz::TimeZone::UTC).date().first_of_month();
    let (mut month, last) = (month(since), month(until));
    let mut months = Vec::new();
    while month <= last {
        months.push(format!("\"{:04}-{:02}\"", month.year(), month.month()));
        let Ok(next) = month.checked_add(jiff::Span::new().months(1)) else { break };
        month = next;
    }
    format!("[{}]", months.join(","))
}

/// `lead_ids` as written by `insert_leads`.
fn parse_ids(ids: &str) -> Vec<i64> {
    ids.split(',').filter_map(|id| id.parse().ok()).collect()
}

fn lead_from(row: &rusqlite::Row) -> rusqlite::Result<Lead> {
    Ok(Lead {
        id: row.get(0)?,
        created_at: row.get(1)?,
        name: row.get(2)?,
        phone: row.get(3)?,
        confirmation: row.get(4)?,
        comment: row.get(5)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lead::LeadInput;

    fn context(duplicate_window: Option<std::time::Duration>) -> InsertContext {
        InsertContext { channels: Vec::new().into(), policy_version: "test".into(), duplicate_window }
    }

    /// Leads as a visitor sends them, `(name, phone)` each, checked by the form's rules.
    fn leads(sent: &[(&str, &str)]) -> Vec<NewLead> {
        sent.iter()
            .map(|(name, phone)| {
                let input = LeadInput {
                    name: Some((*name).into()),
                    phone: Some((*phone).into()),
                    confirmation: Some("Так".into()),
                    ..LeadInput::default()
                };
                input.validate().unwrap()
            })
            .collect()
    }

    /// A batch's statements are prepared once, not again for each lead's values (issue 32).
    #[tokio::test]
    async fn an_insert_is_not_prepared_again_for_every_lead() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        let context = context(Some(std::time::Duration::from_secs(86_400)));
        let leads =
            leads(&[("Олена", "067 123 45 67"), ("Олена", "067 123 45 68"), ("Олена", "050 123 45 67")]);
        let now: jiff::Timestamp = "2026-11-26T12:00:00Z".parse().unwrap();
        let reprepared = store
            .write(move |conn| {
                insert_leads(conn, &leads, &context, None, now)?;
                let count = |sql| {
                    conn.prepare_cached(sql).map(|s| s.get_status(rusqlite::StatementStatus::RePrepare))
                };
                Ok((count(&FIND_FIRST)?, count(INSERT_LEAD)?))
            })
            .await
            .unwrap();
        assert_eq!(reprepared, (0, 0));
    }

    /// A write's names reach the trigram index at its commit, once, and the name of a lead deleted
    /// in the write that stored it never does (migrations 0023, 0027).
    #[tokio::test]
    async fn names_are_indexed_at_the_commit_and_a_lead_gone_before_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("leads.db")).unwrap();
        let context = context(None);
        let leads = leads(&[("Олена Коваленко", "067 123 45 67"), ("Марія Коваленко", "050 123 45 67")]);
        let now: jiff::Timestamp = "2026-11-27T12:00:00Z".parse().unwrap();
        let kept = store
            .write(move |conn| {
                let stored = insert_leads(conn, &leads, &context, None, now)?;
                conn.execute("DELETE FROM \"CRN\" WHERE id = ?1", [stored[0].lead.id])?;
                Ok(stored[1].lead.id)
            })
            .await
            .unwrap();
        let (found, queued) = store
            .read(|conn| {
                let found: Vec<i64> = conn
                    .prepare("SELECT rowid FROM lead_names_0 WHERE lead_names_0 MATCH '\"ков\" AND \"нко\"'")?
                    .query_map([], |row| row.get(0))?
                    .collect::<Result<_, _>>()?;
                let queued: i64 =
                    conn.query_row("SELECT count(*) FROM names_to_index", [], |row| row.get(0))?;
                Ok((found, queued))
            })
            .await
            .unwrap();
        assert_eq!((found, queued), (vec![kept], 0));
        // The index is whole: FTS5 checks its segments against themselves.
        store
            .write(|conn| {
                conn.execute(
                    "INSERT INTO lead_names_0 (lead_names_0, rank) VALUES ('integrity-check', 0)",
                    [],
                )
            })
            .await
            .unwrap();
    }

    /// A truncation of the WAL that found the database busy (a command's export still reading)
    /// leaves deleted rows' copies in the WAL; the next one truncates it, though nothing more was
    /// deleted, and one owing nothing leaves the WAL alone.
    #[tokio::test]
    async fn a_truncation_that_found_the_log_busy_is_owed_to_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leads.db");
        let store = SqliteStore::open(&path).unwrap();
        let sent: jiff::Timestamp = "2026-01-10T12:00:00Z".parse().unwrap();
        let context = context(None);
        let leads = leads(&[("Олена Коваленко", "067 123 45 67"), ("Марія Шевчук", "050 123 45 67")]);
        store.write(move |conn| insert_leads(conn, &leads, &context, None, sent)).await.unwrap();
        let wal_bytes = || std::fs::metadata(dir.path().join("leads.db-wal")).map_or(0, |m| m.len());

        // Another connection reads from an older snapshot, as `zayavka leads export` does.
        let export = Connection::open(&path).unwrap();
        export.execute_batch("BEGIN; SELECT count(*) FROM \"CRN\";").unwrap();
        let after = "2026-06-01T00:00:00Z".parse().unwrap();
        assert_eq!(store.purge_leads(after).await.unwrap(), 2);
        let busy = store.scrub_log().await;
        assert!(matches!(busy, Err(StoreError::Unavailable(_))), "{busy:?}");
        assert!(wal_bytes() > 0, "the deleted rows' pages are in the WAL");
        export.execute_batch("COMMIT").unwrap();

        assert_eq!(store.purge_leads(after).await.unwrap(), 0);
        store.scrub_log().await.unwrap();
        assert_eq!(wal_bytes(), 0, "the WAL was truncated");
        // Owing nothing, a purge that deletes nothing does not truncate.
        store.write(|conn| conn.execute("CREATE TABLE later (x)", [])).await.unwrap();
        assert_eq!(store.purge_held(after).await.unwrap(), 0);
        store.scrub_log().await.unwrap();
        assert!(wal_bytes() > 0);
    }
}

-- Month twelve: every operator read reads what it shows, not the whole table.
--
-- The inbox's figures, kept as leads change, per hour of sending (UTC, `YYYY-MM-DDTHH`): a
-- request sums hours (at most 24 a day kept), never rows. The triggers that keep them and their
-- first filling are made by the store when it opens (src/store/sqlite/counters.rs), from the rules
-- in Rust (the 48 hours, the open statuses, the outcomes that reach a person), never written here.
-- Of the call list's first leads: all, open, reached, reached within the promise; and the held leads.
CREATE TABLE lead_hours (
    hour            TEXT PRIMARY KEY,
    leads           INTEGER NOT NULL DEFAULT 0,
    open            INTEGER NOT NULL DEFAULT 0,
    reached         INTEGER NOT NULL DEFAULT 0,
    reached_in_time INTEGER NOT NULL DEFAULT 0,
    held            INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- The same first leads per source ('' where the lead has no utm_source or referrer).
CREATE TABLE source_hours (
    hour            TEXT NOT NULL,
    utm_source      TEXT NOT NULL,
    referrer        TEXT NOT NULL,
    leads           INTEGER NOT NULL DEFAULT 0,
    reached_in_time INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (hour, utm_source, referrer)
) WITHOUT ROWID;
-- Calls per hour of the call and operator; `reached`: leads their call reached within the promise.
CREATE TABLE operator_hours (
    hour     TEXT NOT NULL,
    operator TEXT NOT NULL,
    calls    INTEGER NOT NULL DEFAULT 0,
    reached  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (hour, operator)
) WITHOUT ROWID;
-- 1 on the operator's first call that reached the lead within the promise (counted once).
ALTER TABLE call_attempts ADD COLUMN counts_reached INTEGER NOT NULL DEFAULT 0;

-- The lists read an index of their own leads, newest first: the leads to call (those with a next
-- call: open first leads of the call list), an operator's leads to call, and the held leads.
-- Without statistics (this store runs no ANALYZE) SQLite took the status index for those lists and
-- sorted every open lead; no query needs it now.
DROP INDEX "CRN_status";
CREATE INDEX "CRN_to_call" ON "CRN" (id) WHERE next_call_at IS NOT NULL;
CREATE INDEX "CRN_to_call_by" ON "CRN" (claimed_by, id) WHERE next_call_at IS NOT NULL;
CREATE INDEX "CRN_held_id" ON "CRN" (id) WHERE held IS NOT NULL;
-- The call-next list in its order (call-backs first, by their time; then by the time of sending),
-- so a page reads about a page of leads, not every lead due.
CREATE INDEX "CRN_call_order" ON "CRN"
    (call_back DESC, (CASE WHEN call_back THEN next_call_at ELSE created_at END), id)
    WHERE next_call_at IS NOT NULL;
-- Search by part of a name (folded as `inbox::fold`) or of the phone: trigrams, so a part
-- anywhere in the text is found from the index. Contentless: it keeps no copy of the text.
CREATE VIRTUAL TABLE lead_search USING fts5(
    name, phone, content = '', contentless_delete = 1, tokenize = 'trigram'
);
INSERT INTO lead_search (rowid, name, phone) SELECT id, zayavka_fold(name), phone_e164 FROM "CRN";
CREATE TRIGGER lead_search_insert AFTER INSERT ON "CRN" BEGIN
    INSERT INTO lead_search (rowid, name, phone) VALUES (NEW.id, zayavka_fold(NEW.name), NEW.phone_e164);
END;
CREATE TRIGGER lead_search_delete AFTER DELETE ON "CRN" BEGIN
    DELETE FROM lead_search WHERE rowid = OLD.id;
END;

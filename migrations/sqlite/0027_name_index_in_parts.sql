-- Issue 32, targets 3 and 4 (ADR 0067): the name index in parts of 100,000 lead ids.
--
-- FTS5 merges a trigram's whole list in one step, so in one index of every name a step that met a
-- trigram most names share held the writer longer as the table grew: 117-128 ms at 1.1 M names
-- (bench/name-merges.sh), none over 15 ms at 100,000. Each part is an FTS5 table of its own,
-- `lead_names_<id / 100000>`, made by the writer when its first name comes; `lead_name_parts`
-- lists them. A part is dropped once none of its leads is left.
--
-- A trigger cannot name a table it only knows at run time, so both triggers only queue: an
-- insert queues its lead's id (migration 0023), a delete its lead's id and folded name, which the
-- writer takes out of the lead's part before the same commit (`secure-delete`, as before). A lead
-- deleted in the write that queued it was never indexed: it leaves the queue only.
CREATE TABLE lead_name_parts (part INTEGER PRIMARY KEY);
CREATE TABLE names_to_unindex (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
DROP TRIGGER lead_search_insert;
CREATE TRIGGER lead_names_insert AFTER INSERT ON "CRN" BEGIN
    INSERT INTO names_to_index (id) VALUES (NEW.id);
END;
DROP TRIGGER lead_search_delete;
CREATE TRIGGER lead_names_delete AFTER DELETE ON "CRN" BEGIN
    INSERT INTO names_to_unindex (id, name) SELECT OLD.id, zayavka_fold(OLD.name)
    WHERE NOT EXISTS (SELECT 1 FROM names_to_index WHERE id = OLD.id);
    DELETE FROM names_to_index WHERE id = OLD.id;
END;
-- The one index is dropped and every lead queued: the store indexes them into their parts once,
-- when it opens, before it answers.
DROP TABLE lead_search;
INSERT INTO names_to_index (id) SELECT id FROM "CRN";

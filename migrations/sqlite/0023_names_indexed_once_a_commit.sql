-- Issue 32: an insert's name went into the FTS5 trigram index in the insert's own savepoint, and
-- FTS5 writes a new segment whenever a savepoint ends: a segment per insert, and one insert in
-- about 64 paid for a merge of `64 × levels` pages. The insert now only queues its lead; the
-- writer indexes the queued names in one statement just before each commit, so a commit writes
-- one segment however many inserts it holds (ADR 0047). The queue is empty after every commit.
CREATE TABLE names_to_index (id INTEGER PRIMARY KEY);
DROP TRIGGER lead_search_insert;
CREATE TRIGGER lead_search_insert AFTER INSERT ON "CRN" BEGIN
    INSERT INTO names_to_index (id) VALUES (NEW.id);
END;
-- A lead deleted in the write that queued it was never indexed: it leaves the queue only.
DROP TRIGGER lead_search_delete;
CREATE TRIGGER lead_search_delete AFTER DELETE ON "CRN" BEGIN
    INSERT INTO lead_search (lead_search, rowid, name)
    SELECT 'delete', OLD.id, zayavka_fold(OLD.name)
    WHERE NOT EXISTS (SELECT 1 FROM names_to_index WHERE id = OLD.id);
    DELETE FROM names_to_index WHERE id = OLD.id;
END;

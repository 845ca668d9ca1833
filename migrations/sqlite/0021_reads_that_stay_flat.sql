-- Issue 32: the operator reads that still grew with the table (ADR 0039).
--
-- Overdue leads: the leads to call by time of sending, so the list starts where overdue starts
-- (the cut-off, now − 48 h, is a parameter) instead of passing over the newest open leads.
CREATE INDEX "CRN_to_call_sent" ON "CRN" (created_at, id) WHERE next_call_at IS NOT NULL;

-- Search by phone: by the number's start (`CRN_phone_e164`) or its end, read from the reversed
-- number's index, so a search reads the numbers that match, not every number sharing its digits.
CREATE INDEX "CRN_phone_reversed" ON "CRN" (zayavka_reverse(phone_e164));

-- The trigram index keeps names only (phones have their indexes above). A deleted lead's
-- trigrams leave the index at once: the delete names the text that was indexed (FTS5's 'delete'
-- of a contentless table), and `secure-delete` removes those entries from the segments instead
-- of adding markers (contentless_delete's tombstones left the trigrams in the segments until a
-- merge). The index is made again with the rows.
DROP TRIGGER lead_search_insert;
DROP TRIGGER lead_search_delete;
DROP TABLE lead_search;
CREATE VIRTUAL TABLE lead_search USING fts5(name, content = '', tokenize = 'trigram');
INSERT INTO lead_search (lead_search, rank) VALUES ('secure-delete', 1);
INSERT INTO lead_search (rowid, name) SELECT id, zayavka_fold(name) FROM "CRN";
CREATE TRIGGER lead_search_insert AFTER INSERT ON "CRN" BEGIN
    INSERT INTO lead_search (rowid, name) VALUES (NEW.id, zayavka_fold(NEW.name));
END;
CREATE TRIGGER lead_search_delete AFTER DELETE ON "CRN" BEGIN
    INSERT INTO lead_search (lead_search, rowid, name) VALUES ('delete', OLD.id, zayavka_fold(OLD.name));
END;

-- The breakdown's 30 days as days (UTC, `YYYY-MM-DD`): the hourly counters summed per day, kept by
-- triggers on the hourly rows themselves (whatever writes an hour, a lead, a call or the store's
-- recount, writes its day), so the breakdown reads a row per day and source, not per hour.
CREATE TABLE source_days (
    day             TEXT NOT NULL,
    utm_source      TEXT NOT NULL,
    referrer        TEXT NOT NULL,
    leads           INTEGER NOT NULL DEFAULT 0,
    reached_in_time INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, utm_source, referrer)
) WITHOUT ROWID;
CREATE TABLE operator_days (
    day      TEXT NOT NULL,
    operator TEXT NOT NULL,
    calls    INTEGER NOT NULL DEFAULT 0,
    reached  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, operator)
) WITHOUT ROWID;
INSERT INTO source_days (day, utm_source, referrer, leads, reached_in_time)
SELECT substr(hour, 1, 10), utm_source, referrer, sum(leads), sum(reached_in_time)
FROM source_hours GROUP BY 1, 2, 3;
INSERT INTO operator_days (day, operator, calls, reached)
SELECT substr(hour, 1, 10), operator, sum(calls), sum(reached) FROM operator_hours GROUP BY 1, 2;
CREATE TRIGGER source_days_insert AFTER INSERT ON source_hours BEGIN
    INSERT INTO source_days (day, utm_source, referrer, leads, reached_in_time)
    VALUES (substr(NEW.hour, 1, 10), NEW.utm_source, NEW.referrer, NEW.leads, NEW.reached_in_time)
    ON CONFLICT (day, utm_source, referrer) DO UPDATE SET leads = leads + excluded.leads,
        reached_in_time = reached_in_time + excluded.reached_in_time;
END;
CREATE TRIGGER source_days_update AFTER UPDATE ON source_hours BEGIN
    UPDATE source_days SET leads = leads + NEW.leads - OLD.leads,
        reached_in_time = reached_in_time + NEW.reached_in_time - OLD.reached_in_time
    WHERE day = substr(OLD.hour, 1, 10) AND utm_source = OLD.utm_source AND referrer = OLD.referrer;
END;
CREATE TRIGGER source_days_delete AFTER DELETE ON source_hours BEGIN
    UPDATE source_days SET leads = leads - OLD.leads, reached_in_time = reached_in_time - OLD.reached_in_time
    WHERE day = substr(OLD.hour, 1, 10) AND utm_source = OLD.utm_source AND referrer = OLD.referrer;
END;
CREATE TRIGGER operator_days_insert AFTER INSERT ON operator_hours BEGIN
    INSERT INTO operator_days (day, operator, calls, reached)
    VALUES (substr(NEW.hour, 1, 10), NEW.operator, NEW.calls, NEW.reached)
    ON CONFLICT (day, operator) DO UPDATE SET calls = calls + excluded.calls, reached = reached + excluded.reached;
END;
CREATE TRIGGER operator_days_update AFTER UPDATE ON operator_hours BEGIN
    UPDATE operator_days SET calls = calls + NEW.calls - OLD.calls, reached = reached + NEW.reached - OLD.reached
    WHERE day = substr(OLD.hour, 1, 10) AND operator = OLD.operator;
END;
CREATE TRIGGER operator_days_delete AFTER DELETE ON operator_hours BEGIN
    UPDATE operator_days SET calls = calls - OLD.calls, reached = reached - OLD.reached
    WHERE day = substr(OLD.hour, 1, 10) AND operator = OLD.operator;
END;

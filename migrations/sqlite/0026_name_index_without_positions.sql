-- Issue 32, target 3 (ADR 0065): the name index keeps which names hold a trigram, nothing more.
--
-- A search asks for each trigram of the part typed and the LIKE beside it decides, so the
-- positions FTS5 kept with every entry were never needed (`detail = 'none'`), nor each name's
-- length in trigrams, a row per lead that only ranking reads (`columnsize = 0`). The positions
-- made each trigram's list about three times longer, and FTS5 merges a trigram's list in one
-- step: for a trigram in most names ("енк", "нко" of "-енко") a step held the writer 68–82 ms at
-- 2 M leads. Erasure is unchanged: `secure-delete` takes a deleted name's entries out of the
-- segments at once.
--
-- The index is made again from the leads; the writer indexes the queued names before every
-- commit, so none is queued here.
DROP TABLE lead_search;
CREATE VIRTUAL TABLE lead_search USING fts5(
    name, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0
);
INSERT INTO lead_search (lead_search, rank) VALUES ('secure-delete', 1);
INSERT INTO lead_search (rowid, name) SELECT id, zayavka_fold(name) FROM "CRN";

-- Issue 32, target 2 (ADR 0078): the leads listed under each piece of their names, newest first,
-- so that a name search reads the newest page of the leads whose names hold its text, not every
-- such lead. The name index's GIN scan reads the lists of each of the text's trigrams, however
-- common: "тарас шевченко", found in some 3,500 of 2 M leads, took 63–91 ms against 2.5–4.7 ms
-- at 20 k (bench/RESULTS.md, 3 Dec 19:31).
--
-- A lead is listed under each two adjacent words of its name, or under its one word: every word
-- of a name is inside one of those, and so is every text the name holds.
CREATE TABLE name_piece_leads (
    piece   text COLLATE "C" NOT NULL,
    lead_id bigint NOT NULL
);

-- The pieces a name is listed under, each once, folded as `zayavka_words_and_pairs_of` folds them.
CREATE FUNCTION zayavka_listed_pieces_of(name text) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT unnest(CASE WHEN cardinality(words) = 1 THEN words
        ELSE (SELECT array_agg(words[i] || ' ' || words[i + 1]) FROM generate_series(1, cardinality(words) - 1) AS i) END)
    FROM (SELECT array_remove(string_to_array(translate(lower(name), 'ʼ’`', repeat(chr(39), 3)), ' '), '')) AS folded(words)
$$;
-- Names are never changed, only stored and deleted (erasure, purge).
CREATE FUNCTION zayavka_name_pieces_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_piece_leads (piece, lead_id)
    SELECT piece, id FROM new_rows, zayavka_listed_pieces_of(name) AS piece;
    RETURN NULL;
END $$;
CREATE FUNCTION zayavka_name_pieces_unlisted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM name_piece_leads AS listed
    USING old_rows, zayavka_listed_pieces_of(old_rows.name) AS unlisted(piece)
    WHERE listed.piece = unlisted.piece AND listed.lead_id = old_rows.id;
    RETURN NULL;
END $$;
CREATE TRIGGER name_piece_leads_insert AFTER INSERT ON "CRN" REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_pieces_listed();
CREATE TRIGGER name_piece_leads_delete AFTER DELETE ON "CRN" REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_pieces_unlisted();

-- The stored names listed in the migration's transaction, the key built once after them.
INSERT INTO name_piece_leads (piece, lead_id) SELECT piece, id FROM "CRN", zayavka_listed_pieces_of(name) AS piece;
ALTER TABLE name_piece_leads ADD PRIMARY KEY (piece, lead_id);
-- Its statistics at once: the planner then reads a list by its key, even where autovacuum is off.
ANALYZE name_piece_leads;

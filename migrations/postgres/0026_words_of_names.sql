-- Issue 32, target 2 (ADR 0076): the words of every name (its runs between spaces, folded as the
-- name index folds them), and how often names hold each. A name holding a text holds each word of
-- the text inside one of its own words, so a search one of whose words is inside no name's word
-- finds nothing: one look into this small table, not a read of the name index's lists of a text's
-- common trigrams (35 ms at 2 M leads for "шевченкова", bench/RESULTS.md, 3 Dec).
--
-- Kept by a trigger in the transaction that stores or deletes the names; a word no name holds any
-- more leaves, so an erased name leaves no trace here. Each write takes its words' rows in the
-- words' order, so two writes that share words never wait for each other in a circle.
CREATE TABLE name_words (
    word  text PRIMARY KEY,
    names bigint NOT NULL
);
DO $$
DECLARE
    trigrams TEXT := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm');
BEGIN
    EXECUTE format('CREATE INDEX name_words_trigrams ON name_words USING gin (word %s.gin_trgm_ops)', trigrams);
END $$;
-- The words of a name, folded as the name index folds it: each run between spaces (U+0020 only).
CREATE FUNCTION zayavka_words_of(name text) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
    SELECT word FROM regexp_split_to_table(translate(lower(name), 'ʼ’`', repeat(chr(39), 3)), ' ') AS word
    WHERE word <> ''
$$;
CREATE FUNCTION zayavka_name_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_words (word, names)
    SELECT word, count(*) FROM new_rows, zayavka_words_of(name) AS word GROUP BY word ORDER BY word
    ON CONFLICT (word) DO UPDATE SET names = name_words.names + excluded.names;
    RETURN NULL;
END $$;
CREATE FUNCTION zayavka_name_words_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    gone_words text[];
    gone_names bigint[];
BEGIN
    SELECT array_agg(word ORDER BY word), array_agg(names ORDER BY word) INTO gone_words, gone_names
    FROM (SELECT word, count(*) AS names FROM old_rows, zayavka_words_of(name) AS word GROUP BY word) AS gone;
    PERFORM 1 FROM name_words WHERE word = ANY (gone_words) ORDER BY word FOR UPDATE;
    UPDATE name_words SET names = name_words.names - gone.names
    FROM unnest(gone_words, gone_names) AS gone (word, names) WHERE name_words.word = gone.word;
    DELETE FROM name_words WHERE word = ANY (gone_words) AND names <= 0;
    RETURN NULL;
END $$;
CREATE TRIGGER name_words_insert AFTER INSERT ON "CRN" REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_words_added();
CREATE TRIGGER name_words_delete AFTER DELETE ON "CRN" REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_words_deleted();
-- The names stored until now, in the migration's transaction.
INSERT INTO name_words (word, names)
SELECT word, count(*) FROM "CRN", zayavka_words_of(name) AS word GROUP BY word;

-- Issue 32, target 2 (ADR 0076): the words of every name (its runs between spaces, folded as the
-- name index folds them), and how many names hold each. A name holding a text holds each word of
-- the text inside one of its own words, so a search one of whose words is inside no name's word
-- finds nothing: one look into this small table, not a read of the name index's lists of a text's
-- common trigrams (35–76 ms at 2 M leads for "шевченкова", bench/RESULTS.md, 3 Dec).
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

-- What the transactions that store or delete names change in those counts, queued: they only
-- insert here, so they take no lock that another could wait for, however many write side by side
-- and in however many statements (a table of counts kept by each transaction deadlocked them).
-- `zayavka_fold_name_words` adds the queue into `name_words`, one transaction at a time.
CREATE TABLE name_word_changes (
    word  text NOT NULL,
    names integer NOT NULL
);

-- The words of a name, folded as the name index folds it: each run between spaces (U+0020 only,
-- as `store::search::words` divides a text).
CREATE FUNCTION zayavka_words_of(name text) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
    SELECT word FROM unnest(string_to_array(translate(lower(name), 'ʼ’`', repeat(chr(39), 3)), ' ')) AS word
    WHERE word <> ''
$$;
CREATE FUNCTION zayavka_name_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_word_changes (word, names)
    SELECT word, count(*) FROM new_rows, zayavka_words_of(name) AS word GROUP BY word;
    RETURN NULL;
END $$;
CREATE FUNCTION zayavka_name_words_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_word_changes (word, names)
    SELECT word, -count(*) FROM old_rows, zayavka_words_of(name) AS word GROUP BY word;
    RETURN NULL;
END $$;
CREATE TRIGGER name_words_insert AFTER INSERT ON "CRN" REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_words_added();
CREATE TRIGGER name_words_delete AFTER DELETE ON "CRN" REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION zayavka_name_words_deleted();

-- Adds the changes queued and committed so far into the counts, in one transaction, and says how
-- many it took; a word no name holds any more leaves, so an erased name leaves no trace. One fold
-- at a time: with `wait` (an erasure, whose words must be gone when it returns) it waits for the
-- one folding now; without (an insert), it leaves the queue to that one and to the next fold. Its
-- commit need not wait for the disk: should a crash lose it, the queue it took is back with it.
CREATE FUNCTION zayavka_fold_name_words(wait boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    taken bigint;
    gone text[];
BEGIN
    -- The two-key form: a space of its own, apart from the one-key locks (phones, migrations).
    IF wait THEN
        PERFORM pg_advisory_xact_lock(2026, 76);
    ELSIF NOT pg_try_advisory_xact_lock(2026, 76) THEN
        RETURN 0;
    END IF;
    PERFORM set_config('synchronous_commit', 'off', true);
    WITH taken AS (DELETE FROM name_word_changes RETURNING word, names),
         summed AS (SELECT word, sum(names) AS names, count(*) AS changes FROM taken GROUP BY word),
         kept AS (INSERT INTO name_words AS counted (word, names)
                  SELECT word, names FROM summed WHERE names <> 0
                  ON CONFLICT (word) DO UPDATE SET names = counted.names + excluded.names
                  RETURNING word, names)
    SELECT (SELECT coalesce(sum(changes), 0) FROM summed), (SELECT array_agg(word) FROM kept WHERE names <= 0)
    INTO taken, gone;
    DELETE FROM name_words WHERE word = ANY (gone);
    RETURN taken;
END $$;

-- The names stored until now, in the migration's transaction.
INSERT INTO name_words (word, names)
SELECT word, count(*) FROM "CRN", zayavka_words_of(name) AS word GROUP BY word;

-- Issue 32, target 2 (ADR 0077): the words of names count each two adjacent words of a name as one
-- piece too ("тарас шевченко"). A name holding a text holds each two adjacent words of the text
-- inside one of its pairs, so "шевченко тарас", whose words are each in many names but in that
-- order in none, finds nothing after one look here, not after the name index reads and checks
-- every Тарас Шевченко (65–88 ms at 2 M leads, bench/RESULTS.md, 3 Dec 19:31).

-- The words of a name and its pairs of adjacent words, folded as the name index folds it: each
-- run between spaces (U+0020 only, as `store::search::words` divides a text), and each two runs
-- in a row joined by one space.
CREATE FUNCTION zayavka_words_and_pairs_of(name text) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
    SELECT unnest(words || (SELECT array_agg(words[i] || ' ' || words[i + 1]) FROM generate_series(1, cardinality(words) - 1) AS i))
    FROM (SELECT array_remove(string_to_array(translate(lower(name), 'ʼ’`', repeat(chr(39), 3)), ' '), '')) AS folded(words)
$$;
CREATE OR REPLACE FUNCTION zayavka_name_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_word_changes (word, names)
    SELECT piece, count(*) FROM new_rows, zayavka_words_and_pairs_of(name) AS piece GROUP BY piece;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION zayavka_name_words_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO name_word_changes (word, names)
    SELECT piece, -count(*) FROM old_rows, zayavka_words_and_pairs_of(name) AS piece GROUP BY piece;
    RETURN NULL;
END $$;
DROP FUNCTION zayavka_words_of(text);

-- Counted again from the stored names, in the migration's transaction; what was queued is in them.
TRUNCATE name_words, name_word_changes;
INSERT INTO name_words (word, names)
SELECT piece, count(*) FROM "CRN", zayavka_words_and_pairs_of(name) AS piece GROUP BY piece;

-- Issue 32, target 2 (ADR 0076): the words of every name (its runs between spaces), and in how
-- many names each is. A name holding a text holds each word of the text inside one of its own, so
-- a search one of whose words is inside no name's word finds nothing: one look into this table,
-- not into each part of the name index. The writer keeps the counts in the commit that indexes or
-- deletes a name; a word no name holds any more leaves, so an erased name leaves no trace.
CREATE TABLE name_words (
    id    INTEGER PRIMARY KEY,
    word  TEXT NOT NULL UNIQUE,
    names INTEGER NOT NULL
);
-- The words' trigrams, to find the words a text's word is inside.
CREATE VIRTUAL TABLE name_words_trigrams USING fts5(
    word, content = 'name_words', content_rowid = 'id', tokenize = 'trigram', detail = 'none'
);
INSERT INTO name_words_trigrams (name_words_trigrams, rank) VALUES ('secure-delete', 1);
-- The names stored before this migration are counted once, when the store opens
-- (`name_words::count_left`).
CREATE TABLE name_words_to_count (migration INTEGER PRIMARY KEY);
INSERT INTO name_words_to_count (migration) VALUES (30);

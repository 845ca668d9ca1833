-- Issue 32, target 2 (ADR 0077): the words of names count each two adjacent words of a name as one
-- piece too ("тарас шевченко"). A name holding a text holds each two adjacent words of the text
-- inside one of its pairs, so "шевченко тарас", whose words are each in many names but in that
-- order in none, finds nothing after one look here, not after reading every Тарас Шевченко.
-- Counted again from the stored names, pairs and words, once, when the store opens
-- (`name_words::count_left`).
DELETE FROM name_words;
INSERT INTO name_words_trigrams (name_words_trigrams) VALUES ('delete-all');
INSERT INTO name_words_to_count (migration) VALUES (31);

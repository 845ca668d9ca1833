-- Issue 32, target 2 (ADR 0075): a name search that finds nothing skips the closed parts of the
-- name index that cannot hold its text. For each closed part, the trigrams its names hold, and in
-- how many of them: a part is asked only if it holds every trigram of the text searched for. The
-- writer counts a closed part's names in steps while no write waits, and keeps the counts as names
-- come and go, so an erased name leaves its trigrams too.
--
-- `trigrams_below`: the part's names with lower ids are counted (NULL: not begun). A part is
-- skipped only once every one of its ids is below it.
ALTER TABLE lead_name_parts ADD COLUMN trigrams_below INTEGER;
--
-- Keyed by part first, so that a part's rows lie together: counting a part writes the pages of its
-- own rows, not pages across every part's.
CREATE TABLE name_part_trigrams (
    part    INTEGER NOT NULL,
    trigram TEXT NOT NULL,
    names   INTEGER NOT NULL,
    PRIMARY KEY (part, trigram)
) WITHOUT ROWID;

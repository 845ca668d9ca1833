-- Issue 32, target 4 (ADR 0060): an insert's phone keys go where the month's leads are.
--
-- A number's indexes were keyed by the number alone, so each new lead took a random place in two
-- indexes of the whole table (49 MB each at 2 M leads): every commit dirtied pages all over them,
-- and inserts slowed as the table grew. Keyed by the month of sending first (UTC, `YYYY-MM`, the
-- first seven characters of `created_at`), a new lead's keys fall among this month's leads only:
-- the end of each index, of a size set by a month's leads, not by the table's. A read of a number
-- looks in each month that has leads: the duplicate lookup in the months of its window, the search
-- and the erasure in every month, found one seek a month through the same index.
--
-- The reversed number is kept as a column, written by the insert, rather than computed by the
-- index: an index on the month calls nothing but SQLite's own functions, so a connection without
-- the store's functions (a test's, an operator's `sqlite3`) can still change a lead's time.
DROP INDEX "CRN_phone_e164";
DROP INDEX "CRN_phone_reversed";
ALTER TABLE "CRN" ADD COLUMN phone_reversed TEXT;
UPDATE "CRN" SET phone_reversed = zayavka_reverse(phone_e164);
CREATE INDEX "CRN_month_phone" ON "CRN" (substr(created_at, 1, 7), phone_e164);
CREATE INDEX "CRN_month_phone_reversed" ON "CRN" (substr(created_at, 1, 7), phone_reversed);

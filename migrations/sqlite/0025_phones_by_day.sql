-- Issue 32, target 4 (ADR 0060): an insert's phone keys go where the day's leads are.
--
-- A number's indexes were keyed by the number alone, so each new lead took a random place in two
-- indexes of the whole table (46 MB each at 2 M leads): every commit dirtied pages all over them,
-- and inserts slowed as the table grew. Keyed by the day of sending first (UTC, `YYYY-MM-DD`, the
-- first ten characters of `created_at`), a new lead's keys fall among today's leads only: a small,
-- hot part of each index, whatever the table's size. A read of a number now looks in each day
-- that has leads (the duplicate lookup: the days of its window; the search and the erasure: every
-- day, found one seek a day through the same index).
DROP INDEX "CRN_phone_e164";
DROP INDEX "CRN_phone_reversed";
CREATE INDEX "CRN_day_phone" ON "CRN" (substr(created_at, 1, 10), phone_e164);
CREATE INDEX "CRN_day_phone_reversed" ON "CRN" (substr(created_at, 1, 10), zayavka_reverse(phone_e164));

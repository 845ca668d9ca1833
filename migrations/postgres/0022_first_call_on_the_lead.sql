-- Issue 32: the promise figures read the month's leads from one index, not each lead's calls
-- (ADR 0044). A lead keeps its first call (the earliest by time, then by id) and who made it; the
-- counters' triggers keep them as calls are logged, and their recount fills them (the rules' SQL
-- changed with this migration, so the next start recounts once).
ALTER TABLE "CRN" ADD COLUMN first_call_at TIMESTAMPTZ, ADD COLUMN first_call_by TEXT;
-- The index by time of sending holds what the figures read: one index an insert writes, as before.
DROP INDEX "CRN_created_at";
CREATE INDEX "CRN_created_at" ON "CRN" (created_at)
    INCLUDE (repeat_of, held, utm_source, referrer, first_call_at, first_call_by, reached_at);

-- Issue 32: the promise figures read the month's leads from one index, not each lead's calls
-- (ADR 0044). A lead keeps its first call (the earliest by time, then by id) and who made it; the
-- counters' triggers keep them as calls are logged, and their recount fills them (the rules' SQL
-- changed with this migration, so the next start recounts once).
ALTER TABLE "CRN" ADD COLUMN first_call_at TIMESTAMPTZ, ADD COLUMN first_call_by TEXT;
CREATE INDEX "CRN_promise" ON "CRN" (created_at) INCLUDE (utm_source, referrer, first_call_at, first_call_by, reached_at)
    WHERE repeat_of IS NULL AND held IS NULL;

-- Month twelve: every operator read reads what it shows, not the whole table.
--
-- The inbox's figures, kept as leads change, per hour of sending (UTC): a request sums hours (at
-- most 24 a day kept), never rows. The functions and triggers that keep them and their first
-- filling are made by the store when it opens (src/store/postgres/counters.rs), from the rules in
-- Rust (the 48 hours, the open statuses, the outcomes that reach a person), never written here.
-- Of the call list's first leads: all, open, reached, reached within the promise; and the held leads.
CREATE TABLE lead_hours (
    hour            TIMESTAMP PRIMARY KEY,
    leads           BIGINT NOT NULL DEFAULT 0,
    open            BIGINT NOT NULL DEFAULT 0,
    reached         BIGINT NOT NULL DEFAULT 0,
    reached_in_time BIGINT NOT NULL DEFAULT 0,
    held            BIGINT NOT NULL DEFAULT 0
);
-- The same first leads per source ('' where the lead has no utm_source or referrer).
CREATE TABLE source_hours (
    hour            TIMESTAMP NOT NULL,
    utm_source      TEXT NOT NULL,
    referrer        TEXT NOT NULL,
    leads           BIGINT NOT NULL DEFAULT 0,
    reached_in_time BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (hour, utm_source, referrer)
);
-- Calls per hour of the call and operator; `reached`: leads their call reached within the promise.
CREATE TABLE operator_hours (
    hour     TIMESTAMP NOT NULL,
    operator TEXT NOT NULL,
    calls    BIGINT NOT NULL DEFAULT 0,
    reached  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (hour, operator)
);
-- True on the operator's first call that reached the lead within the promise (counted once).
ALTER TABLE call_attempts ADD COLUMN counts_reached BOOLEAN NOT NULL DEFAULT false;

-- The lists read an index of their own leads, newest first: the leads to call (those with a next
-- call: open first leads of the call list), an operator's leads to call, and the held leads.
CREATE INDEX "CRN_to_call" ON "CRN" (id) WHERE next_call_at IS NOT NULL;
CREATE INDEX "CRN_to_call_by" ON "CRN" (claimed_by, id) WHERE next_call_at IS NOT NULL;
CREATE INDEX "CRN_held_id" ON "CRN" (id) WHERE held IS NOT NULL;
-- The call-next list in its order (call-backs first, by their time; then by the time of sending),
-- so a page reads about a page of leads, not every lead due.
CREATE INDEX "CRN_call_order" ON "CRN"
    (call_back DESC, (CASE WHEN call_back THEN next_call_at ELSE created_at END), id)
    WHERE next_call_at IS NOT NULL;
-- Search by part of a name (folded as `inbox::fold`) or of the phone: trigrams (pg_trgm, a
-- trusted extension shipped with PostgreSQL), so `LIKE '%part%'` is answered from the index. Where
-- the database has pg_trgm already, in whichever schema, that one is used; otherwise it is created
-- in the first schema of the search path.
DO $$
DECLARE
    trigrams TEXT := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm');
BEGIN
    IF trigrams IS NULL THEN
        CREATE EXTENSION pg_trgm;
        trigrams := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm');
    END IF;
    EXECUTE format('CREATE INDEX "CRN_name_trigrams" ON "CRN" '
                   'USING gin (translate(lower(name), %L, repeat(chr(39), 3)) %s.gin_trgm_ops)', 'ʼ’`', trigrams);
    EXECUTE format('CREATE INDEX "CRN_phone_trigrams" ON "CRN" USING gin (phone_e164 %s.gin_trgm_ops)', trigrams);
END $$;

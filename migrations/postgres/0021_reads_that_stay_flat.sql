-- Issue 32: the operator reads that still grew with the table (ADR 0039).
--
-- Overdue leads: the leads to call by time of sending, so the list starts where overdue starts
-- (the cut-off, now − 48 h, is a parameter) instead of passing over the newest open leads.
CREATE INDEX "CRN_to_call_sent" ON "CRN" (created_at, id) WHERE next_call_at IS NOT NULL;

-- Search by phone: by the number's start or its end (the reversed number's start), byte order,
-- so a search reads the numbers that match, not every number sharing its digit trigrams.
CREATE INDEX "CRN_phone_start" ON "CRN" (phone_e164 COLLATE "C");
CREATE INDEX "CRN_phone_reversed" ON "CRN" ((reverse(phone_e164)) COLLATE "C");
DROP INDEX "CRN_phone_trigrams";

-- The breakdown's 30 days as days (UTC): the hourly counters summed per day, kept by triggers on
-- the hourly rows themselves (whatever writes an hour, a lead, a call or the store's recount,
-- writes its day), so the breakdown reads a row per day and source, not per hour.
CREATE TABLE source_days (
    day             DATE NOT NULL,
    utm_source      TEXT NOT NULL,
    referrer        TEXT NOT NULL,
    leads           BIGINT NOT NULL DEFAULT 0,
    reached_in_time BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (day, utm_source, referrer)
);
CREATE TABLE operator_days (
    day      DATE NOT NULL,
    operator TEXT NOT NULL,
    calls    BIGINT NOT NULL DEFAULT 0,
    reached  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (day, operator)
);
INSERT INTO source_days (day, utm_source, referrer, leads, reached_in_time)
SELECT hour::date, utm_source, referrer, sum(leads), sum(reached_in_time) FROM source_hours GROUP BY 1, 2, 3;
INSERT INTO operator_days (day, operator, calls, reached)
SELECT hour::date, operator, sum(calls), sum(reached) FROM operator_hours GROUP BY 1, 2;

CREATE FUNCTION source_days_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE source_days SET leads = leads - OLD.leads, reached_in_time = reached_in_time - OLD.reached_in_time
        WHERE day = OLD.hour::date AND utm_source = OLD.utm_source AND referrer = OLD.referrer;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO source_days (day, utm_source, referrer, leads, reached_in_time)
        VALUES (NEW.hour::date, NEW.utm_source, NEW.referrer, NEW.leads, NEW.reached_in_time)
        ON CONFLICT (day, utm_source, referrer) DO UPDATE SET leads = source_days.leads + excluded.leads,
            reached_in_time = source_days.reached_in_time + excluded.reached_in_time;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER source_days_count AFTER INSERT OR UPDATE OR DELETE ON source_hours
    FOR EACH ROW EXECUTE FUNCTION source_days_count();

CREATE FUNCTION operator_days_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE operator_days SET calls = calls - OLD.calls, reached = reached - OLD.reached
        WHERE day = OLD.hour::date AND operator = OLD.operator;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO operator_days (day, operator, calls, reached)
        VALUES (NEW.hour::date, NEW.operator, NEW.calls, NEW.reached)
        ON CONFLICT (day, operator) DO UPDATE SET calls = operator_days.calls + excluded.calls,
            reached = operator_days.reached + excluded.reached;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER operator_days_count AFTER INSERT OR UPDATE OR DELETE ON operator_hours
    FOR EACH ROW EXECUTE FUNCTION operator_days_count();

-- The store's recount empties the hours with TRUNCATE, which fires no row trigger.
CREATE FUNCTION days_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'source_hours' THEN
        DELETE FROM source_days;
    ELSE
        DELETE FROM operator_days;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER source_days_emptied AFTER TRUNCATE ON source_hours
    FOR EACH STATEMENT EXECUTE FUNCTION days_emptied();
CREATE TRIGGER operator_days_emptied AFTER TRUNCATE ON operator_hours
    FOR EACH STATEMENT EXECUTE FUNCTION days_emptied();

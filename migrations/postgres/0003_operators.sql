-- The operator side: where each lead stands, the calls made, who may sign in, and the
-- notifications still to send.

-- The newest call decides the status (new, attempt_1..3, interested, not_interested,
-- not_eligible, unreachable); reached_at is when a call first reached the person (for the
-- "reached within 48 hours" figure).
ALTER TABLE "CRN" ADD COLUMN status TEXT NOT NULL DEFAULT 'new';
ALTER TABLE "CRN" ADD COLUMN reached_at TIMESTAMPTZ;
CREATE INDEX "CRN_status" ON "CRN" (status);

CREATE TABLE operators (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    -- argon2id, in the PHC string format.
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Only a hash of the session token is kept: a copy of the database signs nobody in. Kept in the
-- database, a session made on one instance works on all of them.
CREATE TABLE operator_sessions (
    token_hash  TEXT PRIMARY KEY,
    operator_id BIGINT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX operator_sessions_expires_at ON operator_sessions (expires_at);

-- The call log. `operator` is the e-mail as it was, so the log outlives an account.
CREATE TABLE call_attempts (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lead_id  BIGINT NOT NULL REFERENCES "CRN" (id) ON DELETE CASCADE,
    at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    operator TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    note     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX call_attempts_lead_id ON call_attempts (lead_id);

-- Notifications to send: one row per lead, event (new, reminder, overdue) and channel, written in
-- the same transaction as the lead, so a stored lead is never without its notification. Rows keep
-- only the lead's id; the message is made when it is sent. Instances claim due rows with
-- FOR UPDATE SKIP LOCKED, so each is sent by one of them. A sent row stays (sent_at) until its lead
-- goes, so an event is never queued twice.
CREATE TABLE outbox (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lead_id         BIGINT NOT NULL REFERENCES "CRN" (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    channel         TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- A sender holds a row until then; past it, the row is free again (a sender that died).
    locked_until    TIMESTAMPTZ,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    sent_at         TIMESTAMPTZ,
    UNIQUE (lead_id, event, channel)
);
-- In claim order, so a claim reads the first due rows and stops, however long the queue.
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE sent_at IS NULL;

-- The operator side: where each lead stands, the calls made, who may sign in, and the
-- notifications still to send.

-- The newest call decides the status (new, attempt_1..3, interested, not_interested,
-- not_eligible, unreachable); reached_at is when a call first reached the person (for the
-- "reached within 48 hours" figure).
ALTER TABLE "CRN" ADD COLUMN status TEXT NOT NULL DEFAULT 'new';
ALTER TABLE "CRN" ADD COLUMN reached_at TEXT;
CREATE INDEX "CRN_status" ON "CRN" (status);

CREATE TABLE operators (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT NOT NULL UNIQUE,
    -- argon2id, in the PHC string format.
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

-- Only a hash of the session token is kept: a copy of the database signs nobody in.
CREATE TABLE operator_sessions (
    token_hash  TEXT PRIMARY KEY,
    operator_id INTEGER NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX operator_sessions_expires_at ON operator_sessions (expires_at);

-- The call log. `operator` is the e-mail as it was, so the log outlives an account.
CREATE TABLE call_attempts (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    lead_id  INTEGER NOT NULL REFERENCES "CRN" (id) ON DELETE CASCADE,
    at       TEXT NOT NULL,
    operator TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    note     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX call_attempts_lead_id ON call_attempts (lead_id);

-- Notifications to send: one row per lead, event (new, reminder, overdue) and channel, written in
-- the same transaction as the lead, so a stored lead is never without its notification. Rows keep
-- only the lead's id; the message is made when it is sent. A sent row stays (sent_at) until its
-- lead goes, so an event is never queued twice.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    lead_id         INTEGER NOT NULL REFERENCES "CRN" (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    channel         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    -- A sender holds a row until then; past it, the row is free again (a sender that died).
    locked_until    TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    sent_at         TEXT,
    UNIQUE (lead_id, event, channel)
);
-- In claim order, so a claim reads the first due rows and stops, however long the queue.
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE sent_at IS NULL;

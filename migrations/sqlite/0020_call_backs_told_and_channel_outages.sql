-- A call-back's time, told once (docs/decisions/0033): `call_back_told` is the scheduled time
-- (`next_call_at`) whose coming was told. A call that sets a new time makes the two differ again,
-- so each scheduled time is told once, whichever way it was set. The partial index holds only
-- the call-backs and retries not yet told: the scan reads the short range of those now due.
ALTER TABLE "CRN" ADD COLUMN call_back_told TEXT;
CREATE INDEX "CRN_call_back_to_tell" ON "CRN" (next_call_at)
    WHERE call_back = 1 AND next_call_at IS NOT NULL AND call_back_told IS NOT next_call_at;

-- A channel that keeps failing: one row per spell, open (no `recovered_at`) until the channel has
-- no failing notification left. The unique index lets one open spell per channel exist, so of
-- several instances that see the failure only one opens it and tells the team.
CREATE TABLE channel_outages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    channel      TEXT NOT NULL,
    -- When its oldest failing notification was queued.
    since        TEXT NOT NULL,
    last_error   TEXT NOT NULL,
    opened_at    TEXT NOT NULL,
    recovered_at TEXT
);
CREATE UNIQUE INDEX channel_outages_open ON channel_outages (channel) WHERE recovered_at IS NULL;

-- What the team is told about a spell (it began, `recovered` = 0; it ended, 1) through each of the
-- other channels, sent and retried as the outbox's rows are.
CREATE TABLE channel_notices (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    outage_id       INTEGER NOT NULL REFERENCES channel_outages (id) ON DELETE CASCADE,
    recovered       INTEGER NOT NULL,
    channel         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    locked_until    TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    sent_at         TEXT,
    UNIQUE (outage_id, recovered, channel)
);
CREATE INDEX channel_notices_due ON channel_notices (next_attempt_at, id) WHERE sent_at IS NULL;

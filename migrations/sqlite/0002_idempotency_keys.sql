-- Idempotency-Key (IETF draft): a repeated request with the same key replays the first answer.
-- Only lead ids are kept (no personal data); entries older than a day are purged.
CREATE TABLE idempotency_keys (
    key         TEXT PRIMARY KEY,
    -- A hash of the request body (and its `columns`), to tell a repeat from a different request.
    fingerprint TEXT NOT NULL,
    -- The ids the first answer carried, comma-separated, in order.
    lead_ids    TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

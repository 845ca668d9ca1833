-- Wrong second-factor codes per account, typed after a right password (issue 29): after a run of
-- them the account's codes are refused until `codes_refused_until`, for longer each run
-- (`code_refusals` counts the runs since the last right code). In the database, so a restart or
-- another instance does not reset the count.
ALTER TABLE operators ADD COLUMN code_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE operators ADD COLUMN code_refusals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE operators ADD COLUMN codes_refused_until TIMESTAMPTZ;

-- Notices about an account (not a lead) to send through the notification channels: one row per
-- refusal and channel, sent and retried as the outbox's rows are. Rows name the account by id;
-- the message is made when it is sent.
CREATE TABLE account_notices (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operator_id     BIGINT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    refused_until   TIMESTAMPTZ NOT NULL,
    channel         TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    locked_until    TIMESTAMPTZ,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    sent_at         TIMESTAMPTZ
);
CREATE INDEX account_notices_due ON account_notices (next_attempt_at, id) WHERE sent_at IS NULL;

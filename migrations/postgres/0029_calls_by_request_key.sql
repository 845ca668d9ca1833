-- ADR 0084: a call sent again under the same `Idempotency-Key` (the inbox's answer was lost on a
-- bad connection, the operator tapped again) is logged once. The key the operator's request
-- carried; unique per operator, so a second request with it finds the call it already logged.
ALTER TABLE call_attempts ADD COLUMN request_key TEXT;
CREATE UNIQUE INDEX call_attempts_request_key ON call_attempts (request_key, operator)
    WHERE request_key IS NOT NULL;

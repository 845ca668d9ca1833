-- The second factor (TOTP, RFC 6238). `totp_pending` holds a secret being set up until its first
-- code is confirmed; `totp_secret` is the confirmed one; `totp_last_step` is the time step of the
-- last code accepted, so a code signs in once.
ALTER TABLE operators ADD COLUMN totp_secret TEXT;
ALTER TABLE operators ADD COLUMN totp_pending TEXT;
ALTER TABLE operators ADD COLUMN totp_last_step BIGINT;

-- Single-use codes for a lost phone; only their SHA-256 is kept.
CREATE TABLE recovery_codes (
    operator_id BIGINT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    code_hash   TEXT NOT NULL,
    used_at     TIMESTAMPTZ,
    PRIMARY KEY (operator_id, code_hash)
);

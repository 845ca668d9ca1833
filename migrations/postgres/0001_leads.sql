-- The leads. Column names id, created_at, name, phone, confirmation, comment are the contract
-- (SPEC §3, DESIGN); the others serve duplicate detection and consent evidence.
CREATE TABLE "CRN" (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    name           TEXT NOT NULL,
    phone          TEXT NOT NULL,
    phone_e164     TEXT NOT NULL,
    confirmation   TEXT NOT NULL CHECK (confirmation IN ('Так', 'Ні')),
    comment        TEXT,
    -- Consent evidence: the privacy policy in force (a hash of its text) when the lead was sent
    -- at created_at.
    policy_version TEXT NOT NULL
);
CREATE INDEX "CRN_phone_e164" ON "CRN" (phone_e164);
CREATE INDEX "CRN_created_at" ON "CRN" (created_at);

-- Values the server generates once and keeps (the anon key).
CREATE TABLE zayavka_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

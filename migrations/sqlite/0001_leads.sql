-- The leads. Column names id, created_at, name, phone, confirmation, comment are the contract
-- (SPEC §3, DESIGN); the others serve duplicate detection and consent evidence.
CREATE TABLE "CRN" (
    -- AUTOINCREMENT: an erased lead's id is never given to another person.
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    -- RFC 3339 in UTC with microseconds, so text order is time order.
    created_at     TEXT NOT NULL,
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

-- Who has a lead: an operator who took it ("Я телефоную") until `claimed_until`, after which it is
-- free again; or one it was handed to (in turn, or by an admin) with no end (`claimed_until` NULL).
-- Removing the account frees its leads.
ALTER TABLE "CRN" ADD COLUMN claimed_by INTEGER REFERENCES operators (id) ON DELETE SET NULL;
ALTER TABLE "CRN" ADD COLUMN claimed_until TEXT;
CREATE INDEX "CRN_claimed_by" ON "CRN" (claimed_by) WHERE claimed_by IS NOT NULL;
-- The per-operator figures count calls by operator and time.
CREATE INDEX call_attempts_at ON call_attempts (at);

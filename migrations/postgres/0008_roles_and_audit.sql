-- Roles: `admin` manages the accounts, exports, erases and reads the audit trail; `operator`
-- works leads. Every account before this migration could do all of that, so they become admins.
ALTER TABLE operators ADD COLUMN role TEXT NOT NULL DEFAULT 'operator' CHECK (role IN ('admin', 'operator'));
UPDATE operators SET role = 'admin';

-- The audit trail: who did what, when, from which address. A lead is named by id only (no
-- foreign key: the entry outlives the lead's erasure), never by a visitor's name, phone or comment.
-- Append-only: the trigger refuses to change or delete an entry.
CREATE TABLE audit (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    lead_id BIGINT,
    detail  TEXT,
    address TEXT
);
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit trail is append-only';
END;
$$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();

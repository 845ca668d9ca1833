-- Roles: `admin` manages the accounts, exports, erases and reads the audit trail; `operator`
-- works leads. Every account before this migration could do all of that, so they become admins.
ALTER TABLE operators ADD COLUMN role TEXT NOT NULL DEFAULT 'operator' CHECK (role IN ('admin', 'operator'));
UPDATE operators SET role = 'admin';

-- The audit trail: who did what, when, from which address. A lead is named by id only (no
-- foreign key: the entry outlives the lead's erasure), never by a visitor's name, phone or comment.
-- Append-only: the triggers refuse to change or delete an entry.
CREATE TABLE audit (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    lead_id INTEGER,
    detail  TEXT,
    address TEXT
);
CREATE TRIGGER audit_append_only_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
CREATE TRIGGER audit_append_only_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit trail is append-only');
END;

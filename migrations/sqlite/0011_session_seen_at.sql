-- When a session was last used (to within a few minutes): round-robin hands new leads only to
-- operators at work now, not to anyone whose week-long session has not yet expired.
ALTER TABLE operator_sessions ADD COLUMN seen_at TEXT;
UPDATE operator_sessions SET seen_at = created_at;

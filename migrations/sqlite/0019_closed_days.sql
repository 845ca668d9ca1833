-- The days the team does not work, as admins keep them in the inbox (on top of the setting
-- ZAYAVKA_CLOSED_DAYS): a Kyiv date `YYYY-MM-DD` (text sorts as dates do), an optional short
-- note, and who added it and when. Not personal data: a day off names nobody.
CREATE TABLE closed_days (
    day      TEXT PRIMARY KEY,
    note     TEXT,
    added_by TEXT NOT NULL,
    added_at TEXT NOT NULL
);

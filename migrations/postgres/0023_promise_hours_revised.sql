-- Issue 32 (SQLite's migration 0024; SQLite alone has a 0023): the promise figures keep a month of
-- leads in memory, hour by hour of sending, and read an hour again only when it changed (ADR 0051).
-- An hour's revision is raised by the counters' triggers whenever a lead sent in it comes, goes or
-- changes something those figures read (made by the store when it opens,
-- src/store/postgres/counters.rs).
ALTER TABLE lead_hours ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;

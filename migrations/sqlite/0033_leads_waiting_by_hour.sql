-- The overdue leads are those whose 48 hours ran out while no call reached the person; a person who
-- asked for a later call was reached, though the lead stays open (ADR 0087). Each hour counts its
-- leads still waiting for that first reach, kept by the counters' triggers and filled by their
-- recount (made by the store when it opens, src/store/sqlite/counters.rs).
ALTER TABLE lead_hours ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;

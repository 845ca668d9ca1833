-- Issue 32 (ADR 0055): two indexes fewer for every insert and every call to keep up to date.
--
-- A number had two indexes: this one in the database's collation, for the duplicate lookup and
-- the erasure, and "CRN_phone_start" in byte order (migration 0021), for the phone search. Numbers
-- are digits after a "+", and equal texts are equal in any deterministic collation, so the lookup
-- and the erasure now compare in byte order too and use "CRN_phone_start". The dropped index took
-- a random place for each new lead, about 140 MB at 2 M leads.
DROP INDEX "CRN_phone_e164";

-- No query reads the leads by status alone: each status condition comes with a narrower index
-- (an id, a range of sending times, the call list's partial indexes). SQLite dropped its own in
-- migration 0016. A call that changes the status wrote a new entry of this index.
DROP INDEX "CRN_status";

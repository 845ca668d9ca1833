-- Every submission is its own row. One from a person whose phone (E.164) was sent within the
-- duplicate window names the earlier lead in repeat_of: the inbox shows one person with all their
-- submissions, and only the first is notified and on the 48-hour clock. A repeat goes with its
-- first lead (erasure, retention).
ALTER TABLE "CRN" ADD COLUMN repeat_of BIGINT REFERENCES "CRN" (id) ON DELETE CASCADE;
CREATE INDEX "CRN_repeat_of" ON "CRN" (repeat_of) WHERE repeat_of IS NOT NULL;

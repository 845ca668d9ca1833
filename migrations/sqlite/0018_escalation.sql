-- Escalation: when an open lead that nobody had called was reported to the admins (once). The
-- scan looks only at leads of the call list not yet called (`call_back` = 0: no call has set the
-- next time) nor reported: the partial index holds those alone, however many leads the table has.
ALTER TABLE "CRN" ADD COLUMN escalated_at TEXT;
CREATE INDEX "CRN_to_escalate" ON "CRN" (created_at)
    WHERE escalated_at IS NULL AND next_call_at IS NOT NULL AND call_back = 0;

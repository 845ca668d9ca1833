-- The call desk: when each lead of the call list is to be called. A lead that joins the list is
-- due at once; a call that leaves it open sets the next time (a retry, or the time the person
-- asked for, then `call_back` = true); a closed or held lead has none. Only leads to call have a
-- time, so the partial index holds the open leads alone, however many closed ones the table has.
ALTER TABLE "CRN" ADD COLUMN next_call_at TIMESTAMPTZ;
ALTER TABLE "CRN" ADD COLUMN call_back BOOLEAN NOT NULL DEFAULT false;
UPDATE "CRN" SET next_call_at = created_at
    WHERE held IS NULL AND repeat_of IS NULL
      AND status IN ('new', 'attempt_1', 'attempt_2', 'attempt_3');
CREATE INDEX "CRN_next_call_at" ON "CRN" (next_call_at) WHERE next_call_at IS NOT NULL;

-- The call desk: the last call went unanswered and the retry cadence had no step left, so the lead
-- is due for a person to decide (`CallPlan::retries_used_up`). Written by each call, with its next
-- call; a lead whose cadence ran out before this migration says so after its next unanswered call.
ALTER TABLE "CRN" ADD COLUMN retries_used_up INTEGER NOT NULL DEFAULT 0;

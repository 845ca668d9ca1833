-- A notification an admin dropped on purpose (its channel cannot deliver it, and the team knows):
-- it is done without being delivered. `sent_at` is set as well, so everything that looks for
-- rows still to send leaves it alone; `dropped_at` says it never went out. The audit trail says
-- who dropped it.
ALTER TABLE outbox ADD COLUMN dropped_at TIMESTAMPTZ;

-- Held, never dropped: a submission that looks automated is stored with the reasons it was held
-- (`abuse::Signal` codes, space-separated), outside the call list, the 48-hour clock and the
-- figures, until a person releases it (held becomes NULL) or erases it. NULL: in the call list.
ALTER TABLE "CRN" ADD COLUMN held TEXT;
CREATE INDEX "CRN_held" ON "CRN" (created_at) WHERE held IS NOT NULL;

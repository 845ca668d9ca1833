-- Where a lead came from, as the landing page saw it: its own utm_* parameters and the linking
-- page's host (never its path, never the visitor's address). All optional.
ALTER TABLE "CRN" ADD COLUMN utm_source TEXT;
ALTER TABLE "CRN" ADD COLUMN utm_medium TEXT;
ALTER TABLE "CRN" ADD COLUMN utm_campaign TEXT;
ALTER TABLE "CRN" ADD COLUMN utm_content TEXT;
ALTER TABLE "CRN" ADD COLUMN utm_term TEXT;
ALTER TABLE "CRN" ADD COLUMN referrer TEXT;

-- The CRN table for a hosted Supabase project: the site's one call (POST /rest/v1/CRN with the
-- project's anon key) inserts; nothing else is possible with that key. Run it in the project's SQL
-- editor (or `psql "$SUPABASE_DB_URL" -f supabase/schema.sql`), then point the site at the project:
-- ZAYAVKA_BACKEND_URL=https://<project>.supabase.co ZAYAVKA_ANON_KEY=<anon key>.

CREATE TABLE IF NOT EXISTS public."CRN" (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    name         TEXT NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 100),
    phone        TEXT NOT NULL CHECK (
                     char_length(phone) <= 32
                     AND phone ~ '^\+?[0-9 ()-]+$'
                     AND char_length(regexp_replace(phone, '[^0-9]', '', 'g')) BETWEEN 7 AND 15
                 ),
    confirmation TEXT NOT NULL CHECK (confirmation IN ('Так', 'Ні')),
    comment      TEXT CHECK (comment IS NULL OR char_length(comment) <= 1000)
);

-- Where a lead came from (optional): the landing page's own utm_* parameters and the linking
-- page's host. Short, so the anon key cannot park documents here.
ALTER TABLE public."CRN"
    ADD COLUMN IF NOT EXISTS utm_source   TEXT CHECK (char_length(utm_source) <= 200),
    ADD COLUMN IF NOT EXISTS utm_medium   TEXT CHECK (char_length(utm_medium) <= 200),
    ADD COLUMN IF NOT EXISTS utm_campaign TEXT CHECK (char_length(utm_campaign) <= 200),
    ADD COLUMN IF NOT EXISTS utm_content  TEXT CHECK (char_length(utm_content) <= 200),
    ADD COLUMN IF NOT EXISTS utm_term     TEXT CHECK (char_length(utm_term) <= 200),
    ADD COLUMN IF NOT EXISTS referrer     TEXT CHECK (char_length(referrer) <= 253);

-- Row-level security: with it on and only an insert policy, the anon role can insert rows and
-- can neither read, change nor delete one.
ALTER TABLE public."CRN" ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS "anon may insert leads" ON public."CRN";
CREATE POLICY "anon may insert leads" ON public."CRN"
    FOR INSERT TO anon
    WITH CHECK (true);

-- Least privilege on top of RLS: the anon role gets INSERT on the columns it sends and no other
-- right, so a read, update or delete with the anon key is refused outright (42501). The
-- site's call asks for `return=minimal`, which needs no read right.
REVOKE ALL ON public."CRN" FROM anon;
GRANT INSERT (name, phone, confirmation, comment,
              utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer) ON public."CRN" TO anon;

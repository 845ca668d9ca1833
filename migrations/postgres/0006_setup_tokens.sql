-- First start: while no operator exists, each start of the server offers a one-time link to create
-- the first one. Only the token's SHA-256 is kept, with its expiry, so any instance sharing the
-- database accepts it and a copy of the database opens nothing. A used token is deleted.
CREATE TABLE setup_tokens (
    token_hash TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);

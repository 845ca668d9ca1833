-- The abuse counts every instance on this database shares: a proof sent to another instance is
-- the same proof, a client's limit one limit. UNLOGGED: worth nothing after a crash, and no WAL
-- on the insert path. No visitor data: clients, names, proofs and phones are keyed hashes.
CREATE UNLOGGED TABLE abuse_rate (
    client BIGINT PRIMARY KEY,
    -- When the client's next token comes due (GCRA), Unix microseconds; at most a minute ahead.
    next_at BIGINT NOT NULL
);
CREATE UNLOGGED TABLE abuse_volume (
    key BIGINT PRIMARY KEY,
    -- The different phones recently sent under the key, and when each was last (Unix seconds).
    phones BIGINT[] NOT NULL,
    seen_at BIGINT[] NOT NULL,
    last_at BIGINT NOT NULL
);

-- Bearer tokens for command-line agents. Only the SHA-256 of a secret is
-- kept; revoked rows stay for the record and free their name for reuse.
CREATE TABLE tokens (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL,
    hash      TEXT    NOT NULL UNIQUE,
    created   INTEGER NOT NULL,           -- unix nanoseconds
    last_used INTEGER NOT NULL DEFAULT 0, -- unix nanoseconds, 0 = never
    revoked   INTEGER                     -- unix nanoseconds, NULL = live
) STRICT;

CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked IS NULL;

-- The write journal: one row per write attempt made through a tool.
CREATE TABLE journal (
    id          INTEGER PRIMARY KEY,
    time        INTEGER NOT NULL, -- unix nanoseconds
    app         TEXT    NOT NULL,
    tool        TEXT    NOT NULL,
    path        TEXT    NOT NULL,
    old_version TEXT    NOT NULL,
    new_version TEXT    NOT NULL,
    result      TEXT    NOT NULL  -- "ok" or an error code
) STRICT;

-- LastWrites: latest successful write per path.
CREATE INDEX journal_ok_path_time ON journal (path, time) WHERE result = 'ok';
-- Journal and PruneJournal: ranges of time.
CREATE INDEX journal_time ON journal (time);

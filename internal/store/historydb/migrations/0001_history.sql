-- Note history: every version of a note that cortex wrote or saw. Contents
-- are stored once per distinct byte string (blobs, keyed by SHA-256) and
-- compressed with DEFLATE; versions point at them.
CREATE TABLE blobs (
    id     INTEGER PRIMARY KEY,
    hash   BLOB    NOT NULL UNIQUE, -- SHA-256 of the uncompressed bytes
    size   INTEGER NOT NULL,        -- uncompressed bytes
    stored INTEGER NOT NULL,        -- compressed bytes, what the size cap counts
    data   BLOB    NOT NULL         -- raw DEFLATE (RFC 1951)
) STRICT;

CREATE TABLE versions (
    id      INTEGER PRIMARY KEY,
    path    TEXT    NOT NULL,  -- vault-relative note path
    version TEXT    NOT NULL,  -- the note's version as the tools show it
    blob    INTEGER NOT NULL REFERENCES blobs (id),
    time    INTEGER NOT NULL,  -- unix nanoseconds
    writer  TEXT    NOT NULL,  -- the app, "external", or "owner (cli)"
    kind    TEXT    NOT NULL,  -- create, edit, append, move, delete, restore, external
    gone    INTEGER NOT NULL DEFAULT 0 -- 1: the note left this path after this version
) STRICT;

CREATE INDEX versions_path ON versions (path, id);
CREATE INDEX versions_blob ON versions (blob);
CREATE INDEX versions_time ON versions (time);

-- The total of blobs.stored, kept by triggers so that the size cap needs no
-- scan and stays exact when the server and `cortex admin` share the file.
CREATE TABLE totals (
    one    INTEGER PRIMARY KEY CHECK (one = 1),
    stored INTEGER NOT NULL
) STRICT;
INSERT INTO totals (one, stored) VALUES (1, 0);

CREATE TRIGGER blobs_added AFTER INSERT ON blobs BEGIN
    UPDATE totals SET stored = stored + NEW.stored WHERE one = 1;
END;
CREATE TRIGGER blobs_removed AFTER DELETE ON blobs BEGIN
    UPDATE totals SET stored = stored - OLD.stored WHERE one = 1;
END;

-- What the server serves from this state folder: its vault and public URL,
-- recorded at every start, so that `cortex admin status` given only the
-- state folder reports the vault the server reads. One row at most.
CREATE TABLE served (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    vault      TEXT    NOT NULL, -- absolute path
    public_url TEXT    NOT NULL, -- canonical origin
    started    INTEGER NOT NULL  -- unix nanoseconds
) STRICT;

-- The outcome of each backup, scheduled or taken by `cortex admin backup`,
-- for `cortex admin status`. Only the latest rows are kept.
CREATE TABLE backups (
    id     INTEGER PRIMARY KEY,
    time   INTEGER NOT NULL,           -- when it started, unix nanoseconds
    result TEXT    NOT NULL,           -- "ok", "skipped" or "failed"
    detail TEXT    NOT NULL,           -- the archive's path, or why it was skipped or failed
    size   INTEGER NOT NULL DEFAULT 0, -- the archive's bytes
    took   INTEGER NOT NULL DEFAULT 0  -- nanoseconds
) STRICT;

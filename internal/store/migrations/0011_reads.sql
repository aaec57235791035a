-- What each app was shown by the tools that read (the notes a fetch, a
-- search page, a list, links or recent named), counted per app, note, tool
-- and hour, so that a flood of reads adds to counts rather than rows. The
-- owner's only: never served to apps. Kept as long as the journal, and
-- capped in rows (the oldest hours go first).
--
-- Numbered 0011: 0010 is another change's, merged on its own.
CREATE TABLE reads (
    id    INTEGER PRIMARY KEY,
    app   TEXT    NOT NULL,
    path  TEXT    NOT NULL, -- vault-relative
    tool  TEXT    NOT NULL,
    hour  INTEGER NOT NULL, -- unix nanoseconds, truncated to the hour
    count INTEGER NOT NULL,
    last  INTEGER NOT NULL, -- unix nanoseconds of the latest read that hour
    UNIQUE (app, hour, path, tool)
) STRICT;
CREATE INDEX reads_hour ON reads (hour);
CREATE INDEX reads_path ON reads (path, hour);

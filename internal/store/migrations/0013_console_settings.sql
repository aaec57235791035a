-- The owner's console settings: how the console shows things, never what
-- anyone may do. At most one row; no row means every default.
CREATE TABLE console_settings (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    time_zone TEXT    NOT NULL DEFAULT 'UTC', -- an IANA name, as time.LoadLocation takes it
    updated   INTEGER NOT NULL                -- unix nanoseconds
) STRICT;

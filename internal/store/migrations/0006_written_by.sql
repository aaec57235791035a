-- Which cortex last opened this database, so that an older cortex that
-- finds a newer schema can say which version wrote it.
CREATE TABLE written_by (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version TEXT    NOT NULL,
    time    INTEGER NOT NULL -- unix nanoseconds
) STRICT;

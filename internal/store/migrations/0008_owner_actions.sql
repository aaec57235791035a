-- What the owner did to apps and tokens (revocations, token creation), for
-- the console's Activity. Kept apart from the journal, which records note
-- writes that `recent` and undo act on.
CREATE TABLE owner_actions (
    id     INTEGER PRIMARY KEY,
    time   INTEGER NOT NULL, -- unix nanoseconds
    action TEXT    NOT NULL, -- e.g. "revoked app", "revoked token", "created token"
    target TEXT    NOT NULL  -- the app's id or the token's name
) STRICT;
CREATE INDEX owner_actions_time ON owner_actions (time);

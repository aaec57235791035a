-- Who did an owner action: the console or the command line. Rows from
-- before this column came from the console, the only writer then.
ALTER TABLE owner_actions ADD COLUMN writer TEXT NOT NULL DEFAULT 'owner (console)';

-- Where each credential was last used from: the client address the
-- listener resolved, written together with last_used (so at most once a
-- minute per credential). Empty until the next use.
ALTER TABLE tokens ADD COLUMN last_addr TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_clients ADD COLUMN last_addr TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_grants ADD COLUMN last_addr TEXT NOT NULL DEFAULT '';

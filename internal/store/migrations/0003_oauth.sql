-- OAuth clients: registered by themselves (dcr), by the owner on the console
-- (admin), or known by their metadata document URL (cimd; a row exists only
-- once the owner approved one). Only the SHA-256 of a client secret is kept.
CREATE TABLE oauth_clients (
    id            TEXT    PRIMARY KEY,
    kind          TEXT    NOT NULL,            -- dcr | admin | cimd
    name          TEXT    NOT NULL,
    redirect_uris TEXT    NOT NULL,            -- JSON array
    auth_method   TEXT    NOT NULL,            -- none | client_secret_post | client_secret_basic | private_key_jwt
    secret_hash   TEXT    NOT NULL DEFAULT '',
    jwks_uri      TEXT    NOT NULL DEFAULT '',
    jwks          TEXT    NOT NULL DEFAULT '', -- last key set fetched or given inline
    fetched       INTEGER NOT NULL DEFAULT 0,  -- cimd: when the document was fetched
    created       INTEGER NOT NULL,
    granted       INTEGER NOT NULL DEFAULT 0,  -- first approval by the owner, 0 = never
    last_used     INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Registration cap: the never-granted clients, oldest first.
CREATE INDEX oauth_clients_unused ON oauth_clients (created) WHERE granted = 0;

-- Authorization requests waiting for the owner. Bounded per source and in
-- total by the code that inserts them; rows expire after minutes.
CREATE TABLE oauth_pending (
    id_hash      TEXT    PRIMARY KEY,
    source       TEXT    NOT NULL,
    owner        INTEGER NOT NULL DEFAULT 0,  -- started by a signed-in owner
    browser_hash TEXT    NOT NULL,
    client_id    TEXT    NOT NULL,
    redirect_uri TEXT    NOT NULL,
    scope        TEXT    NOT NULL,
    state        TEXT    NOT NULL,
    challenge    TEXT    NOT NULL,
    resource     TEXT    NOT NULL,
    created      INTEGER NOT NULL,
    expires      INTEGER NOT NULL
) STRICT;

CREATE INDEX oauth_pending_source ON oauth_pending (source, created);
CREATE INDEX oauth_pending_created ON oauth_pending (created);

-- A grant is one approval by the owner: the family of every token issued
-- from one authorization code. Revoking it ends all of them.
CREATE TABLE oauth_grants (
    id        INTEGER PRIMARY KEY,
    client_id TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scope     TEXT    NOT NULL,
    resource  TEXT    NOT NULL,
    created   INTEGER NOT NULL,
    last_used INTEGER NOT NULL DEFAULT 0,
    revoked   INTEGER NOT NULL DEFAULT 0   -- unix nanoseconds, 0 = live
) STRICT;

CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- Authorization codes, single use; grant_id is the family issued from the
-- code, revoked if the code is presented again.
CREATE TABLE oauth_codes (
    hash         TEXT    PRIMARY KEY,
    client_id    TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    redirect_uri TEXT    NOT NULL,
    scope        TEXT    NOT NULL,
    resource     TEXT    NOT NULL,
    challenge    TEXT    NOT NULL,
    created      INTEGER NOT NULL,
    expires      INTEGER NOT NULL,
    used         INTEGER NOT NULL DEFAULT 0,
    grant_id     INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX oauth_codes_expires ON oauth_codes (expires);

-- Access and refresh tokens: only hashes. A used refresh token keeps its
-- successor pair sealed with a key only the old token itself yields, so a
-- client that refreshes twice at once gets the same pair back.
CREATE TABLE oauth_tokens (
    hash      TEXT    PRIMARY KEY,
    grant_id  INTEGER NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind      TEXT    NOT NULL,            -- access | refresh
    scope     TEXT    NOT NULL,
    created   INTEGER NOT NULL,
    expires   INTEGER NOT NULL,
    used      INTEGER NOT NULL DEFAULT 0,  -- refresh: when it was rotated
    successor BLOB                         -- refresh: sealed successor pair
) STRICT;

CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires);

-- The owner: the one person who may approve apps. At most one row; every
-- factor and login session hangs off it, so deleting it (admin reset, or
-- setup --force inside one transaction) removes them all at once.
CREATE TABLE owner (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    user_handle    BLOB    NOT NULL,           -- WebAuthn user handle, 32 random bytes
    totp_secret    TEXT    NOT NULL,           -- base32, as in the otpauth:// URI
    totp_last_step INTEGER NOT NULL DEFAULT 0, -- last 30 s step accepted; never accepted again
    totp_failures  INTEGER NOT NULL DEFAULT 0, -- consecutive wrong codes
    totp_locked    INTEGER NOT NULL DEFAULT 0, -- unix nanoseconds when locked, 0 = open
    created        INTEGER NOT NULL            -- unix nanoseconds
) STRICT;

-- Passkeys (WebAuthn credentials) of the owner.
CREATE TABLE owner_passkeys (
    id                 INTEGER PRIMARY KEY,
    owner_id           INTEGER NOT NULL DEFAULT 1 REFERENCES owner (id) ON DELETE CASCADE,
    credential_id      BLOB    NOT NULL UNIQUE,
    public_key         BLOB    NOT NULL,
    sign_count         INTEGER NOT NULL DEFAULT 0,
    flags              INTEGER NOT NULL DEFAULT 0, -- authenticator flags byte (UP, UV, BE, BS)
    transports         TEXT    NOT NULL DEFAULT '', -- comma-separated
    aaguid             BLOB    NOT NULL,
    attestation_type   TEXT    NOT NULL DEFAULT '',
    attestation_format TEXT    NOT NULL DEFAULT '',
    attachment         TEXT    NOT NULL DEFAULT '',
    name               TEXT    NOT NULL,
    created            INTEGER NOT NULL,
    last_used          INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Single-use recovery codes: only their SHA-256 is kept.
CREATE TABLE owner_recovery_codes (
    hash     TEXT    PRIMARY KEY,
    owner_id INTEGER NOT NULL DEFAULT 1 REFERENCES owner (id) ON DELETE CASCADE,
    created  INTEGER NOT NULL
) STRICT;

-- Browser login sessions: only the SHA-256 of the cookie value is kept.
CREATE TABLE owner_sessions (
    hash      TEXT    PRIMARY KEY,
    owner_id  INTEGER NOT NULL DEFAULT 1 REFERENCES owner (id) ON DELETE CASCADE,
    method    TEXT    NOT NULL, -- passkey | totp | recovery
    created   INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
) STRICT;

CREATE INDEX owner_sessions_created ON owner_sessions (created);

-- One-time passkey enrolment links issued on the console.
CREATE TABLE owner_enrol_links (
    hash     TEXT    PRIMARY KEY,
    owner_id INTEGER NOT NULL DEFAULT 1 REFERENCES owner (id) ON DELETE CASCADE,
    created  INTEGER NOT NULL,
    expires  INTEGER NOT NULL
) STRICT;

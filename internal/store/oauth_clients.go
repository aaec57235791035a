package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// OAuth errors. Callers match them with errors.Is.
var (
	ErrClientNotFound  = errors.New("oauth client not found")
	ErrClientExists    = errors.New("oauth client already exists")
	ErrClientCapFull   = errors.New("too many registered clients have never been used")
	ErrCodeInvalid     = errors.New("authorization code is unknown or expired")
	ErrCodeReused      = errors.New("authorization code was already used")
	ErrRefreshInvalid  = errors.New("refresh token is unknown, expired or revoked")
	ErrRefreshReused   = errors.New("refresh token was already used")
	ErrAccessInvalid   = errors.New("access token is unknown, expired or revoked")
	ErrPendingNotFound = errors.New("authorization request is unknown, expired or from another browser")
)

// OAuth client kinds.
const (
	ClientDCR   = "dcr"   // registered itself at /register
	ClientAdmin = "admin" // added by the owner with `cortex admin clients add`
	ClientCIMD  = "cimd"  // known by its metadata document URL
)

// OAuthClient is a client as stored. SecretHash is the SHA-256 of the
// secret, never the secret.
type OAuthClient struct {
	ID           string
	Kind         string
	Name         string
	RedirectURIs []string
	AuthMethod   string
	SecretHash   string
	JWKSURI      string
	JWKS         string
	Fetched      time.Time // cimd: when the document was fetched
	Created      time.Time
	Granted      time.Time // first approval, zero if never
	LastUsed     time.Time
}

// OAuthClientInfo is a client with its live grant count, for listings.
type OAuthClientInfo struct {
	OAuthClient
	LiveGrants int
	LastAddr   string // where it was last used from, "" if unknown
	// VaultScopes are the distinct scopes of its live grants (scope.Encode),
	// sorted; one in the usual case.
	VaultScopes []string
}

const clientCols = `id, kind, name, redirect_uris, auth_method, secret_hash, jwks_uri, jwks, fetched, created, granted, last_used`

func scanClient(r scanner) (OAuthClient, error) {
	var c OAuthClient
	var uris string
	var fetched, created, granted, used int64
	err := r.Scan(&c.ID, &c.Kind, &c.Name, &uris, &c.AuthMethod, &c.SecretHash, &c.JWKSURI, &c.JWKS,
		&fetched, &created, &granted, &used)
	if err != nil {
		return OAuthClient{}, err
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return OAuthClient{}, fmt.Errorf("client %s: redirect uris: %w", c.ID, err)
	}
	c.Fetched, c.Created, c.Granted, c.LastUsed = fromNanos(fetched), fromNanos(created), fromNanos(granted), fromNanos(used)
	return c, nil
}

// RegisterOAuthClient stores a new dcr or admin client. Clients of kind dcr
// that were never granted count against maxUnused: when that many exist,
// the oldest one created before evictBefore goes; if none is that old the
// registration fails with ErrClientCapFull. maxUnused <= 0 means no cap.
func (s *Store) RegisterOAuthClient(ctx context.Context, c OAuthClient, maxUnused int, evictBefore time.Time) (OAuthClient, error) {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return OAuthClient{}, fmt.Errorf("register client: %w", err)
	}
	c.Created = fromNanos(nanos(s.now()))
	err = s.ownerTx(ctx, func(tx *sql.Tx) error {
		if c.Kind == ClientDCR && maxUnused > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM oauth_clients WHERE granted = 0 AND kind = 'dcr'`).Scan(&n); err != nil {
				return err
			}
			if n >= maxUnused {
				res, err := tx.ExecContext(ctx, `DELETE FROM oauth_clients WHERE id = (
					SELECT id FROM oauth_clients WHERE granted = 0 AND kind = 'dcr' AND created < ?
					ORDER BY created LIMIT 1)`, nanos(evictBefore))
				if err != nil {
					return err
				}
				if k, _ := res.RowsAffected(); k == 0 {
					return ErrClientCapFull
				}
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_clients (`+clientCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
			c.ID, c.Kind, c.Name, string(uris), c.AuthMethod, c.SecretHash, c.JWKSURI, c.JWKS, nanos(c.Fetched), nanos(c.Created))
		if isOwnerUnique(err) {
			return ErrClientExists
		}
		return err
	})
	if err != nil {
		return OAuthClient{}, fmt.Errorf("register client: %w", err)
	}
	return c, nil
}

// PutCIMDClient stores or refreshes the cached metadata of a client known by
// its document URL, keeping its grant and usage times.
func (s *Store) PutCIMDClient(ctx context.Context, c OAuthClient) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return fmt.Errorf("store client document: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO oauth_clients (`+clientCols+`) VALUES (?, 'cimd', ?, ?, ?, '', ?, ?, ?, ?, 0, 0)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris,
		  auth_method = excluded.auth_method, jwks_uri = excluded.jwks_uri, jwks = excluded.jwks, fetched = excluded.fetched
		WHERE kind = 'cimd'`,
		c.ID, c.Name, string(uris), c.AuthMethod, c.JWKSURI, c.JWKS, nanos(c.Fetched), nanos(s.now()))
	if err != nil {
		return fmt.Errorf("store client document: %w", err)
	}
	return nil
}

// SetOAuthClientJWKS records the key set last fetched for a client.
func (s *Store) SetOAuthClientJWKS(ctx context.Context, id, jwks string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE oauth_clients SET jwks = ? WHERE id = ?`, jwks, id); err != nil {
		return fmt.Errorf("store client keys: %w", err)
	}
	return nil
}

// OAuthClient returns the client with this id, or ErrClientNotFound.
func (s *Store) OAuthClient(ctx context.Context, id string) (OAuthClient, error) {
	c, err := scanClient(s.db.QueryRowContext(ctx, `SELECT `+clientCols+` FROM oauth_clients WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthClient{}, ErrClientNotFound
	}
	if err != nil {
		return OAuthClient{}, fmt.Errorf("read client: %w", err)
	}
	return c, nil
}

// ListOAuthClients returns every client with its number of live grants,
// oldest first.
func (s *Store) ListOAuthClients(ctx context.Context) ([]OAuthClientInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+clientCols+`,
		(SELECT COUNT(*) FROM oauth_grants g WHERE g.client_id = oauth_clients.id AND g.revoked = 0), last_addr,
		(SELECT json_group_array(vault_scope) FROM (SELECT DISTINCT vault_scope FROM oauth_grants g
			WHERE g.client_id = oauth_clients.id AND g.revoked = 0 ORDER BY vault_scope))
		FROM oauth_clients ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list clients: %w", err)
	}
	defer rows.Close()
	var out []OAuthClientInfo
	for rows.Next() {
		var ci OAuthClientInfo
		var n int
		var addr, scopes string
		c, err := scanClient(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &n, &addr, &scopes)...) }))
		if err != nil {
			return nil, fmt.Errorf("list clients: %w", err)
		}
		if err := json.Unmarshal([]byte(scopes), &ci.VaultScopes); err != nil {
			return nil, fmt.Errorf("list clients: scopes of %q: %w", c.ID, err)
		}
		ci.OAuthClient, ci.LiveGrants, ci.LastAddr = c, n, addr
		out = append(out, ci)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list clients: %w", err)
	}
	return out, nil
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// DeleteOAuthClient removes a client and with it every grant, token and
// code it holds: all of them stop working on their next use. A client known
// by its document URL may come back, but only through a new approval.
func (s *Store) DeleteOAuthClient(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM oauth_clients WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete client: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete client %q: %w", id, ErrClientNotFound)
	}
	s.log.Info("oauth client deleted", "client", id)
	return nil
}

// TouchOAuthUse records that a grant (and its client) was used at t, from
// the address WithUseAddr put in ctx.
func (s *Store) TouchOAuthUse(ctx context.Context, grantID int64, t time.Time) error {
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var client string
		addr := useAddr(ctx)
		err := tx.QueryRowContext(ctx, `UPDATE oauth_grants SET last_used = ?, last_addr = ? WHERE id = ? RETURNING client_id`,
			nanos(t), addr, grantID).Scan(&client)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_clients SET last_used = ?, last_addr = ? WHERE id = ?`, nanos(t), addr, client)
		return err
	})
	if err != nil {
		return fmt.Errorf("record oauth use: %w", err)
	}
	return nil
}

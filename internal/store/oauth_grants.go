package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// OAuthCode is an authorization code as stored (only its hash).
type OAuthCode struct {
	Hash        string
	ClientID    string
	RedirectURI string
	Scope       string
	Resource    string
	Challenge   string
	// VaultScope is the part of the vault the owner allowed on the consent
	// page (scope.Encode), handed on to the grant.
	VaultScope string
	Created    time.Time
	Expires    time.Time
}

// OAuthGrant is one approval by the owner and the family of tokens issued
// from it.
type OAuthGrant struct {
	ID       int64
	ClientID string
	Scope    string
	Resource string
	// VaultScope is the part of the vault its tokens may use (scope.Encode,
	// "" for the whole vault); refresh keeps it.
	VaultScope string
	Created    time.Time
}

// IssuedTokens are the hashes of a new access and refresh token pair.
type IssuedTokens struct {
	AccessHash     string
	AccessExpires  time.Time
	RefreshHash    string
	RefreshExpires time.Time
	Scope          string
}

// RefreshResult is what RotateOAuthRefresh did.
type RefreshResult struct {
	Grant OAuthGrant
	Scope string // of the new pair
	// Replayed is set when the token had been rotated within the grace
	// window: nothing changed and Successor holds the sealed pair issued then.
	Replayed  bool
	Successor []byte
}

// OAuthAccess is what a live access token stands for.
type OAuthAccess struct {
	GrantID    int64
	ClientID   string
	ClientName string
	Scope      string
	Resource   string
	VaultScope string // the grant's, as it is now
	Expires    time.Time
}

// OAuthApproval is what the owner allowed on the consent page.
type OAuthApproval struct {
	CodeHash string
	// Scope is the OAuth scope granted, within the one asked (the caller
	// checks); "" grants what was asked.
	Scope string
	// VaultScope is the part of the vault allowed (scope.Encode); the grant
	// the code becomes keeps it.
	VaultScope string
	TTL        time.Duration // of the code
}

// ApproveOAuthPending turns the pending request into an authorization code,
// in one transaction: the request is consumed (it must have been started by
// the browser with browserHash) and its client is marked as granted, so
// that it is never evicted. The client must exist.
func (s *Store) ApproveOAuthPending(ctx context.Context, idHash, browserHash string, a OAuthApproval) (OAuthPending, error) {
	now := s.now()
	var p OAuthPending
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var err error
		p, err = scanPending(tx.QueryRowContext(ctx, `DELETE FROM oauth_pending
			WHERE id_hash = ? AND browser_hash = ? AND expires > ? RETURNING `+pendingCols, idHash, browserHash, nanos(now)))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrPendingNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE oauth_clients SET granted = CASE WHEN granted = 0 THEN ? ELSE granted END
			WHERE id = ?`, nanos(now), p.ClientID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrClientNotFound
		}
		scope := a.Scope
		if scope == "" {
			scope = p.Scope
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_codes (hash, client_id, redirect_uri, scope, resource, challenge, vault_scope, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.CodeHash, p.ClientID, p.RedirectURI, scope, p.Resource, p.Challenge,
			a.VaultScope, nanos(now), nanos(now.Add(a.TTL)))
		return err
	})
	if err != nil {
		return OAuthPending{}, fmt.Errorf("approve authorization request: %w", err)
	}
	return p, nil
}

// RedeemOAuthCode exchanges a code for a new grant and its first tokens, in
// one transaction. The code works once: presented again, it revokes the
// grant it produced and fails with ErrCodeReused. check sees the code after
// it has been marked used; its error is returned as is and the code stays
// burnt.
func (s *Store) RedeemOAuthCode(ctx context.Context, codeHash string, check func(OAuthCode) error, t IssuedTokens) (OAuthGrant, error) {
	now := nanos(s.now())
	var g OAuthGrant
	var outcome error
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var c OAuthCode
		var created, expires, used, grantID int64
		err := tx.QueryRowContext(ctx, `SELECT hash, client_id, redirect_uri, scope, resource, challenge, vault_scope, created, expires, used, grant_id
			FROM oauth_codes WHERE hash = ?`, codeHash).Scan(&c.Hash, &c.ClientID, &c.RedirectURI, &c.Scope, &c.Resource,
			&c.Challenge, &c.VaultScope, &created, &expires, &used, &grantID)
		if errors.Is(err, sql.ErrNoRows) {
			outcome = ErrCodeInvalid
			return nil
		}
		if err != nil {
			return err
		}
		c.Created, c.Expires = fromNanos(created), fromNanos(expires)
		if used != 0 {
			outcome = ErrCodeReused
			if grantID != 0 {
				_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked = ? WHERE id = ? AND revoked = 0`, now, grantID)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET used = ? WHERE hash = ?`, now, codeHash); err != nil {
			return err
		}
		if expires <= now {
			outcome = ErrCodeInvalid
			return nil
		}
		if outcome = check(c); outcome != nil {
			return nil
		}
		if t.Scope == "" {
			t.Scope = c.Scope
		}
		g = OAuthGrant{ClientID: c.ClientID, Scope: c.Scope, Resource: c.Resource, VaultScope: c.VaultScope, Created: fromNanos(now)}
		if err := tx.QueryRowContext(ctx, `INSERT INTO oauth_grants (client_id, scope, resource, vault_scope, created, last_used)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, c.ClientID, c.Scope, c.Resource, c.VaultScope, now, now).Scan(&g.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET grant_id = ? WHERE hash = ?`, g.ID, codeHash); err != nil {
			return err
		}
		return insertTokens(ctx, tx, g.ID, t, now)
	})
	if err != nil {
		return OAuthGrant{}, fmt.Errorf("redeem authorization code: %w", err)
	}
	if outcome != nil {
		if errors.Is(outcome, ErrCodeReused) {
			s.log.Warn("authorization code presented twice; its grant is revoked")
		}
		return OAuthGrant{}, outcome
	}
	return g, nil
}

func insertTokens(ctx context.Context, tx *sql.Tx, grantID int64, t IssuedTokens, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, scope, created, expires)
		VALUES (?, ?, 'access', ?, ?, ?), (?, ?, 'refresh', ?, ?, ?)`,
		t.AccessHash, grantID, t.Scope, now, nanos(t.AccessExpires),
		t.RefreshHash, grantID, t.Scope, now, nanos(t.RefreshExpires))
	return err
}

// RotateOAuthRefresh spends a refresh token for the next pair, in one
// transaction. A token already spent within grace, whose successor is still
// unspent, returns the sealed pair issued then (Replayed); spent longer ago
// or already superseded, it revokes the whole family and fails with
// ErrRefreshReused. check may refuse (e.g. another client's
// token) without changing anything; otherwise it returns the scope of the
// new pair.
func (s *Store) RotateOAuthRefresh(ctx context.Context, hash string, grace time.Duration, check func(OAuthGrant) (string, error),
	next IssuedTokens, sealed []byte) (RefreshResult, error) {
	now := s.now()
	var r RefreshResult
	var outcome error
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var expires, used, created, revoked int64
		var successor []byte
		g := &r.Grant
		err := tx.QueryRowContext(ctx, `SELECT t.expires, t.used, t.successor, g.id, g.client_id, g.scope, g.resource, g.vault_scope, g.created, g.revoked
			FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ? AND t.kind = 'refresh'`, hash).
			Scan(&expires, &used, &successor, &g.ID, &g.ClientID, &g.Scope, &g.Resource, &g.VaultScope, &created, &revoked)
		if errors.Is(err, sql.ErrNoRows) {
			outcome = ErrRefreshInvalid
			return nil
		}
		if err != nil {
			return err
		}
		g.Created = fromNanos(created)
		scope, refused := g.Scope, error(nil)
		if check != nil {
			scope, refused = check(*g)
		}
		r.Scope = scope
		// The grace window covers a client refreshing twice at once: it
		// holds only while the successor issued by this token is unspent.
		// Once the client has moved on, an old token presented again is
		// a replay, even within the window.
		successorSpent := false
		if used != 0 && revoked == 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM oauth_tokens
				WHERE grant_id = ? AND kind = 'refresh' AND created >= ? AND used != 0 AND hash != ?`,
				g.ID, used, hash).Scan(&n); err != nil {
				return err
			}
			successorSpent = n > 0
		}
		switch {
		case revoked != 0:
			outcome = ErrRefreshInvalid
		case refused != nil:
			outcome = refused
		case used != 0 && !successorSpent && now.Sub(fromNanos(used)) <= grace && len(successor) > 0 && !now.Before(fromNanos(used)):
			r.Replayed, r.Successor = true, successor
		case used != 0:
			outcome = ErrRefreshReused
			_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked = ? WHERE id = ?`, nanos(now), g.ID)
		case expires <= nanos(now):
			outcome = ErrRefreshInvalid
		default:
			if _, err = tx.ExecContext(ctx, `UPDATE oauth_tokens SET used = ?, successor = ? WHERE hash = ?`,
				nanos(now), sealed, hash); err != nil {
				return err
			}
			if _, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET last_used = ? WHERE id = ?`, nanos(now), g.ID); err != nil {
				return err
			}
			next.Scope = scope
			err = insertTokens(ctx, tx, g.ID, next, nanos(now))
		}
		return err
	})
	if err != nil {
		return RefreshResult{}, fmt.Errorf("rotate refresh token: %w", err)
	}
	if outcome != nil {
		if errors.Is(outcome, ErrRefreshReused) {
			s.log.Warn("refresh token presented again after rotation; its grant is revoked", "grant", r.Grant.ID)
		}
		return RefreshResult{}, outcome
	}
	return r, nil
}

// VerifyOAuthAccess returns what a live access token stands for, or
// ErrAccessInvalid when it is unknown, expired, or its grant or client is
// gone. It runs on every request: the answer is remembered until anything
// is committed to the database (verified.go), otherwise it is one indexed
// lookup; the expiry is checked on every call.
func (s *Store) VerifyOAuthAccess(ctx context.Context, hash string) (OAuthAccess, error) {
	key := "oauth:" + hash
	version, known := s.verified.version()
	var a OAuthAccess
	if v, ok := s.verified.get(key, version); known && ok {
		a = v.(OAuthAccess)
	} else {
		var expires int64
		err := s.db.QueryRowContext(ctx, `SELECT g.id, c.id, c.name, t.scope, g.resource, g.vault_scope, t.expires
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
		WHERE t.hash = ? AND t.kind = 'access' AND g.revoked = 0`, hash).
			Scan(&a.GrantID, &a.ClientID, &a.ClientName, &a.Scope, &a.Resource, &a.VaultScope, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return OAuthAccess{}, ErrAccessInvalid
		}
		if err != nil {
			return OAuthAccess{}, fmt.Errorf("verify access token: %w", err)
		}
		a.Expires = fromNanos(expires)
		if known {
			s.verified.put(key, version, a)
		}
	}
	if !s.now().Before(a.Expires) {
		return OAuthAccess{}, ErrAccessInvalid
	}
	return a, nil
}

// RevokeOAuthToken revokes the grant of the access or refresh token with
// this hash, if it belongs to clientID. It reports whether a grant was
// revoked; an unknown token is not an error (RFC 7009).
func (s *Store) RevokeOAuthToken(ctx context.Context, hash, clientID string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE oauth_grants SET revoked = ? WHERE revoked = 0 AND client_id = ? AND id =
		(SELECT grant_id FROM oauth_tokens WHERE hash = ?)`, nanos(s.now()), clientID, hash)
	if err != nil {
		return false, fmt.Errorf("revoke token: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RevokeAllOAuth ends every grant, code and pending authorization request:
// every app must be approved again.
func (s *Store) RevokeAllOAuth(ctx context.Context) error {
	if err := s.ownerTx(ctx, func(tx *sql.Tx) error { return deleteAllOAuth(ctx, tx) }); err != nil {
		return fmt.Errorf("revoke all grants: %w", err)
	}
	return nil
}

func deleteAllOAuth(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{`DELETE FROM oauth_grants`, `DELETE FROM oauth_codes`, `DELETE FROM oauth_pending`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// PruneOAuth deletes what can no longer be used: expired requests, codes
// expired for longer than keepCodes (kept that long so that a replay still
// revokes), expired tokens, and grants that are revoked or hold no token.
func (s *Store) PruneOAuth(ctx context.Context, keepCodes time.Duration) (int64, error) {
	now := s.now()
	var total int64
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql string
			arg int64
		}{
			{`DELETE FROM oauth_pending WHERE expires <= ?`, nanos(now)},
			{`DELETE FROM oauth_codes WHERE expires <= ?`, nanos(now.Add(-keepCodes))},
			{`DELETE FROM oauth_tokens WHERE expires <= ?`, nanos(now)},
			{`DELETE FROM oauth_grants WHERE revoked != 0 OR (created <= ? AND NOT EXISTS
				(SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id))`, nanos(now)},
		} {
			res, err := tx.ExecContext(ctx, q.sql, q.arg)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune oauth: %w", err)
	}
	return total, nil
}

// OAuthRowCounts reports the rows of each OAuth table; the flood tests use
// it to show that strangers cannot grow them.
func (s *Store) OAuthRowCounts(ctx context.Context) (map[string]int, error) {
	out := make(map[string]int)
	for _, t := range []string{"oauth_clients", "oauth_pending", "oauth_grants", "oauth_codes", "oauth_tokens"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

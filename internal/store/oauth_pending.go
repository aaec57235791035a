package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// OAuthPending is an authorization request waiting for the owner's decision.
// IDHash and BrowserHash are hashes of the request id and of the browser's
// binding cookie; neither secret is stored.
type OAuthPending struct {
	IDHash      string
	Source      string // network source that started it
	Owner       bool   // started by a browser where the owner was signed in
	BrowserHash string
	ClientID    string
	RedirectURI string
	Scope       string
	State       string
	Challenge   string
	Resource    string
	Created     time.Time
	Expires     time.Time
}

// PendingLimits bound the pending table.
type PendingLimits struct {
	PerSource int // a new request past this evicts the source's oldest
	Total     int // past this, the oldest request of the source holding most goes
}

const pendingCols = `id_hash, source, owner, browser_hash, client_id, redirect_uri, scope, state, challenge, resource, created, expires`

func scanPending(r scanner) (OAuthPending, error) {
	var p OAuthPending
	var owner int
	var created, expires int64
	err := r.Scan(&p.IDHash, &p.Source, &owner, &p.BrowserHash, &p.ClientID, &p.RedirectURI, &p.Scope,
		&p.State, &p.Challenge, &p.Resource, &created, &expires)
	p.Owner, p.Created, p.Expires = owner != 0, fromNanos(created), fromNanos(expires)
	return p, err
}

// AddOAuthPending stores p within lim, in one transaction: expired requests
// go first; then, if p's source already holds PerSource, its oldest go; then,
// if the table holds Total, the oldest request of the source holding the
// most goes (requests started by the signed-in owner are taken only when
// nothing else is left). So the table never exceeds Total, a few sources
// cannot push out a request of a source holding one, and the owner's own
// request survives any flood.
func (s *Store) AddOAuthPending(ctx context.Context, p OAuthPending, lim PendingLimits) error {
	now := nanos(s.now())
	p.Created = fromNanos(now)
	owner := 0
	if p.Owner {
		owner = 1
	}
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_pending WHERE expires <= ?`, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_pending WHERE id_hash IN (
			SELECT id_hash FROM oauth_pending WHERE source = ? ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET ?)`,
			p.Source, max(lim.PerSource-1, 0)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM oauth_pending`).Scan(&n); err != nil {
			return err
		}
		for ; n >= lim.Total && lim.Total > 0; n-- {
			if err := evictPending(ctx, tx); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_pending (`+pendingCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.IDHash, p.Source, owner, p.BrowserHash, p.ClientID, p.RedirectURI, p.Scope, p.State, p.Challenge,
			p.Resource, now, nanos(p.Expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("store authorization request: %w", err)
	}
	return nil
}

// evictPending removes one request: the oldest of the source holding the
// most strangers' requests, else the oldest of all.
func evictPending(ctx context.Context, tx *sql.Tx) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM oauth_pending WHERE id_hash = (
		SELECT id_hash FROM oauth_pending WHERE owner = 0 AND source = (
			SELECT source FROM oauth_pending WHERE owner = 0 GROUP BY source ORDER BY COUNT(*) DESC, MIN(created) LIMIT 1)
		ORDER BY created, rowid LIMIT 1)`)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k > 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM oauth_pending WHERE id_hash = (
		SELECT id_hash FROM oauth_pending ORDER BY created, rowid LIMIT 1)`)
	return err
}

// OAuthPendingRequest returns the live request with this id hash started by
// the browser with this binding hash, or ErrPendingNotFound.
func (s *Store) OAuthPendingRequest(ctx context.Context, idHash, browserHash string) (OAuthPending, error) {
	p, err := scanPending(s.db.QueryRowContext(ctx, `SELECT `+pendingCols+` FROM oauth_pending
		WHERE id_hash = ? AND browser_hash = ? AND expires > ?`, idHash, browserHash, nanos(s.now())))
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthPending{}, ErrPendingNotFound
	}
	if err != nil {
		return OAuthPending{}, fmt.Errorf("read authorization request: %w", err)
	}
	return p, nil
}

// TakeOAuthPending removes and returns the request, so that one decision is
// made about it, once. It fails like OAuthPendingRequest.
func (s *Store) TakeOAuthPending(ctx context.Context, idHash, browserHash string) (OAuthPending, error) {
	p, err := scanPending(s.db.QueryRowContext(ctx, `DELETE FROM oauth_pending
		WHERE id_hash = ? AND browser_hash = ? AND expires > ? RETURNING `+pendingCols, idHash, browserHash, nanos(s.now())))
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthPending{}, ErrPendingNotFound
	}
	if err != nil {
		return OAuthPending{}, fmt.Errorf("take authorization request: %w", err)
	}
	return p, nil
}

// PendingCounts reports how many requests are pending in all and the most
// any one source holds.
func (s *Store) PendingCounts(ctx context.Context) (total, maxPerSource int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0), COALESCE(MAX(n), 0) FROM
		(SELECT COUNT(*) AS n FROM oauth_pending GROUP BY source)`).Scan(&total, &maxPerSource)
	if err != nil {
		return 0, 0, fmt.Errorf("count authorization requests: %w", err)
	}
	return total, maxPerSource, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// OwnerSession is a browser login session; the cookie value itself is never
// stored, only its SHA-256.
type OwnerSession struct {
	Hash     string
	Method   string // passkey | totp | recovery
	Created  time.Time
	LastSeen time.Time
}

// CreateOwnerSession stores a new login session. If replaces is not empty,
// the session with that hash (the browser's previous one) is deleted in the
// same transaction, so a login always rotates the cookie. Past
// MaxOwnerSessions the oldest sessions end.
func (s *Store) CreateOwnerSession(ctx context.Context, hash, method, replaces string) (OwnerSession, error) {
	now := nanos(s.now())
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		if err := ownerExists(ctx, tx); err != nil {
			return err
		}
		if replaces != "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM owner_sessions WHERE hash = ?`, replaces); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO owner_sessions (hash, method, created, last_seen) VALUES (?, ?, ?, ?)`,
			hash, method, now, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM owner_sessions WHERE hash NOT IN
			(SELECT hash FROM owner_sessions ORDER BY created DESC, rowid DESC LIMIT ?)`, MaxOwnerSessions)
		return err
	})
	if err != nil {
		return OwnerSession{}, fmt.Errorf("create login session: %w", err)
	}
	return OwnerSession{Hash: hash, Method: method, Created: fromNanos(now), LastSeen: fromNanos(now)}, nil
}

// LookupOwnerSession returns the session with this hash, or ErrSessionNotFound.
func (s *Store) LookupOwnerSession(ctx context.Context, hash string) (OwnerSession, error) {
	o := OwnerSession{Hash: hash}
	var created, seen int64
	err := s.db.QueryRowContext(ctx, `SELECT method, created, last_seen FROM owner_sessions WHERE hash = ?`, hash).
		Scan(&o.Method, &created, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return OwnerSession{}, ErrSessionNotFound
	}
	if err != nil {
		return OwnerSession{}, fmt.Errorf("look up login session: %w", err)
	}
	o.Created, o.LastSeen = fromNanos(created), fromNanos(seen)
	return o, nil
}

// TouchOwnerSession records activity on a session at t.
func (s *Store) TouchOwnerSession(ctx context.Context, hash string, t time.Time) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE owner_sessions SET last_seen = ? WHERE hash = ?`, nanos(t), hash); err != nil {
		return fmt.Errorf("touch login session: %w", err)
	}
	return nil
}

// DeleteOwnerSession ends one session; ending an unknown one is not an error.
func (s *Store) DeleteOwnerSession(ctx context.Context, hash string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM owner_sessions WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("delete login session: %w", err)
	}
	return nil
}

// PruneOwnerSessions deletes sessions idle since before idleBefore or
// created before createdBefore, and returns how many went.
func (s *Store) PruneOwnerSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM owner_sessions WHERE last_seen < ? OR created < ?`,
		nanos(idleBefore), nanos(createdBefore))
	if err != nil {
		return 0, fmt.Errorf("prune login sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

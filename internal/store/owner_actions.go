package store

import (
	"context"
	"fmt"
	"time"
)

// OwnerActionsKept is how long owner actions are kept at least: a year,
// as long as the note history keeps a version a day. They are a few rows a
// month, and a revocation is worth finding long after the journal around
// it is gone.
const OwnerActionsKept = 365 * 24 * time.Hour

// OwnerAction is something the owner did to an app or a token.
type OwnerAction struct {
	ID     int64
	Time   time.Time
	Action string // "revoked app", "revoked token", "created token", "changed the scope of token", ...
	Target string // the app's id or the token's name; never a secret
	Writer string // "owner (console)" or "owner (cli)"
}

// RecordOwnerAction appends a to the owner's actions; a zero a.Time means
// now. These rows are not journal entries: `recent` and undo never see them.
func (s *Store) RecordOwnerAction(ctx context.Context, a OwnerAction) error {
	if a.Action == "" || a.Writer == "" {
		return fmt.Errorf("record owner action: %w: action and writer are required", ErrInvalidJournalEntry)
	}
	if a.Time.IsZero() {
		a.Time = s.now()
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO owner_actions (time, action, target, writer) VALUES (?, ?, ?, ?)`,
		nanos(a.Time), a.Action, a.Target, a.Writer); err != nil {
		return fmt.Errorf("record owner action: %w", err)
	}
	return nil
}

// OwnerActions returns up to limit actions at or after since, newest first.
func (s *Store) OwnerActions(ctx context.Context, since time.Time, limit int) ([]OwnerAction, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, time, action, target, writer FROM owner_actions
		WHERE time >= ? ORDER BY time DESC, id DESC LIMIT ?`, nanos(since), limit)
	if err != nil {
		return nil, fmt.Errorf("owner actions: %w", err)
	}
	defer rows.Close()
	var out []OwnerAction
	for rows.Next() {
		var a OwnerAction
		var t int64
		if err := rows.Scan(&a.ID, &t, &a.Action, &a.Target, &a.Writer); err != nil {
			return nil, fmt.Errorf("owner actions: %w", err)
		}
		a.Time = fromNanos(t)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("owner actions: %w", err)
	}
	return out, nil
}

// PruneOwnerActions deletes the owner actions older than keep (measured
// from the store's clock) and says how many went.
func (s *Store) PruneOwnerActions(ctx context.Context, keep time.Duration) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM owner_actions WHERE time < ?`, nanos(s.now().Add(-keep)))
	if err != nil {
		return 0, fmt.Errorf("prune owner actions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune owner actions: %w", err)
	}
	return n, nil
}

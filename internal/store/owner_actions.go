package store

import (
	"context"
	"fmt"
	"time"
)

// OwnerAction is something the owner did to an app or a token.
type OwnerAction struct {
	ID     int64
	Time   time.Time
	Action string // "revoked app", "revoked token", "created token"
	Target string // the app's id or the token's name; never a secret
}

// RecordOwnerAction appends a to the owner's actions; a zero a.Time means
// now. These rows are not journal entries: `recent` and undo never see them.
func (s *Store) RecordOwnerAction(ctx context.Context, a OwnerAction) error {
	if a.Action == "" {
		return fmt.Errorf("record owner action: %w: action is required", ErrInvalidJournalEntry)
	}
	if a.Time.IsZero() {
		a.Time = s.now()
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO owner_actions (time, action, target) VALUES (?, ?, ?)`,
		nanos(a.Time), a.Action, a.Target); err != nil {
		return fmt.Errorf("record owner action: %w", err)
	}
	return nil
}

// OwnerActions returns up to limit actions at or after since, newest first.
func (s *Store) OwnerActions(ctx context.Context, since time.Time, limit int) ([]OwnerAction, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, time, action, target FROM owner_actions
		WHERE time >= ? ORDER BY time DESC, id DESC LIMIT ?`, nanos(since), limit)
	if err != nil {
		return nil, fmt.Errorf("owner actions: %w", err)
	}
	defer rows.Close()
	var out []OwnerAction
	for rows.Next() {
		var a OwnerAction
		var t int64
		if err := rows.Scan(&a.ID, &t, &a.Action, &a.Target); err != nil {
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

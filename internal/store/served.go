package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrNotServed means no server has started on this state yet.
var ErrNotServed = errors.New("no server has started on this state")

// Served is what the server last started with on this state: the vault it
// serves and the public URL it answers at.
type Served struct {
	Vault     string // absolute path
	PublicURL string // canonical origin
	Started   time.Time
}

// RecordServed notes what a starting server serves, replacing the record of
// the previous start.
func (s *Store) RecordServed(ctx context.Context, v Served) error {
	if v.Vault == "" || v.PublicURL == "" {
		return errors.New("record served: empty vault or public URL")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO served (id, vault, public_url, started) VALUES (1, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET vault = excluded.vault, public_url = excluded.public_url, started = excluded.started`,
		v.Vault, v.PublicURL, nanos(s.now()))
	if err != nil {
		return fmt.Errorf("record served: %w", err)
	}
	return nil
}

// LastServed returns what the server last started with, or ErrNotServed.
func (s *Store) LastServed(ctx context.Context) (Served, error) {
	var v Served
	var started int64
	err := s.db.QueryRowContext(ctx, `SELECT vault, public_url, started FROM served WHERE id = 1`).Scan(&v.Vault, &v.PublicURL, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return Served{}, ErrNotServed
	}
	if err != nil {
		return Served{}, fmt.Errorf("last served: %w", err)
	}
	v.Started = fromNanos(started)
	return v, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// DefaultTimeZone is the console's time zone until the owner sets one.
const DefaultTimeZone = "UTC"

// TimeZone is the IANA name of the time zone the console shows times in:
// DefaultTimeZone until SetTimeZone is called. The store keeps the name
// as given; the console checks it before setting it.
func (s *Store) TimeZone(ctx context.Context) (string, error) {
	var name string
	err := s.db.QueryRowContext(ctx, `SELECT time_zone FROM console_settings WHERE id = 1`).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultTimeZone, nil
	}
	if err != nil {
		return "", fmt.Errorf("time zone: %w", err)
	}
	return name, nil
}

// SetTimeZone makes name the console's time zone.
func (s *Store) SetTimeZone(ctx context.Context, name string) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO console_settings (id, time_zone, updated) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET time_zone = excluded.time_zone, updated = excluded.updated`,
		name, nanos(s.now())); err != nil {
		return fmt.Errorf("set time zone: %w", err)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrJournalEntryNotFound: no journal entry has the id asked for.
var ErrJournalEntryNotFound = errors.New("journal entry not found")

// JournalEntry returns the entry with the given id.
func (s *Store) JournalEntry(ctx context.Context, id int64) (JournalEntry, error) {
	e, err := scanEntry(s.db.QueryRowContext(ctx, `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return JournalEntry{}, ErrJournalEntryNotFound
	}
	if err != nil {
		return JournalEntry{}, fmt.Errorf("journal entry: %w", err)
	}
	return e, nil
}

// JournalCall returns the successful entries journaled by the same call as
// e (same app, tool and time: a move's old and new path and the notes whose
// links it rewrote; a delete's note and its trashed copy), oldest first.
func (s *Store) JournalCall(ctx context.Context, e JournalEntry) ([]JournalEntry, error) {
	return s.journalQuery(ctx, "journal call", `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE time = ? AND app = ? AND tool = ? AND result = 'ok'
		ORDER BY id`, nanos(e.Time), e.App, e.Tool)
}

// JournalOfApp returns the successful entries of app at or after since,
// oldest first, at most MaxJournalLimit.
func (s *Store) JournalOfApp(ctx context.Context, app string, since time.Time) ([]JournalEntry, error) {
	return s.journalQuery(ctx, "journal of app", `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE app = ? AND time >= ? AND result = 'ok'
		ORDER BY time, id LIMIT ?`, app, nanos(since), MaxJournalLimit)
}

func (s *Store) journalQuery(ctx context.Context, what, query string, args ...any) ([]JournalEntry, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []JournalEntry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

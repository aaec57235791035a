package store

import (
	"context"
	"fmt"
	"time"
)

// NoteWrites is what WritesByApp says of one note: how many changes one
// app made to it, and when the first and the last of them were.
type NoteWrites struct {
	Path        string
	Count       int64
	First, Last time.Time
}

// WritesByApp returns the notes app changed (successful journal entries)
// at or after since, a row per note, the most recently changed first.
// The journal is kept --journal-days, so this is bounded by what an app
// can write in that time; the console and the CLI show the first rows.
func (s *Store) WritesByApp(ctx context.Context, app string, since time.Time) ([]NoteWrites, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT path, COUNT(*), MIN(time), MAX(time)
		FROM journal WHERE app = ? AND time >= ? AND result = 'ok'
		GROUP BY path
		ORDER BY MAX(time) DESC, path`, app, nanos(since))
	if err != nil {
		return nil, fmt.Errorf("writes by app: %w", err)
	}
	defer rows.Close()
	var out []NoteWrites
	for rows.Next() {
		var w NoteWrites
		var first, last int64
		if err := rows.Scan(&w.Path, &w.Count, &first, &last); err != nil {
			return nil, fmt.Errorf("writes by app: %w", err)
		}
		w.First, w.Last = fromNanos(first), fromNanos(last)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("writes by app: %w", err)
	}
	return out, nil
}

// LatestOfApp returns the newest successful journal entries of app, at
// most limit (capped at MaxJournalLimit), newest first.
func (s *Store) LatestOfApp(ctx context.Context, app string, limit int) ([]JournalEntry, error) {
	if limit <= 0 {
		limit = DefaultJournalLimit
	}
	return s.journalQuery(ctx, "latest of app", `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE app = ? AND result = 'ok'
		ORDER BY time DESC, id DESC LIMIT ?`, app, min(limit, MaxJournalLimit))
}

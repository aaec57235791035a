package store

import (
	"context"
	"fmt"
)

// LatestWrites returns the latest successful journal entry of every path
// that has one, as LastWrites chooses it, for a cache that answers every
// path without a query: complete is false, and the map partial, when
// there are more than limit such paths.
func (s *Store) LatestWrites(ctx context.Context, limit int) (latest map[string]JournalEntry, complete bool, err error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT j.id, j.time, j.app, j.tool, j.path, j.old_version, j.new_version, j.result
		FROM journal AS j
		WHERE j.result = 'ok' AND j.id = (
			SELECT id FROM journal
			WHERE path = j.path AND result = 'ok'
			ORDER BY time DESC, id DESC
			LIMIT 1
		)
		LIMIT ?`, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("latest writes: %w", err)
	}
	defer rows.Close()
	latest = map[string]JournalEntry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, false, fmt.Errorf("latest writes: %w", err)
		}
		latest[e.Path] = e
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("latest writes: %w", err)
	}
	if len(latest) > limit {
		return latest, false, nil
	}
	return latest, true, nil
}

// JournalWrites counts the entries this Store has recorded since it was
// opened: with SeenVersion, which tells of other processes' commits once
// a request's credential check has read it, it tells a cache of journal
// answers that this process added entries (the owner's console records
// its undos here, beside the tools').
func (s *Store) JournalWrites() int64 { return s.journalWrites.Load() }

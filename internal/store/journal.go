package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// JournalEntry records one write attempt made through a tool.
type JournalEntry struct {
	ID         int64
	Time       time.Time
	App        string // the client that asked for the write
	Tool       string
	Path       string // vault-relative note path
	OldVersion string // empty when the note was created
	NewVersion string // empty when the write failed or trashed the note
	Result     string // "ok" or an error code
}

// ResultOK is the Result of a write that succeeded.
const ResultOK = "ok"

const (
	// DefaultJournalLimit is what Journal returns when asked for limit <= 0.
	DefaultJournalLimit = 100
	// MaxJournalLimit caps one Journal call.
	MaxJournalLimit = 10000
)

// RecordWrite appends e to the journal. A zero e.Time means now; e.ID is
// ignored. It returns once the row is durable (it outlives a power cut
// as with synchronous=FULL), the WAL sync shared with the writes that
// commit meanwhile (walSync).
func (s *Store) RecordWrite(ctx context.Context, e JournalEntry) error {
	if e.Path == "" || e.Result == "" {
		return fmt.Errorf("record write: %w: path and result are required", ErrInvalidJournalEntry)
	}
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	_, err := s.journal.ExecContext(ctx,
		`INSERT INTO journal (time, app, tool, path, old_version, new_version, result) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		nanos(e.Time), e.App, e.Tool, e.Path, e.OldVersion, e.NewVersion, e.Result)
	if err != nil {
		return fmt.Errorf("record write: %w", err)
	}
	s.journalWrites.Add(1)
	if err := s.journalWAL.upTo(s.journalWAL.commit()); err != nil {
		return fmt.Errorf("record write: sync: %w", err)
	}
	return nil
}

// lastWritesSQL is prepared once at Open: it runs on every fetch.
const lastWritesSQL = `
	SELECT j.id, j.time, j.app, j.tool, j.path, j.old_version, j.new_version, j.result
	FROM (SELECT DISTINCT value AS path FROM json_each(?)) AS p
	JOIN journal AS j ON j.id = (
		SELECT id FROM journal
		WHERE path = p.path AND result = 'ok'
		ORDER BY time DESC, id DESC
		LIMIT 1
	)`

// LastWrites returns, for each of paths that has one, the latest successful
// journal entry. Paths without a successful write are absent from the map.
// One query serves the whole list: each path is a single probe of the
// partial index on (path, time).
func (s *Store) LastWrites(ctx context.Context, paths []string) (map[string]JournalEntry, error) {
	out := make(map[string]JournalEntry, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	list, err := json.Marshal(paths)
	if err != nil {
		return nil, fmt.Errorf("last writes: %w", err)
	}
	rows, err := s.lastWrites.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("last writes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("last writes: %w", err)
		}
		out[e.Path] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last writes: %w", err)
	}
	return out, nil
}

// SeenVersion is cortex.db's data version as last read for a credential
// check (every authenticated request reads it, verified.go), 0 before the
// first. It differs from an earlier answer once anything was committed to
// the database in between, by this process or another (cortex admin), so
// a cache of journal answers can tell cheaply when to look for new entries
// (JournalAfter).
func (s *Store) SeenVersion() int64 { return s.verified.seen.Load() }

// LastJournalID is the id of the newest journal entry, 0 when there is none.
func (s *Store) LastJournalID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM journal`).Scan(&id); err != nil {
		return 0, fmt.Errorf("last journal id: %w", err)
	}
	return id, nil
}

// JournalAfter returns the entries with an id above afterID, oldest first,
// at most limit of them.
func (s *Store) JournalAfter(ctx context.Context, afterID int64, limit int) ([]JournalEntry, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("journal after: %w", err)
	}
	defer rows.Close()
	var out []JournalEntry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("journal after: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal after: %w", err)
	}
	return out, nil
}

// Journal returns the entries at or after since, newest first, at most limit
// of them (DefaultJournalLimit if limit <= 0, never more than MaxJournalLimit).
func (s *Store) Journal(ctx context.Context, since time.Time, limit int) ([]JournalEntry, error) {
	if limit <= 0 {
		limit = DefaultJournalLimit
	}
	limit = min(limit, MaxJournalLimit)
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, time, app, tool, path, old_version, new_version, result
		FROM journal WHERE time >= ?
		ORDER BY time DESC, id DESC
		LIMIT ?`, nanos(since), limit)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var out []JournalEntry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return out, nil
}

// PruneJournal deletes the entries older than before and says how many.
func (s *Store) PruneJournal(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM journal WHERE time < ?`, nanos(before))
	if err != nil {
		return 0, fmt.Errorf("prune journal: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune journal: %w", err)
	}
	if n > 0 {
		s.log.Info("journal pruned", "entries", n)
	}
	return n, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner) (JournalEntry, error) {
	var e JournalEntry
	var t int64
	err := r.Scan(&e.ID, &t, &e.App, &e.Tool, &e.Path, &e.OldVersion, &e.NewVersion, &e.Result)
	e.Time = fromNanos(t)
	return e, err
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultMaxReadRows bounds the reads table when Options.MaxReadRows is 0:
// a few hundred bytes a row, so well under 200 MB however many reads an
// app makes. Aggregation keeps an hour to at most a row per app, note and
// tool; the cap holds when an app reads many different notes every hour.
const DefaultMaxReadRows = 500_000

// ErrInvalidRead: a Read without an app, a path or a tool.
var ErrInvalidRead = errors.New("invalid read")

// Read is Count showings of one note to one app by one tool, the latest at
// Time. RecordReads adds it to the hour of Time.
type Read struct {
	App   string
	Path  string // vault-relative
	Tool  string // the tool that showed it: fetch, search, list, ...
	Time  time.Time
	Count int64 // 0 counts as 1
}

// NoteReads is what ReadsByApp says of one note, or ReadsOfNote of one app.
type NoteReads struct {
	App   string // set by ReadsOfNote
	Path  string // set by ReadsByApp
	Count int64
	Last  time.Time
	Tools []string // sorted
}

// readsPerTx bounds one transaction of RecordReads, so that a large batch
// does not hold the database's write lock long from the journal's writes.
const readsPerTx = 1000

// RecordReads adds reads to the per-hour counts, a thousand to a
// transaction, then trims the table to its row cap, the oldest hours
// first. It is meant for batches gathered over seconds
// (tools.ReadRecorder), not a call per read. A batch with an incomplete
// Read records nothing.
func (s *Store) RecordReads(ctx context.Context, reads []Read) error {
	for _, r := range reads {
		if r.App == "" || r.Path == "" || r.Tool == "" {
			return fmt.Errorf("record reads: %w: app, path and tool are required", ErrInvalidRead)
		}
	}
	for len(reads) > 0 {
		n := min(len(reads), readsPerTx)
		if err := s.upsertReads(ctx, reads[:n]); err != nil {
			return fmt.Errorf("record reads: %w", err)
		}
		if err := s.capReads(ctx, n); err != nil {
			return err
		}
		reads = reads[n:]
	}
	return nil
}

// readsPerStatement is how many reads one INSERT of upsertReads carries.
// Each statement costs database/sql's and the driver's work (arguments
// converted, a goroutine watching the context) on top of SQLite's, so a
// statement per read spent about as much CPU there as in SQLite. A
// hundred reads spread that cost thin and bind 600 parameters, far below
// SQLite's limit (SQLITE_MAX_VARIABLE_NUMBER, 32,766). More would save
// little and cost more: SQLite takes about a microsecond a row to prepare
// the statement for the rest of a batch, and keeps the full one prepared
// on every connection.
const readsPerStatement = 100

// upsertReadsSQL is the statement for a full chunk of readsPerStatement
// reads, prepared once (Store.readsUpsert).
var upsertReadsSQL = upsertReadsQuery(readsPerStatement)

// upsertReadsQuery is an INSERT of n reads. SQLite upserts its rows one
// after the other, so two rows of one statement with the same key add up
// as two statements would.
func upsertReadsQuery(n int) string {
	const row = "(?, ?, ?, ?, ?, ?)"
	var b strings.Builder
	b.Grow(200 + n*(len(row)+2))
	b.WriteString("INSERT INTO reads (app, path, tool, hour, count, last) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	b.WriteString(" ON CONFLICT (app, hour, path, tool) DO UPDATE SET count = count + excluded.count, last = MAX(last, excluded.last)")
	return b.String()
}

// upsertReads adds reads in one transaction, readsPerStatement to a
// statement and the rest in one built for them, in their order (capReads
// drops the lowest ids of an hour first).
func (s *Store) upsertReads(ctx context.Context, reads []Read) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The statements run without ctx's cancellation: the driver watches a
	// context that can end with a goroutine per statement, whose wake-ups
	// cost about a tenth of the CPU of a batch, and a statement of a
	// hundred reads takes about a millisecond. ctx still ends the
	// transaction: at BEGIN (a wait for the write lock), before each
	// statement and at COMMIT.
	run := context.WithoutCancel(ctx)
	var full *sql.Stmt
	args := make([]any, 0, 6*min(len(reads), readsPerStatement))
	for len(reads) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(reads), readsPerStatement)
		args = args[:0]
		for _, r := range reads[:n] {
			if r.Time.IsZero() {
				r.Time = s.now()
			}
			args = append(args, r.App, r.Path, r.Tool, nanos(r.Time.Truncate(time.Hour)), max(r.Count, 1), nanos(r.Time))
		}
		if n < readsPerStatement {
			_, err = tx.ExecContext(run, upsertReadsQuery(n), args...)
		} else {
			if full == nil {
				full = tx.StmtContext(ctx, s.readsUpsert)
				defer full.Close()
			}
			_, err = full.ExecContext(run, args...)
		}
		if err != nil {
			// database/sql rolls the transaction back as soon as ctx
			// ends, from a goroutine of its own, and a statement running
			// then fails as closed: the end of ctx is what to report.
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return err
		}
		reads = reads[n:]
	}
	return tx.Commit()
}

// capReads deletes the oldest rows past the cap. Counting the rows costs a
// scan, so it is done only when the rows added since the last count may
// have crossed the cap (added is an upper bound: an upsert may add none).
func (s *Store) capReads(ctx context.Context, added int) error {
	s.readsMu.Lock()
	defer s.readsMu.Unlock()
	s.readRows += int64(added)
	if s.readsCounted && s.readRows <= int64(s.maxReadRows) {
		return nil
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM reads`).Scan(&n); err != nil {
		return fmt.Errorf("cap reads: %w", err)
	}
	if over := n - int64(s.maxReadRows); over > 0 {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM reads WHERE id IN (SELECT id FROM reads ORDER BY hour, id LIMIT ?)`, over); err != nil {
			return fmt.Errorf("cap reads: %w", err)
		}
		s.log.Warn("reads over their cap: dropped the oldest", "rows", over, "cap", s.maxReadRows)
		n -= over
	}
	s.readRows, s.readsCounted = n, true
	return nil
}

// ReadsByApp returns what app was shown since the given time, a row per
// note, the most recently read first. Reads are counted by the hour, so
// the hour that holds since counts whole.
func (s *Store) ReadsByApp(ctx context.Context, app string, since time.Time) ([]NoteReads, error) {
	out, err := s.readsGrouped(ctx, "path", "app", app, since)
	if err != nil {
		return nil, fmt.Errorf("reads by app: %w", err)
	}
	return out, nil
}

// ReadsOfNote returns which apps were shown the note at path since the
// given time, a row per app, the most recent first.
func (s *Store) ReadsOfNote(ctx context.Context, path string, since time.Time) ([]NoteReads, error) {
	out, err := s.readsGrouped(ctx, "app", "path", path, since)
	if err != nil {
		return nil, fmt.Errorf("reads of note: %w", err)
	}
	return out, nil
}

// readsGrouped sums the rows whose column where equals value, since the
// given time, by column group; both columns are this file's constants.
func (s *Store) readsGrouped(ctx context.Context, group, where, value string, since time.Time) ([]NoteReads, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT `+group+`, SUM(count), MAX(last), group_concat(DISTINCT tool)
		FROM reads WHERE `+where+` = ? AND hour >= ? AND last >= ?
		GROUP BY `+group+`
		ORDER BY MAX(last) DESC, `+group,
		value, nanos(since.Truncate(time.Hour)), nanos(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NoteReads
	for rows.Next() {
		var (
			r     NoteReads
			key   string
			last  int64
			tools string
		)
		if err := rows.Scan(&key, &r.Count, &last, &tools); err != nil {
			return nil, err
		}
		if group == "path" {
			r.Path, r.App = key, value
		} else {
			r.App, r.Path = key, value
		}
		r.Last = fromNanos(last)
		r.Tools = sortedSet(tools)
		out = append(out, r)
	}
	return out, rows.Err()
}

// sortedSet splits group_concat's comma list (tool names hold no comma)
// and sorts it.
func sortedSet(list string) []string {
	if list == "" {
		return nil
	}
	parts := strings.Split(list, ",")
	slices.Sort(parts)
	return parts
}

// PruneReads deletes the hours of reads that ended before the given time
// and says how many rows went.
func (s *Store) PruneReads(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM reads WHERE hour < ?`, nanos(before.Truncate(time.Hour)))
	if err != nil {
		return 0, fmt.Errorf("prune reads: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune reads: %w", err)
	}
	return n, nil
}

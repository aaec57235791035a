package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

const versionCols = `id, path, version, time, writer, kind, gone, (SELECT size FROM blobs WHERE blobs.id = versions.blob)`

func scanVersion(r scanner) (NoteVersion, error) {
	var v NoteVersion
	var t int64
	err := r.Scan(&v.ID, &v.Path, &v.Version, &t, &v.Writer, &v.Kind, &v.Gone, &v.Size)
	v.Time = fromNanos(t)
	return v, err
}

// Versions lists the stored versions of the note at path, newest first, at
// most limit (all when limit <= 0).
func (h *HistoryDB) Versions(ctx context.Context, path string, limit int) ([]NoteVersion, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := h.db.QueryContext(ctx, `SELECT `+versionCols+` FROM versions WHERE path = ? ORDER BY id DESC LIMIT ?`, path, limit)
	if err != nil {
		return nil, fmt.Errorf("note versions: %w", err)
	}
	defer rows.Close()
	var out []NoteVersion
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("note versions: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("note versions: %w", err)
	}
	return out, nil
}

// Version returns the version with the given id and its content.
func (h *HistoryDB) Version(ctx context.Context, id int64) (NoteVersion, []byte, error) {
	row := h.db.QueryRowContext(ctx, `SELECT `+versionCols+` FROM versions WHERE id = ?`, id)
	return h.withContent(ctx, row)
}

// Find returns the newest stored version of the note at path whose note
// version is version, with its content.
func (h *HistoryDB) Find(ctx context.Context, path, version string) (NoteVersion, []byte, error) {
	row := h.db.QueryRowContext(ctx, `SELECT `+versionCols+` FROM versions WHERE path = ? AND version = ? ORDER BY id DESC LIMIT 1`, path, version)
	return h.withContent(ctx, row)
}

// FindAnywhere returns the newest stored version with this note version,
// under any path: the content a journal entry names is the same whichever
// path held it.
func (h *HistoryDB) FindAnywhere(ctx context.Context, version string) (NoteVersion, []byte, error) {
	row := h.db.QueryRowContext(ctx, `SELECT `+versionCols+` FROM versions WHERE version = ? ORDER BY id DESC LIMIT 1`, version)
	return h.withContent(ctx, row)
}

func (h *HistoryDB) withContent(ctx context.Context, row *sql.Row) (NoteVersion, []byte, error) {
	v, err := scanVersion(row)
	if errors.Is(err, sql.ErrNoRows) {
		return NoteVersion{}, nil, ErrNoHistory
	}
	if err != nil {
		return NoteVersion{}, nil, fmt.Errorf("note version: %w", err)
	}
	var data []byte
	var size int64
	err = h.db.QueryRowContext(ctx, `SELECT b.data, b.size FROM blobs b JOIN versions v ON v.blob = b.id WHERE v.id = ?`, v.ID).Scan(&data, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return NoteVersion{}, nil, ErrNoHistory // purged meanwhile
	}
	if err != nil {
		return NoteVersion{}, nil, fmt.Errorf("note version: %w", err)
	}
	content, err := inflate(data, size)
	if err != nil {
		return NoteVersion{}, nil, fmt.Errorf("note version %d: %w", v.ID, err)
	}
	return v, content, nil
}

// Purge removes every stored version of the note at path, and the contents
// no other version shares, and says how many versions went. A path with no
// versions gives ErrNoHistory.
func (h *HistoryDB) Purge(ctx context.Context, path string) (int64, error) {
	return h.purge(ctx, func(tx *sql.Tx) (sql.Result, error) {
		return tx.ExecContext(ctx, `DELETE FROM versions WHERE path = ?`, path)
	})
}

// PurgeVersions removes the versions with the given ids (a note's versions
// at its earlier paths too), like Purge.
func (h *HistoryDB) PurgeVersions(ctx context.Context, ids []int64) (int64, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	return h.purge(ctx, func(tx *sql.Tx) (sql.Result, error) {
		return tx.ExecContext(ctx, `DELETE FROM versions WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	})
}

// PurgeWriter forgets what writer wrote since a time: the versions it
// wrote since then, and every other version holding a text it added in
// that span (another app's delete or move of its note, which repeats the
// text). Texts it wrote that existed before since stay with the versions
// from before. A path whose last version goes keeps its state: its new
// last version is marked gone when the note had left the path, and
// unmarked when it had not. Like Purge, it says how many versions went,
// gives ErrNoHistory when there were none, and leaves the notes alone.
func (h *HistoryDB) PurgeWriter(ctx context.Context, writer string, since time.Time) (int64, error) {
	return h.purge(ctx, func(tx *sql.Tx) (sql.Result, error) {
		// The rows to forget, in a temporary table: the delete and the
		// paths whose last version goes both need them.
		for _, q := range []string{
			`CREATE TEMP TABLE IF NOT EXISTS forget (id INTEGER PRIMARY KEY)`,
			`DELETE FROM temp.forget`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return nil, err
			}
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO temp.forget (id)
			SELECT id FROM versions WHERE writer = ?1 AND time >= ?2
			UNION
			SELECT v.id FROM versions v
			WHERE v.owner = ?1
				AND EXISTS (SELECT 1 FROM versions w WHERE w.blob = v.blob AND w.writer = ?1 AND w.time >= ?2)
				AND NOT EXISTS (SELECT 1 FROM versions o WHERE o.blob = v.blob AND o.time < ?2)`, writer, nanos(since))
		if err != nil {
			return nil, err
		}
		type last struct {
			path string
			gone bool
		}
		var lasts []last
		rows, err := tx.QueryContext(ctx, `
			SELECT v.path, v.gone FROM versions v JOIN temp.forget f ON f.id = v.id
			WHERE v.id = (SELECT MAX(id) FROM versions WHERE path = v.path)`)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var l last
			if err := rows.Scan(&l.path, &l.gone); err != nil {
				rows.Close()
				return nil, err
			}
			lasts = append(lasts, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM versions WHERE id IN (SELECT id FROM temp.forget)`)
		if err != nil {
			return nil, err
		}
		for _, l := range lasts {
			if _, err := tx.ExecContext(ctx, `UPDATE versions SET gone = ? WHERE id = (SELECT MAX(id) FROM versions WHERE path = ?)`, l.gone, l.path); err != nil {
				return nil, err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM temp.forget`); err != nil {
			return nil, err
		}
		return res, nil
	})
}

// purge runs del, which deletes versions, then drops the contents no
// version holds any more and vacuums them away.
func (h *HistoryDB) purge(ctx context.Context, del func(*sql.Tx) (sql.Result, error)) (int64, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	defer tx.Rollback()
	res, err := del(tx)
	if err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	if n == 0 {
		return 0, ErrNoHistory
	}
	if err := dropOrphans(ctx, tx); err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("purge note history: %w", err)
	}
	// Freed pages are zeroed only by a vacuum: the purged text must not
	// linger in the file's free pages or in the WAL.
	if _, err := h.db.ExecContext(ctx, `VACUUM`); err != nil {
		h.log.Warn("note history: vacuum after purge failed", "err", err)
	}
	if _, err := h.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		h.log.Warn("note history: checkpoint after purge failed", "err", err)
	}
	return n, nil
}

// PruneResult says what Prune removed.
type PruneResult struct {
	Versions int64
	Blobs    int64
}

// Prune applies the retention: every version of the last Days days; older
// ones thinned to the last of each day (UTC) for HistoryYear; older still
// dropped. The last version of a note is kept while the note lives; for a
// deleted or moved note, for HistoryYear after it left.
func (h *HistoryDB) Prune(ctx context.Context) (PruneResult, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return PruneResult{}, fmt.Errorf("prune note history: %w", err)
	}
	defer tx.Rollback()
	now := h.now()
	out, err := h.pruneIn(ctx, tx)
	if err != nil {
		return PruneResult{}, fmt.Errorf("prune note history: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return PruneResult{}, fmt.Errorf("prune note history: %w", err)
	}
	h.retainedAt.Store(now.UnixNano())
	return out, nil
}

// pruneIn applies the retention in tx: Prune, and the first way makeRoom
// makes room.
func (h *HistoryDB) pruneIn(ctx context.Context, tx *sql.Tx) (PruneResult, error) {
	recent := h.now().Add(-time.Duration(h.days) * 24 * time.Hour)
	year := recent.Add(-HistoryYear)
	res, err := tx.ExecContext(ctx, `
		DELETE FROM versions WHERE id IN (
			SELECT id FROM (
				SELECT id, time, gone,
					ROW_NUMBER() OVER (PARTITION BY path ORDER BY id DESC) AS newest,
					ROW_NUMBER() OVER (PARTITION BY path, time / 86400000000000 ORDER BY id DESC) AS of_day
				FROM versions)
			WHERE time < ?1 AND (
				(newest = 1 AND gone = 1 AND time < ?2) OR
				(newest > 1 AND (time < ?2 OR of_day > 1))))`, nanos(recent), nanos(year))
	if err != nil {
		return PruneResult{}, err
	}
	var out PruneResult
	if out.Versions, err = res.RowsAffected(); err != nil {
		return PruneResult{}, err
	}
	if out.Versions == 0 {
		return out, nil
	}
	res, err = tx.ExecContext(ctx, `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM versions WHERE versions.blob = blobs.id)`)
	if err != nil {
		return PruneResult{}, err
	}
	if out.Blobs, err = res.RowsAffected(); err != nil {
		return PruneResult{}, err
	}
	return out, nil
}

// HistoryStats sums up the history.
type HistoryStats struct {
	Versions int64
	Blobs    int64
	Stored   int64 // compressed bytes of all contents
	Size     int64 // their uncompressed bytes
	Days     int
	MaxBytes int64
	// Writers are the writers with past texts stored (texts no live
	// note's newest version holds), the most first (at most
	// maxStatsWriters), and Share each one's share of the room the cap
	// leaves beyond the notes as they are: when the cap is reached, the
	// texts of the writers over their share go first.
	Writers []WriterStored
	Share   int64
}

// WriterStored is how much of the history's past one writer's texts take.
type WriterStored struct {
	Writer string
	Stored int64 // compressed bytes of the past texts it added
}

// maxStatsWriters bounds the writers Stats lists.
const maxStatsWriters = 5

// Stats reports the history's size and retention.
func (h *HistoryDB) Stats(ctx context.Context) (HistoryStats, error) {
	s := HistoryStats{Days: h.days, MaxBytes: h.maxBytes}
	err := h.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM versions), COUNT(*), COALESCE(SUM(stored), 0), COALESCE(SUM(size), 0) FROM blobs`).
		Scan(&s.Versions, &s.Blobs, &s.Stored, &s.Size)
	if err != nil {
		return HistoryStats{}, fmt.Errorf("note history stats: %w", err)
	}
	past, err := pastByWriter(ctx, h.db)
	if err != nil {
		return HistoryStats{}, fmt.Errorf("note history stats: %w", err)
	}
	share, writers := shareOf(h.maxBytes, s.Stored, past)
	s.Share = share
	for _, w := range writers[:min(len(writers), maxStatsWriters)] {
		s.Writers = append(s.Writers, WriterStored{Writer: w, Stored: past[w]})
	}
	return s, nil
}

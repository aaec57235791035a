package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SnapshotNote is one note of a vault copy: its path and its version as
// the tools show it.
type SnapshotNote struct {
	Path, Version string
}

// Unrecorded returns the notes whose version the database copies in dbs
// do not hold: not in history.db, or, for a version an app wrote
// (created, edited, appended), with no successful write in cortex.db's
// journal. A backup copies the databases after the vault; a version
// cortex wrote is in history.db before it reaches the vault, and in the
// journal an instant after, so what this returns is a write still being
// journaled (copy again) or a change made outside cortex that the server
// has not seen yet.
func Unrecorded(ctx context.Context, dbs []DBCopy, notes []SnapshotNote) ([]SnapshotNote, error) {
	var state, hist string
	for _, d := range dbs {
		switch d.Name {
		case FileName:
			state = d.Path
		case HistoryFileName:
			hist = d.Path
		}
	}
	if state == "" || hist == "" {
		return nil, errors.New("unrecorded: both database copies are needed")
	}
	sdb, err := readOnly(state)
	if err != nil {
		return nil, err
	}
	defer sdb.Close()
	hdb, err := readOnly(hist)
	if err != nil {
		return nil, err
	}
	defer hdb.Close()
	var out []SnapshotNote
	for _, n := range notes {
		var kind, writer string
		err := hdb.QueryRowContext(ctx, `SELECT kind, writer FROM versions WHERE path = ? AND version = ? ORDER BY id DESC LIMIT 1`,
			n.Path, n.Version).Scan(&kind, &writer)
		if errors.Is(err, sql.ErrNoRows) {
			out = append(out, n)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the history copy: %w", err)
		}
		if kind != KindCreate && kind != KindEdit && kind != KindAppend {
			continue
		}
		var one int
		err = sdb.QueryRowContext(ctx, `SELECT 1 FROM journal WHERE path = ? AND new_version = ? AND result = 'ok' LIMIT 1`,
			n.Path, n.Version).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			out = append(out, n)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the journal copy: %w", err)
		}
	}
	return out, nil
}

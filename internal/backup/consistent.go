package backup

import (
	"context"
	"os"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// copyConsistent copies the state databases into scratch so that they
// hold every version of the vault copy (notes) that cortex wrote.
//
// Why this order proves it: cortex stores a note's version in history.db
// (committed) before it renames the note into place, and journals the
// write just after. The databases are copied after the vault was read, so
// the history copy holds every version the vault copy shows that cortex
// wrote; a journal entry still on its way is caught by checking the copy
// against the notes and copying again a moment later. What is still
// missing after the last try is a change made outside cortex (an editor,
// Syncthing) that the server has not seen: it returns their count, and
// the server takes such a note for a change made beside it, as it would
// have without the backup.
func copyConsistent(ctx context.Context, stateDir, scratch string, notes []store.SnapshotNote) ([]store.DBCopy, int, error) {
	wait := 10 * time.Millisecond
	for try := 0; ; try++ {
		dbs, err := store.CopyDatabases(ctx, stateDir, scratch)
		if err != nil {
			return nil, 0, err
		}
		if len(dbs) < 2 || len(notes) == 0 {
			return dbs, 0, nil // no history.db yet: nothing to hold
		}
		missing, err := store.Unrecorded(ctx, dbs, notes)
		if err != nil {
			return nil, 0, err
		}
		// Done when all are held, or when a copy again held none of the
		// rest: a write being journaled shows up in milliseconds, an
		// outside change the server has not seen does not.
		if len(missing) == 0 || try == 5 || (try > 0 && len(missing) == len(notes)) {
			return dbs, len(missing), nil
		}
		notes = missing // what the next copy must hold
		for _, d := range dbs {
			os.Remove(d.Path)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, 0, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

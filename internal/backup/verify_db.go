package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// errTimeLimit ends a database check that ran past its time limit.
var errTimeLimit = errors.New("the check ran past its time limit")

// timeLimit is how long checking a database of size bytes may take: far
// more than integrity_check needs on a Raspberry Pi (which reads tens of
// MB a second), far less than forever.
func timeLimit(size int64, opts VerifyOptions) time.Duration {
	if opts.TimeLimit > 0 {
		return opts.TimeLimit
	}
	return 30*time.Second + time.Duration(size/(4<<20))*time.Second
}

// checkDBs checks each database copy in rep.Copies with store.CheckCopy,
// each under its time limit, and records what it holds in rep.DBs.
func checkDBs(ctx context.Context, rep *Report, opts VerifyOptions) error {
	for _, name := range []string{store.FileName, store.HistoryFileName} {
		p, ok := rep.Copies[name]
		if !ok {
			continue
		}
		var size int64
		if fi, err := os.Stat(p); err == nil {
			size = fi.Size()
		}
		limit := timeLimit(size, opts)
		cctx, cancel := context.WithTimeoutCause(ctx, limit, errTimeLimit)
		cr, err := store.CheckCopy(cctx, name, p)
		cancel()
		if err != nil {
			return dbErr(ctx, name, limit, cr, rep.Manifest, err)
		}
		rep.DBs[name] = cr
	}
	return nil
}

// dbErr names what CheckCopy found wrong with the copy of name.
func dbErr(ctx context.Context, name string, limit time.Duration, cr store.CopyReport, m Manifest, err error) error {
	var se *store.SchemaError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errTimeLimit):
		return damaged("checking the backup's %s took longer than %s, far longer than such a database needs: it was altered to be slow, do not restore it", name, limit)
	case errors.As(err, &se):
		return damaged("the backup's %s %s; it was altered, do not restore it", name, se.What)
	case errors.Is(err, store.ErrSchemaTooNew):
		_, known, _ := store.SchemaVersions()
		if name == store.FileName {
			known, _, _ = store.SchemaVersions()
		}
		return fmt.Errorf("%w: %s%s has schema version %d and this cortex knows %d; use cortex %s (or newer) to restore it",
			ErrTooNew, statePrefix, name, cr.Schema, known, m.Cortex)
	}
	return damaged("%s%s fails SQLite's integrity check: %v", statePrefix, name, err)
}

// openAsServed opens copies of the checked databases the way serve does
// (store.Open and store.OpenHistory: an older schema is migrated, every
// statement the server runs is prepared), in a folder of its own inside
// scratch, so that a backup is "intact" only when the server would start
// on it. The copies go when it returns; the checked ones stay for restore.
func openAsServed(ctx context.Context, scratch string, rep *Report, l Limits) (err error) {
	var total int64
	for _, p := range rep.Copies {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	if err := room(filepath.Dir(scratch), "state (opened as the server would)", total, total, rep.Size, l); err != nil {
		return err
	}
	dir := filepath.Join(scratch, "open")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("make a scratch folder: %w", err)
	}
	defer os.RemoveAll(dir)
	for name, p := range rep.Copies {
		if err := copyFile(p, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("write a scratch copy of %s: %w", name, err)
		}
	}
	cctx, cancel := context.WithTimeoutCause(ctx, timeLimit(total, VerifyOptions{Limits: l}), errTimeLimit)
	defer cancel()
	refuse := func(name string, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return damaged("the server could not open the backup's %s: %v; do not restore it", name, err)
	}
	st, err := store.Open(cctx, dir, store.Options{Now: l.Now})
	if err != nil {
		return refuse(store.FileName, err)
	}
	if err := st.Close(); err != nil {
		return refuse(store.FileName, err)
	}
	if _, ok := rep.Copies[store.HistoryFileName]; ok {
		h, err := store.OpenHistory(cctx, dir, store.HistoryOptions{Now: l.Now})
		if err != nil {
			return refuse(store.HistoryFileName, err)
		}
		if err := h.Close(); err != nil {
			return refuse(store.HistoryFileName, err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src) // #nosec G304 -- our own scratch copy
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- our own scratch folder
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

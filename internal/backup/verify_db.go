package backup

import (
	"context"
	"errors"
	"fmt"
	"os"
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

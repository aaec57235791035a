package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Every request to /mcp verifies its bearer credential, and the answer is
// nearly always the same as a moment ago. The lookup is remembered, but only
// for as long as nothing has been committed to the database since: SQLite's
// PRAGMA data_version, asked on a connection of its own that never writes,
// changes whenever any other connection commits — this process's pool and
// every other process, such as `cortex admin token revoke` — so a revocation
// (or any other write) makes the very next request look the credential up
// again. Asking it costs a read of the WAL header, not a query of the tokens.
//
// The version is read before the lookup whose answer is remembered, so an
// answer is never tagged with a version newer than what it saw: a commit
// that races with the lookup either shows in it or changes the version.

// maxVerified bounds the remembered answers; past it they are all dropped
// and looked up again (there are a handful of live credentials).
const maxVerified = 256

// verifiedCache remembers verified credentials by their hash, each with the
// data version it was read at.
type verifiedCache struct {
	watch *sql.DB   // one connection, used only for data_version
	conn  *sql.Conn // that connection, held for good

	askMu sync.Mutex
	ask   driver.Stmt // PRAGMA data_version, prepared on conn's driver connection
	row   []driver.Value

	mu      sync.Mutex
	entries map[string]verified

	// seen is the last data version read (0 before the first), for
	// SeenVersion.
	seen atomic.Int64
}

type verified struct {
	version int64
	value   any // Token or OAuthAccess
}

func openVerifiedCache(ctx context.Context, path string) (*verifiedCache, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	// data_version reports commits by other connections than the one asked,
	// so it must always be asked on the same one.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	c := &verifiedCache{watch: db, conn: conn, row: make([]driver.Value, 1), entries: make(map[string]verified)}
	// The driver's statement is used directly: through database/sql each
	// check cost a dozen allocations of its own.
	err = conn.Raw(func(dc any) error {
		p, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return errors.New("the sqlite driver cannot prepare with a context")
		}
		c.ask, err = p.PrepareContext(ctx, `PRAGMA data_version`)
		return err
	})
	if err != nil {
		conn.Close()
		db.Close()
		return nil, fmt.Errorf("prepare data_version: %w", err)
	}
	return c, nil
}

func (c *verifiedCache) close() error {
	if c == nil {
		return nil
	}
	c.askMu.Lock()
	_ = c.conn.Raw(func(any) error { return c.ask.Close() })
	c.askMu.Unlock()
	return errors.Join(c.conn.Close(), c.watch.Close())
}

// version is the database's data version as the watching connection sees it
// now; ok is false if it could not be read, and then nothing is remembered.
// It takes no context: the PRAGMA reads one header and cannot hang, and with
// a cancellable context database/sql starts a goroutine per query to watch
// it.
func (c *verifiedCache) version() (v int64, ok bool) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	err := c.conn.Raw(func(any) error {
		q, isQ := c.ask.(driver.StmtQueryContext)
		if !isQ {
			return errors.New("the sqlite driver cannot query with a context")
		}
		rows, err := q.QueryContext(context.Background(), nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		if err := rows.Next(c.row); err != nil {
			return err
		}
		n, isInt := c.row[0].(int64)
		if !isInt {
			return fmt.Errorf("data_version is %T", c.row[0])
		}
		v = n
		return nil
	})
	if err == nil {
		c.seen.Store(v)
	}
	return v, err == nil
}

// get returns the answer remembered for key at version v.
func (c *verifiedCache) get(key string, v int64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.version != v {
		return nil, false
	}
	return e.value, true
}

// put remembers value for key, read at version v.
func (c *verifiedCache) put(key string, v int64, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxVerified {
		clear(c.entries)
	}
	c.entries[key] = verified{version: v, value: value}
}

// Package store owns cortex's two SQLite databases in the state directory.
// cortex.db (Store) holds bearer tokens, the write journal, what each app
// read (the owner's only, never served to apps), the owner's credentials,
// OAuth clients and grants, backups taken, and what the server serves (its
// vault and public URL); history.db (History, opened with OpenHistory) holds
// every kept version of the notes, in a file of its own because it grows
// with the notes. All SQL of cortex lives here.
//
// Both files are shared by a running server and by `cortex admin` commands
// at the same time, so every connection uses WAL, a busy timeout and
// immediate write transactions. This package imports no other cortex package but
// internal/fsync (a leaf both it and the vault share), never touches the
// vault, and never logs secrets.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"modernc.org/sqlite" // registers the "sqlite" driver; its Error carries result codes
)

// FileName is the name of the database file inside the state directory.
const FileName = "cortex.db"

// Sentinel errors. Callers match them with errors.Is.
var (
	ErrTokenExists         = errors.New("a live token with this name already exists")
	ErrTokenNotFound       = errors.New("token not found")
	ErrInvalidTokenName    = errors.New("invalid token name")
	ErrInvalidJournalEntry = errors.New("invalid journal entry")
	ErrSchemaTooNew        = errors.New("database was written by a newer cortex")
	// ErrDamaged: the file is not a SQLite database, or SQLite found it
	// corrupt.
	ErrDamaged = errors.New("the database file is damaged or is not a cortex database")
)

// Options configures Open. The zero value is valid.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Version is the running cortex's version, recorded in the database
	// so that an older cortex can name it; "" records nothing.
	Version string
	// MaxReadRows caps the reads table (RecordReads); 0 means
	// DefaultMaxReadRows.
	MaxReadRows int
}

// Store is the open state database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	// journal writes the journal's rows on a connection of its own with
	// synchronous=NORMAL; RecordWrite makes each durable through
	// journalWAL, which shares one sync among concurrent writes.
	journal    *sql.DB
	journalWAL *walSync
	now        func() time.Time
	log        *slog.Logger
	verify     *sql.Stmt
	// lastWrites runs on every fetch (the note's last writer): prepared once.
	lastWrites *sql.Stmt
	// readsUpsert is RecordReads' statement for a full chunk of reads:
	// SQLite takes about a microsecond a row to prepare it.
	readsUpsert *sql.Stmt
	// verified remembers verified credentials until the next commit.
	verified *verifiedCache
	// journalWrites counts RecordWrite's entries (JournalWrites).
	journalWrites atomic.Int64

	// touched remembers when this process last wrote last_used for a token,
	// so that a burst of requests with a stale row writes only once.
	mu      sync.Mutex
	touched map[int64]time.Time

	// readsMu guards what capReads knows of the reads table: readRows is
	// at least its row count once readsCounted.
	readsMu      sync.Mutex
	readRows     int64
	readsCounted bool
	maxReadRows  int
}

// Open opens (creating if needed) the database in dir and brings its schema
// up to date. dir is created with mode 0700, or tightened to 0700 if it
// exists; the database file gets mode 0600.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	db, file, err := openFile(dir, FileName, dsn)
	if err != nil {
		return nil, fmt.Errorf("open state database: %w", err)
	}

	s := &Store{
		db:      db,
		now:     opts.Now,
		log:     opts.Logger,
		touched: make(map[int64]time.Time),

		maxReadRows: opts.MaxReadRows,
	}
	if s.maxReadRows <= 0 {
		s.maxReadRows = DefaultMaxReadRows
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}

	// fail closes what is open so far.
	fail := func(err error) (*Store, error) {
		s.Close()
		return nil, fmt.Errorf("open state database: %w", err)
	}
	if err := retryBusy(ctx, func() error { return migrateKeeping(ctx, db, migrationFiles, s.now, file) }); err != nil {
		if damaged(err) {
			s.Close()
			return nil, fmt.Errorf("open state database: %s: %w (%v)", file, ErrDamaged, err)
		}
		return fail(err)
	}
	if opts.Version != "" {
		if _, err := db.ExecContext(ctx, `INSERT INTO written_by (id, version, time) VALUES (1, ?, ?)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version, time = excluded.time`, opts.Version, nanos(s.now())); err != nil {
			return fail(err)
		}
	}
	if s.verify, err = db.PrepareContext(ctx, verifySQL); err != nil {
		return fail(err)
	}
	if s.lastWrites, err = db.PrepareContext(ctx, lastWritesSQL); err != nil {
		return fail(err)
	}
	if s.readsUpsert, err = db.PrepareContext(ctx, upsertReadsSQL); err != nil {
		return fail(err)
	}
	if s.verified, err = openVerifiedCache(ctx, file); err != nil {
		return fail(err)
	}
	if s.journal, err = sql.Open("sqlite", normalDSN(file)); err != nil {
		return fail(err)
	}
	// One connection: the journal's inserts queue here rather than in
	// SQLite's busy handler, and each is quick (no sync inside it).
	s.journal.SetMaxOpenConns(1)
	s.journalWAL = newWALSync(file)
	return s, nil
}

// retryBusy runs f again while it fails with SQLITE_BUSY, for up to about
// ten seconds. Two processes opening a new database at once (the server
// and `cortex admin` right after installation) race to switch it to WAL,
// and SQLite answers that race with SQLITE_BUSY without consulting the busy
// timeout.
func retryBusy(ctx context.Context, f func() error) error {
	delay := 5 * time.Millisecond
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := f()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// sqliteBusy is SQLite's primary result code SQLITE_BUSY.
const sqliteBusy = 5

// Close releases the database. The Store must not be used afterwards.
// Open calls it too, with only what it opened so far.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.verify, s.lastWrites, s.readsUpsert} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	errs = append(errs, s.verified.close())
	for _, db := range []*sql.DB{s.journal, s.db} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// damaged reports whether err is SQLite saying the file is not a database
// or is corrupt.
func damaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary result code
	return code == sqlite3.SQLITE_NOTADB || code == sqlite3.SQLITE_CORRUPT
}

// dsn builds a file: URI so that any character in the path survives, with
// every pragma applied to each new connection by the driver. FULL: a
// commit is on disk when it returns (NORMAL may lose the last commits of
// a WAL database to a power cut).
func dsn(path string) string { return dsnWith(path, "FULL") }

// normalDSN is dsn with synchronous=NORMAL, for connections whose commits
// are made durable by a walSync before anyone is told of them.
func normalDSN(path string) string { return dsnWith(path, "NORMAL") }

// dsnWith is the DSN of path with the synchronous mode given and any
// further pragmas ("cache_size(-256)").
func dsnWith(path, synchronous string, pragmas ...string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "5000")
	q.Set("_foreign_keys", "on")
	q.Set("_synchronous", synchronous)
	q.Set("_txlock", "immediate")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// openFile opens the database file name in dir (made private first, see
// prepareFiles) with the DSN dsnOf gives for its path, and returns it with
// that absolute path.
func openFile(dir, name string, dsnOf func(string) string) (*sql.DB, string, error) {
	if dir == "" {
		return nil, "", errors.New("empty state directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	if err := UnfinishedRestore(abs); err != nil {
		return nil, "", err
	}
	if err := prepareFiles(abs, name); err != nil {
		return nil, "", err
	}
	file := filepath.Join(abs, name)
	db, err := sql.Open("sqlite", dsnOf(file))
	if err != nil {
		return nil, "", err
	}
	// Each connection carries its own page cache; a handful is plenty for
	// one owner, and writers are serialised by SQLite anyway.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	return db, file, nil
}

// prepareFiles makes the directory 0700 and the database file name in it
// 0600 before SQLite sees them; SQLite gives its -wal and -shm files the
// mode of the database file.
func prepareFiles(dir, name string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil { // #nosec G302 -- a folder: 0700 is owner-only, x lets the owner enter it
		return err
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) // #nosec G304 -- the operator's state folder and a fixed file name, never a request value
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// nanos and fromNanos convert between time.Time and the INTEGER unix
// nanoseconds stored in every time column; 0 stands for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

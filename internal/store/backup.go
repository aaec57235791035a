package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// The state databases a backup holds, in the order it takes them.
var backupFiles = []string{FileName, HistoryFileName}

// DBCopy is one database copied by CopyDatabases.
type DBCopy struct {
	Name string // FileName or HistoryFileName
	Path string // the copy
	// Schema is the copy's schema version (its highest migration).
	Schema int
}

// CopyDatabases writes a consistent copy of each state database in
// stateDir (cortex.db, and history.db when it exists) into destDir, with
// VACUUM INTO: SQLite copies the database as one read transaction sees it,
// while the server goes on writing, and the copy is a single file with no
// WAL beside it. A raw file copy of a live WAL database could be torn.
// The copies get mode 0600. destDir must exist; the copies must not.
func CopyDatabases(ctx context.Context, stateDir, destDir string) ([]DBCopy, error) {
	stateDir, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, err
	}
	if destDir, err = filepath.Abs(destDir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(stateDir, FileName)); err != nil {
		return nil, fmt.Errorf("copy state database: %w", err)
	}
	var out []DBCopy
	for _, name := range backupFiles {
		src := filepath.Join(stateDir, name)
		if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) && name != FileName {
			continue
		}
		dst := filepath.Join(destDir, name)
		if err := vacuumInto(ctx, src, dst); err != nil {
			return nil, fmt.Errorf("copy %s: %w", name, err)
		}
		if err := os.Chmod(dst, 0o600); err != nil {
			return nil, fmt.Errorf("copy %s: %w", name, err)
		}
		v, err := schemaOf(ctx, dst)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", name, err)
		}
		out = append(out, DBCopy{Name: name, Path: dst, Schema: v})
	}
	return out, nil
}

func vacuumInto(ctx context.Context, src, dst string) error {
	// A plain connection: the file is already in WAL mode, and this one
	// only reads (it must not migrate the live database).
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(src), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return retryBusy(ctx, func() error {
		_, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst)
		return err
	})
}

// readOnly opens a database file that nothing else uses, read-only and
// immutable, so that checking a copy never writes beside it.
func readOnly(path string) (*sql.DB, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func schemaOf(ctx context.Context, path string) (int, error) {
	db, err := readOnly(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var v int
	err = db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// SchemaVersions are the schema versions this build knows: those of
// cortex.db and history.db.
func SchemaVersions() (state, history int, err error) {
	m, err := loadMigrations(migrationFiles)
	if err != nil {
		return 0, 0, err
	}
	sub, err := fs.Sub(historyFiles, "historydb")
	if err != nil {
		return 0, 0, err
	}
	h, err := loadMigrations(sub)
	if err != nil {
		return 0, 0, err
	}
	return latest(m), latest(h), nil
}

// CopyReport is what CheckCopy found in a database copy.
type CopyReport struct {
	Schema int
	// Counts of what the copy holds, by what it is ("tokens", "notes
	// versions", ...), in a fixed order.
	Counts []Count
}

// Count is one line of a CopyReport.
type Count struct {
	What string
	N    int64
}

// ErrCopyDamaged: PRAGMA integrity_check found the copy damaged.
var ErrCopyDamaged = errors.New("database copy is damaged")

// CheckCopy opens the database copy at path (name says which database it
// is) read-only, compares its schema with the one cortex's migrations
// build (an error matching ErrSchemaAltered names what differs; one
// wrapping ErrSchemaTooNew comes with the copy's version), runs PRAGMA
// integrity_check, and counts what it holds. Every statement runs under
// ctx: when it ends, SQLite is interrupted.
func CheckCopy(ctx context.Context, name, path string) (rep CopyReport, err error) {
	defer func() {
		// Interrupted: the time ran out, which says nothing of damage.
		if err != nil && ctx.Err() != nil {
			rep, err = CopyReport{}, fmt.Errorf("check %s: %w", name, context.Cause(ctx))
		}
	}()
	db, err := readOnly(path)
	if err != nil {
		return CopyReport{}, err
	}
	defer db.Close()
	schema, err := checkSchema(ctx, db, name)
	if err != nil {
		if damaged(err) {
			return CopyReport{}, fmt.Errorf("%w: %v", ErrCopyDamaged, err)
		}
		return CopyReport{Schema: schema}, err
	}
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return CopyReport{}, fmt.Errorf("%w: %v", ErrCopyDamaged, err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return CopyReport{}, fmt.Errorf("%w: %v", ErrCopyDamaged, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Close(); err != nil {
		return CopyReport{}, fmt.Errorf("%w: %v", ErrCopyDamaged, err)
	}
	if err := rows.Err(); err != nil {
		return CopyReport{}, fmt.Errorf("%w: %v", ErrCopyDamaged, err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], "...")
		}
		return CopyReport{}, fmt.Errorf("%w: %s", ErrCopyDamaged, strings.Join(problems, "; "))
	}
	r := CopyReport{Schema: schema}
	counts := stateCounts
	if name == HistoryFileName {
		counts = historyCounts
	}
	for _, c := range counts {
		var n int64
		if err := db.QueryRowContext(ctx, c.sql).Scan(&n); err != nil {
			if ctx.Err() != nil {
				return CopyReport{}, ctx.Err()
			}
			continue // a table a later schema added; the count is left out
		}
		r.Counts = append(r.Counts, Count{What: c.what, N: n})
	}
	return r, nil
}

var stateCounts = []struct{ what, sql string }{
	{"bearer tokens", `SELECT COUNT(*) FROM tokens WHERE revoked IS NULL`},
	{"journal entries", `SELECT COUNT(*) FROM journal`},
	{"passkeys", `SELECT COUNT(*) FROM owner_passkeys`},
	{"oauth apps", `SELECT COUNT(*) FROM oauth_clients`},
	{"oauth grants", `SELECT COUNT(*) FROM oauth_grants`},
}

var historyCounts = []struct{ what, sql string }{
	{"note versions", `SELECT COUNT(*) FROM versions`},
}

// InstallCopy moves a checked database copy into stateDir under its name,
// which must not exist there yet, with mode 0600 and the folder 0700. src
// must be on the same file system as stateDir.
func InstallCopy(src, stateDir, name string) error {
	if name != FileName && name != HistoryFileName {
		return fmt.Errorf("install %s: not a state database", name)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	dst := filepath.Join(stateDir, name)
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("install %s: %w", name, fs.ErrExist)
	}
	if err := os.Chmod(src, 0o600); err != nil {
		return err
	}
	// The copy's content is on stable storage before it gets its name:
	// a crash must never leave a cortex.db that is only partly written.
	if err := syncPath(src); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	return SyncDir(stateDir)
}

// RestoreMarker is the file a restore of a backup keeps in the state folder
// from its first write until everything is in place. A restore cut short (a
// crash, a power cut) leaves it behind, and then nothing opens the folder.
const RestoreMarker = "RESTORE-UNFINISHED"

// ErrRestoreUnfinished: the state folder holds RestoreMarker.
var ErrRestoreUnfinished = errors.New("a restore of a backup into this state folder did not finish")

// UnfinishedRestore returns an error wrapping ErrRestoreUnfinished when dir
// holds RestoreMarker.
func UnfinishedRestore(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, RestoreMarker)); err == nil {
		return fmt.Errorf("%s: %w (%s is there); empty it and the vault folder it was restoring into, and run the restore again", dir, ErrRestoreUnfinished, RestoreMarker)
	}
	return nil
}

// MarkRestoring puts RestoreMarker, durably, into stateDir, which must
// exist.
func MarkRestoring(stateDir string) error {
	p := filepath.Join(stateDir, RestoreMarker)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- the new state folder
	if err != nil {
		return err
	}
	_, err = f.WriteString("A restore of a cortex backup into this folder began and did not finish.\n" +
		"Empty this folder and the vault folder it was restoring into, then run `cortex admin restore` again.\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return SyncDir(stateDir)
}

// RestoreDone removes RestoreMarker from stateDir, durably.
func RestoreDone(stateDir string) error {
	if err := os.Remove(filepath.Join(stateDir, RestoreMarker)); err != nil {
		return err
	}
	return SyncDir(stateDir)
}

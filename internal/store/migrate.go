package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrationFiles holds the schema history. To change the schema add the next
// numbered file (0002_what.sql, ...); never edit one that has shipped.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads migrations/NNNN_name.sql from fsys, in version
// order, and checks that no version repeats. A gap is allowed: a migration
// written on one branch may be numbered after one another branch adds, and
// migrate applies whichever of them a database lacks.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var migs []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must look like 0001_what.sql", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		migs = append(migs, migration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].version < migs[j].version })
	for i := 1; i < len(migs); i++ {
		if migs[i].version == migs[i-1].version {
			return nil, fmt.Errorf("migration %s: version %d is also %s", migs[i].name, migs[i].version, migs[i-1].name)
		}
	}
	return migs, nil
}

// latest is the highest version of migs, 0 for none.
func latest(migs []migration) int {
	if len(migs) == 0 {
		return 0
	}
	return migs[len(migs)-1].version
}

// schemaMigrationsSQL creates the table that records the migrations
// applied; it is no migration of its own.
const schemaMigrationsSQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name    TEXT    NOT NULL,
		applied INTEGER NOT NULL
	) STRICT`

// migrate applies every migration not yet recorded in schema_migrations,
// each in its own immediate transaction, so two processes opening the same
// file at once apply each migration exactly once.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS, now func() time.Time) error {
	return migrateKeeping(ctx, db, fsys, now, "")
}

// migrateKeeping is migrate that, when path names the database file and
// the database has a schema to change, first keeps a copy of it as
// path.before-N (N: the first migration to apply), so that an upgrade that
// goes wrong can be undone by hand. An existing copy is left alone: it is
// the older state.
func migrateKeeping(ctx context.Context, db *sql.DB, fsys fs.FS, now func() time.Time, path string) error {
	migs, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, schemaMigrationsSQL); err != nil {
		return fmt.Errorf("create schema table: %w", err)
	}
	applied, err := appliedVersions(ctx, db)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	have := 0
	for v := range applied {
		have = max(have, v)
	}
	if have > latest(migs) {
		by := "a newer cortex"
		var v string
		if db.QueryRowContext(ctx, `SELECT version FROM written_by WHERE id = 1`).Scan(&v) == nil && v != "" {
			by = "cortex " + v
		}
		return fmt.Errorf("%w: %s wrote it (schema version %d; this build knows %d): run that version or a newer one", ErrSchemaTooNew, by, have, latest(migs))
	}
	var pending []migration
	for _, m := range migs {
		if !applied[m.version] {
			pending = append(pending, m)
		}
	}
	if path != "" && have > 0 && len(pending) > 0 {
		if err := keepBefore(ctx, db, fmt.Sprintf("%s.before-%d", path, pending[0].version)); err != nil {
			return fmt.Errorf("keep a copy before migrating: %w", err)
		}
	}
	for _, m := range pending {
		if err := applyMigration(ctx, db, m, now()); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// appliedVersions is the set of versions recorded in schema_migrations.
func appliedVersions(ctx context.Context, db *sql.DB) (map[int]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int]bool)
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}

func applyMigration(ctx context.Context, db *sql.DB, m migration, at time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil {
		return err
	}
	if done > 0 { // another process got here first
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
		m.version, m.name, nanos(at)); err != nil {
		return err
	}
	return tx.Commit()
}

// keepBefore writes a consistent copy of the database to dst (0600)
// unless dst exists.
func keepBefore(ctx context.Context, db *sql.DB, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		if _, serr := os.Lstat(dst); serr == nil {
			return nil // another process opening the database made it
		}
		return err
	}
	return os.Chmod(dst, 0o600)
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// ErrSchemaAltered: a database copy holds a table, index, trigger or view
// that cortex's migrations do not create, or lacks or changes one they do.
// A backup is what an attacker tampers with, and SQLite runs what a schema
// holds (a trigger fires on every write the server makes, a view may loop
// for ever), so only the schema cortex itself builds is let through.
var ErrSchemaAltered = errors.New("the database's schema is not the one cortex creates")

// SchemaError says what in a database copy's schema differs from what
// cortex creates, as a clause naming the object ("holds a trigger x that
// cortex does not create"). It matches ErrSchemaAltered.
type SchemaError struct{ What string }

func (e *SchemaError) Error() string        { return e.What }
func (e *SchemaError) Is(target error) bool { return target == ErrSchemaAltered }

func altered(format string, a ...any) error {
	return &SchemaError{What: fmt.Sprintf(format, a...)}
}

// schemaObject is one row of sqlite_schema.
type schemaObject struct{ typ, name, table, sql string }

// checkSchema compares the schema of db (a copy of the database name) with
// the schema a new database gets from exactly the migrations db records,
// and returns the copy's schema version. It reads only sqlite_schema
// before it has made sure schema_migrations is the table cortex creates,
// so that nothing the copy defines runs before it is known.
func checkSchema(ctx context.Context, db *sql.DB, name string) (int, error) {
	fsys, err := migrationsOf(name)
	if err != nil {
		return 0, err
	}
	migs, err := loadMigrations(fsys)
	if err != nil {
		return 0, err
	}
	got, err := readSchema(ctx, db)
	if err != nil {
		return 0, err
	}
	// schema_migrations first: reading it must read a plain table.
	empty, err := freshSchema(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer empty.db.Close()
	if err := sameObject(ctx, db, empty.db, got["schema_migrations"], empty.objs["schema_migrations"]); err != nil {
		return 0, err
	}
	applied, err := appliedVersions(ctx, db)
	if err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	versions := make([]int, 0, len(applied))
	for v := range applied {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	have := 0
	if len(versions) > 0 {
		have = versions[len(versions)-1]
	}
	if have > latest(migs) {
		return have, fmt.Errorf("%w: schema version %d; this build knows %d", ErrSchemaTooNew, have, latest(migs))
	}
	var want []migration
	for _, m := range migs {
		if applied[m.version] {
			want = append(want, m)
		}
	}
	if len(want) != len(versions) {
		return 0, altered("records a schema version that no cortex migration has")
	}
	fresh, err := freshSchema(ctx, want)
	if err != nil {
		return 0, err
	}
	defer fresh.db.Close()
	for _, n := range sortedKeys(got) {
		if err := sameObject(ctx, db, fresh.db, got[n], fresh.objs[n]); err != nil {
			return 0, err
		}
	}
	for _, n := range sortedKeys(fresh.objs) {
		if _, ok := got[n]; !ok {
			o := fresh.objs[n]
			return 0, altered("lacks the %s %s that cortex creates", o.typ, o.name)
		}
	}
	return have, nil
}

// migrationsOf is the migration set of the database file name.
func migrationsOf(name string) (fs.FS, error) {
	switch name {
	case FileName:
		return migrationFiles, nil
	case HistoryFileName:
		return fs.Sub(historyFiles, "historydb")
	}
	return nil, fmt.Errorf("%s is not one of cortex's databases", name)
}

func sortedKeys(m map[string]schemaObject) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sameObject compares one object of the copy (got, zero when absent) with
// the one cortex creates (want, zero when cortex creates none of that name).
func sameObject(ctx context.Context, db, fresh *sql.DB, got, want schemaObject) error {
	switch {
	case want.name == "" && got.name != "":
		return altered("holds a %s %s that cortex does not create", got.typ, got.name)
	case got.name == "":
		return altered("lacks the %s %s that cortex creates", want.typ, want.name)
	case got.typ != want.typ:
		return altered("holds a %s %s where cortex creates a %s of that name", got.typ, got.name, want.typ)
	case got.table != want.table:
		return altered("holds the %s %s on %s, where cortex creates it on %s", got.typ, got.name, got.table, want.table)
	case squash(got.sql) != squash(want.sql):
		return altered("holds a %s %s defined otherwise than cortex defines it", got.typ, got.name)
	}
	if got.typ != "table" {
		return nil
	}
	gc, err := columns(ctx, db, got.name)
	if err != nil {
		return err
	}
	wc, err := columns(ctx, fresh, want.name)
	if err != nil {
		return err
	}
	if !slices.Equal(gc, wc) {
		return altered("holds a table %s whose columns differ from those cortex creates", got.name)
	}
	return nil
}

// squash folds runs of white space, which do not change what SQL means.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// readSchema reads sqlite_schema, by name.
func readSchema(ctx context.Context, db *sql.DB) (map[string]schemaObject, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_schema`)
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, fmt.Errorf("read the schema: %w", err)
		}
		if _, dup := out[o.name]; dup {
			return nil, altered("holds two objects named %s", o.name)
		}
		out[o.name] = o
	}
	return out, rows.Err()
}

// columns lists a table's columns as pragma table_info describes them.
func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT cid, name, type, "notnull", COALESCE(dflt_value, ''), pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cid, notnull, pk int
		var name, typ, dflt string
		if err := rows.Scan(&cid, &name, &typ, &notnull, &dflt, &pk); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%d %s %s %d %s %d", cid, name, typ, notnull, dflt, pk))
	}
	return out, rows.Err()
}

// fresh is an in-memory database built by a set of migrations.
type fresh struct {
	db   *sql.DB
	objs map[string]schemaObject
}

// freshSchema builds, in memory, the database that migs (in order) make
// of an empty one, as migrate would.
func freshSchema(ctx context.Context, migs []migration) (fresh, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return fresh{}, err
	}
	// One connection: each one to ":memory:" is a database of its own.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	fail := func(err error) (fresh, error) {
		db.Close()
		return fresh{}, fmt.Errorf("build the schema cortex creates: %w", err)
	}
	if _, err := db.ExecContext(ctx, schemaMigrationsSQL); err != nil {
		return fail(err)
	}
	at := time.Unix(0, 0)
	for _, m := range migs {
		if err := applyMigration(ctx, db, m, at); err != nil {
			return fail(fmt.Errorf("migration %s: %w", m.name, err))
		}
	}
	objs, err := readSchema(ctx, db)
	if err != nil {
		return fail(err)
	}
	return fresh{db: db, objs: objs}, nil
}

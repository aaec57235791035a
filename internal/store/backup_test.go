package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// oldDatabase makes a state database with only the first n migrations, as
// an older cortex left it.
func oldDatabase(t *testing.T, dir string, n int) {
	t.Helper()
	old := fstest.MapFS{}
	for v := 1; v <= n; v++ {
		names, _ := fs.Glob(migrationFiles, "migrations/000"+string(rune('0'+v))+"_*.sql")
		body, err := fs.ReadFile(migrationFiles, names[0])
		if err != nil {
			t.Fatal(err)
		}
		old[names[0]] = &fstest.MapFile{Data: body}
	}
	if err := prepareFiles(dir, FileName); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := migrate(context.Background(), db, old, time.Now); err != nil {
		t.Fatal(err)
	}
}

func TestOpenKeepsACopyBeforeMigrating(t *testing.T) {
	dir := t.TempDir()
	oldDatabase(t, dir, 4)
	s, err := Open(context.Background(), dir, Options{Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := filepath.Join(dir, FileName+".before-5")
	fi, err := os.Stat(before)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("no copy before migration 5: %v %v", fi, err)
	}
	if v, err := schemaOf(context.Background(), before); err != nil || v != 4 {
		t.Errorf("the copy has schema %d (%v), want 4", v, err)
	}
	if _, err := CheckCopy(context.Background(), FileName, before); err != nil {
		t.Error(err)
	}
	// Up to date: nothing more is kept.
	s, err = Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "*.before-*")); len(m) != 1 {
		t.Errorf("copies: %v", m)
	}
	// A fresh database has nothing to keep.
	fresh := t.TempDir()
	s, err = Open(context.Background(), fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, _ := filepath.Glob(filepath.Join(fresh, "*.before-*")); len(m) != 0 {
		t.Errorf("a new database kept %v", m)
	}
}

func TestOpenHistoryKeepsACopyBeforeMigrating(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := OpenHistory(ctx, dir, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Keep(ctx, []Keep{{Path: "Plan.md", Content: []byte("first\n"), Writer: "app", Kind: KindCreate}}); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "*.before-*")); len(m) != 0 {
		t.Fatalf("a new history kept %v", m)
	}

	// A later build with a second migration.
	names, _ := fs.Glob(historyFiles, "historydb/migrations/*.sql")
	next := fstest.MapFS{}
	for _, n := range names {
		body, err := fs.ReadFile(historyFiles, n)
		if err != nil {
			t.Fatal(err)
		}
		next[strings.TrimPrefix(n, "historydb/")] = &fstest.MapFile{Data: body}
	}
	v := len(names) + 1
	next[fmt.Sprintf("migrations/%04d_later.sql", v)] = &fstest.MapFile{Data: []byte("CREATE TABLE later (id INTEGER PRIMARY KEY) STRICT;")}
	for range 2 { // the second open is up to date and keeps nothing more
		h, err = OpenHistory(ctx, dir, HistoryOptions{migrations: next})
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
	}
	before := filepath.Join(dir, fmt.Sprintf("%s.before-%d", HistoryFileName, v))
	fi, err := os.Stat(before)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("no copy before migration %d: %v %v", v, fi, err)
	}
	if got, err := schemaOf(ctx, before); err != nil || got != v-1 {
		t.Errorf("the copy has schema %d (%v), want %d", got, err, v-1)
	}
	if _, err := CheckCopy(ctx, HistoryFileName, before); err != nil {
		t.Error(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.before-*")); len(m) != 1 {
		t.Errorf("copies: %v", m)
	}
	// The copy holds the version kept before the upgrade.
	db, err := readOnly(before)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM versions`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the copy holds %d versions (%v), want 1", n, err)
	}
}

func TestOpenRefusesANewerDatabaseNamingItsWriter(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{Version: "v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (99, '0099_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(context.Background(), dir, Options{Version: "v1"})
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "cortex v9.9.9 wrote it (schema version 99") {
		t.Fatalf("open: %v", err)
	}
}

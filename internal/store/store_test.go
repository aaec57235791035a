package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func openStore(t testing.TB, dir string, c *testkit.Clock) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{Now: c.Now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	s := openStore(t, dir, testkit.NewClock(time.Time{}))
	if _, _, err := s.CreateToken(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("state dir mode = %v, want 0700", m)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		if m := mode(t, filepath.Join(dir, name)); m != 0o600 {
			t.Errorf("%s mode = %v, want 0600", name, m)
		}
	}
}

func TestOpenTightensExisting(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, FileName)
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	openStore(t, dir, testkit.NewClock(time.Time{}))
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("state dir mode = %v, want 0700", m)
	}
	if m := mode(t, db); m != 0o600 {
		t.Errorf("database mode = %v, want 0600", m)
	}
}

func TestOpenEmptyDir(t *testing.T) {
	if _, err := Open(context.Background(), "", Options{}); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
}

func TestOpenPathWithURIChars(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd ?#%&= name")
	s := openStore(t, dir, testkit.NewClock(time.Time{}))
	if _, _, err := s.CreateToken(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatalf("database not where expected: %v", err)
	}
}

func TestPragmas(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	// Check a fresh connection of the pool, not just the one that migrated.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
		{"synchronous", "2"}, // FULL
	}
	for _, tt := range tests {
		var got string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tt.pragma, err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %q, want %q", tt.pragma, got, tt.want)
		}
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s1, err := Open(ctx, dir, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := s1.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir, c)
	if _, err := s2.VerifyToken(ctx, secret); err != nil {
		t.Fatalf("token lost across reopen: %v", err)
	}
	migs, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s2.db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(migs) {
		t.Errorf("schema_migrations has %d rows, want %d", n, len(migs))
	}
}

func TestSchemaTooNew(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, testkit.NewClock(time.Time{}))
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (999, '0999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dir, Options{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
}

func TestMigrate(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantErr string
		tables  []string // tables that must exist afterwards
		absent  []string // tables that must not
		version int
	}{
		{
			name: "in order",
			files: fstest.MapFS{
				"migrations/0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER REFERENCES a(x));`)},
				"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER PRIMARY KEY); CREATE TABLE a2 (y);`)},
			},
			tables:  []string{"a", "a2", "b"},
			version: 2,
		},
		{
			// Numbered after a migration of a branch not merged yet.
			name: "gap",
			files: fstest.MapFS{
				"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x);`)},
				"migrations/0003_c.sql": {Data: []byte(`CREATE TABLE c (x);`)},
			},
			tables:  []string{"a", "c"},
			version: 3,
		},
		{
			name: "repeated version",
			files: fstest.MapFS{
				"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x);`)},
				"migrations/0001_b.sql": {Data: []byte(`CREATE TABLE b (x);`)},
			},
			wantErr: "version 1 is also",
			absent:  []string{"a", "b"},
		},
		{
			name:    "bad name",
			files:   fstest.MapFS{"migrations/first.sql": {Data: []byte(`CREATE TABLE a (x);`)}},
			wantErr: "name must look like",
		},
		{
			name: "failure rolls back that migration only",
			files: fstest.MapFS{
				"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x);`)},
				"migrations/0002_b.sql": {Data: []byte(`CREATE TABLE b (x); THIS IS NOT SQL;`)},
			},
			wantErr: "0002_b.sql",
			tables:  []string{"a"},
			absent:  []string{"b"},
			version: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
			ctx := context.Background()
			// A clean database beside the real schema: drop the real history.
			if _, err := s.db.Exec(`DROP TABLE schema_migrations`); err != nil {
				t.Fatal(err)
			}
			err := migrate(ctx, s.db, tt.files, time.Now)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("migrate: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("migrate = %v, want error containing %q", err, tt.wantErr)
			}
			for _, name := range tt.tables {
				if !tableExists(t, s, name) {
					t.Errorf("table %s missing", name)
				}
			}
			for _, name := range tt.absent {
				if tableExists(t, s, name) {
					t.Errorf("table %s exists", name)
				}
			}
			var v int
			s.db.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
			if v != tt.version {
				t.Errorf("schema version = %d, want %d", v, tt.version)
			}
			if err == nil { // applying again is a no-op
				if err := migrate(ctx, s.db, tt.files, time.Now); err != nil {
					t.Errorf("second migrate: %v", err)
				}
			}
		})
	}
}

// TestMigrateFillsGap: a database that got 0001 and 0003 (0003 merged
// first) gets 0002 once a build has it, and nothing else runs twice.
func TestMigrateFillsGap(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	if _, err := s.db.Exec(`DROP TABLE schema_migrations`); err != nil {
		t.Fatal(err)
	}
	first := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x);`)},
		"migrations/0003_c.sql": {Data: []byte(`CREATE TABLE c (x);`)},
	}
	if err := migrate(ctx, s.db, first, time.Now); err != nil {
		t.Fatal(err)
	}
	later := fstest.MapFS{
		"migrations/0001_a.sql": first["migrations/0001_a.sql"],
		"migrations/0002_b.sql": {Data: []byte(`CREATE TABLE b (x);`)},
		"migrations/0003_c.sql": first["migrations/0003_c.sql"],
	}
	if err := migrate(ctx, s.db, later, time.Now); err != nil {
		t.Fatal(err)
	}
	if !tableExists(t, s, "b") {
		t.Error("0002 was not applied after 0003")
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != 3 {
		t.Errorf("schema_migrations has %d rows (%v), want 3", n, err)
	}
	// A build that lacks 0003 finds the database too new.
	if err := migrate(ctx, s.db, fstest.MapFS{"migrations/0001_a.sql": first["migrations/0001_a.sql"]}, time.Now); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("older build: %v, want ErrSchemaTooNew", err)
	}
}

func tableExists(t *testing.T, s *Store, name string) bool {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestTwoStoresOneFile is the server and a `cortex admin` command writing the
// same database at the same moment, including opening (and migrating) it.
func TestTwoStoresOneFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})

	var stores [2]*Store
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range stores {
		wg.Go(func() {
			s, err := Open(ctx, dir, Options{Now: c.Now})
			if err != nil {
				errs <- err
				return
			}
			stores[i] = s
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Open: %v", err)
	}
	for _, s := range stores {
		t.Cleanup(func() { s.Close() })
	}

	const perStore = 20
	errs = make(chan error, 4*perStore)
	for i, s := range stores {
		wg.Go(func() {
			for j := range perStore {
				if _, _, err := s.CreateToken(ctx, fmt.Sprintf("s%d-t%d", i, j)); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for j := range perStore {
				e := JournalEntry{App: "a", Tool: "write", Path: fmt.Sprintf("n%d-%d.md", i, j), Result: ResultOK}
				if err := s.RecordWrite(ctx, e); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}

	for i, s := range stores {
		toks, err := s.ListTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(toks) != 2*perStore {
			t.Errorf("store %d sees %d tokens, want %d", i, len(toks), 2*perStore)
		}
		entries, err := s.Journal(ctx, time.Time{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2*perStore {
			t.Errorf("store %d sees %d journal entries, want %d", i, len(entries), 2*perStore)
		}
	}
}

func TestOpenDamagedDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dir, Options{})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open = %v, want ErrDamaged", err)
	}
}

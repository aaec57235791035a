package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// tamperDB returns the archive good with the database name (a state
// file) replaced by a copy that stmts changed, and the manifest updated
// to match: what someone who can write to the backup's disk can make.
func tamperDB(t *testing.T, good []byte, name string, stmts ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	var body []byte
	rewrite(t, good, func(h *tar.Header, b []byte) ([]byte, bool) {
		if h.Name == statePrefix+name {
			body = b
		}
		return b, true
	})
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	changed, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return replaceEntry(t, good, statePrefix+name, changed)
}

// replaceEntry returns the archive good with the file entry name holding
// body, listed so in the manifest.
func replaceEntry(t *testing.T, good []byte, name string, body []byte) []byte {
	t.Helper()
	sum := sha256.Sum256(body)
	return rewrite(t, good, func(h *tar.Header, b []byte) ([]byte, bool) {
		switch h.Name {
		case name:
			return body, true
		case manifestName:
			var m Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for i := range m.Files {
				if m.Files[i].Path == name {
					m.Files[i].Size, m.Files[i].SHA256 = int64(len(body)), hex.EncodeToString(sum[:])
				}
			}
			out, _ := json.Marshal(&m)
			return out, true
		}
		return b, true
	})
}

// refusedByBoth asserts that verify and restore both refuse the archive
// data within 5 s with an error naming want, that neither leaves anything
// in the temporary folder and the restore leaves nothing at all.
func refusedByBoth(t *testing.T, data []byte, want string) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Verify(context.Background(), p, VerifyOptions{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), want) {
		t.Errorf("verify: %v\nwant a refusal naming %q", err, want)
	}
	dst := t.TempDir()
	_, err = Restore(context.Background(), p, filepath.Join(dst, "v"), filepath.Join(dst, "s"))
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), want) {
		t.Errorf("restore: %v\nwant a refusal naming %q", err, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("verify and restore took %s", took)
	}
	for _, d := range []string{tmp, dst} {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("left in %s: %v", d, ents)
		}
	}
}

func TestAlteredDatabaseRefused(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	const loop = `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id, '' AS name FROM r`
	cases := []struct {
		name  string
		db    string
		stmts []string
		want  string
	}{
		{"backdoor trigger", store.FileName, []string{`CREATE TRIGGER journal_backdoor AFTER INSERT ON journal BEGIN
			INSERT INTO tokens (name, hash, created) VALUES ('x' || NEW.id, 'attacker' || NEW.id, 0); END`},
			"the backup's cortex.db holds a trigger journal_backdoor that cortex does not create; it was altered, do not restore it"},
		{"lockout trigger", store.FileName, []string{`CREATE TRIGGER no_owner BEFORE INSERT ON owner_sessions BEGIN SELECT RAISE(ABORT, 'no'); END`},
			"holds a trigger no_owner that cortex does not create"},
		{"endless view for a table", store.FileName, []string{`DROP TABLE tokens`, `CREATE VIEW tokens AS ` + loop},
			"holds a view tokens where cortex creates a table of that name"},
		{"endless view for schema_migrations", store.FileName, []string{`DROP TABLE schema_migrations`, `CREATE VIEW schema_migrations AS ` + loop},
			"holds a view schema_migrations where cortex creates a table"},
		{"dropped table", store.FileName, []string{`DROP TABLE oauth_grants`}, "lacks the table oauth_grants that cortex creates"},
		{"dropped index", store.FileName, []string{`DROP INDEX journal_time`}, "lacks the index journal_time"},
		{"extra table", store.FileName, []string{`CREATE TABLE notes_stolen (x)`}, "holds a table notes_stolen that cortex does not create"},
		{"changed table", store.FileName, []string{`ALTER TABLE tokens ADD COLUMN note TEXT`}, "holds a table tokens defined otherwise"},
		{"unknown version", store.FileName, []string{`INSERT INTO schema_migrations VALUES (3000, '3000_x.sql', 0)`}, ""},
		{"history trigger", store.HistoryFileName, []string{`CREATE TRIGGER keep_nothing AFTER INSERT ON versions BEGIN DELETE FROM versions; END`},
			"the backup's history.db holds a trigger keep_nothing that cortex does not create"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := tamperDB(t, good, c.db, c.stmts...)
			if c.want == "" { // a newer schema: refused as such
				p := filepath.Join(t.TempDir(), "b.tar.gz")
				os.WriteFile(p, bad, 0o600)
				if _, err := Verify(context.Background(), p, VerifyOptions{}); !errors.Is(err, ErrTooNew) {
					t.Errorf("verify: %v", err)
				}
				return
			}
			refusedByBoth(t, bad, c.want)
		})
	}
}

// Every database check runs under a time limit: past it, the backup is
// refused for it, and nothing is left behind.
func TestDatabaseCheckTimeLimit(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	tmp := t.TempDir()
	_, err := Verify(context.Background(), res.Path, VerifyOptions{Scratch: tmp, TimeLimit: time.Nanosecond})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "took longer than 1ns") {
		t.Errorf("verify: %v", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	if d := timeLimit(1<<30, VerifyOptions{}); d < time.Minute || d > 10*time.Minute {
		t.Errorf("time limit for 1 GiB: %s", d)
	}
}

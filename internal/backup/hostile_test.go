package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
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
	_, err = Restore(context.Background(), p, filepath.Join(dst, "v"), filepath.Join(dst, "s"), RestoreOptions{})
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
	_, err := Verify(context.Background(), res.Path, VerifyOptions{Scratch: tmp, Limits: Limits{TimeLimit: time.Nanosecond}})
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

// bomb is the archive good with its cortex.db replaced by size bytes of
// zeros, which gzip shrinks a thousandfold; streamed, so that the test
// holds none of it in memory.
func bomb(t *testing.T, good []byte, size int64) []byte {
	t.Helper()
	return bigEntry(t, good, statePrefix+store.FileName, size)
}

// bigEntry is the archive good with the file name holding size zero bytes
// (not their SHA-256 in the manifest).
func bigEntry(t *testing.T, good []byte, name string, size int64) []byte {
	t.Helper()
	zeros := make([]byte, 1<<20)
	// Not the zeros' sum: the refusal comes before it is compared, and
	// hashing them would double the test's time.
	sum := strings.Repeat("0", 64)
	gz, err := gzip.NewReader(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&out, level)
	gw.OS = gzipOS
	tw := tar.NewWriter(gw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		switch hdr.Name {
		case name:
			hdr.Size = size
			if err := tw.WriteHeader(hdr); err != nil {
				t.Fatal(err)
			}
			for n := int64(0); n < size; n += int64(len(zeros)) {
				tw.Write(zeros[:min(int64(len(zeros)), size-n)])
			}
			continue
		case manifestName:
			var m Manifest
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			for i := range m.Files {
				if m.Files[i].Path == name {
					m.Files[i].Size, m.Files[i].SHA256 = size, sum
				}
			}
			body, _ = json.Marshal(&m)
		}
		hdr.Size = int64(len(body))
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	tw.Close()
	gw.Close()
	return out.Bytes()
}

// An archive of a few hundred KB expanding to a 256 MiB database is
// refused before anything is copied when the scratch disk has not that
// much room above its floor, and the refusal names the sizes. (A 1 GiB
// bomb is the same test; deflating a gigabyte of zeros to build it takes
// longer than the rest of the package's tests.)
func TestBombRefusedBeforeCopying(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	bad := bomb(t, good, 256<<20)
	t.Logf("archive of %s holding a 256 MiB cortex.db", Bytes(uint64(len(bad))))
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	var asked []string
	l := Limits{MinFree: 64 << 20, FreeSpace: func(dir string) (uint64, error) {
		asked = append(asked, dir)
		return 192 << 20, nil // 192 MiB free, of which 64 MiB is the floor
	}}
	tmp := t.TempDir()
	start := time.Now()
	_, err = Verify(context.Background(), p, VerifyOptions{Scratch: tmp, Limits: l})
	const want = "state/cortex.db is 256.0 MiB"
	if !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "128.0 MiB free above the floor of 64.0 MiB") {
		t.Errorf("verify: %v", err)
	}
	dst := t.TempDir()
	_, err = Restore(context.Background(), p, filepath.Join(dst, "v"), filepath.Join(dst, "s"), RestoreOptions{Limits: l})
	if !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), want) {
		t.Errorf("restore: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("refusals took %s", took)
	}
	for _, d := range []string{tmp, dst} {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("left in %s: %v", d, ents)
		}
	}
	if len(asked) == 0 {
		t.Error("free space never asked")
	}
}

// A run killed with SIGKILL leaves its scratch folder; the next run
// removes those older than an hour, and leaves a younger one (a run
// still going) alone.
func TestStaleScratchSwept(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ dir, prefix string }{{t.TempDir(), scratchPrefix}, {filepath.Dir(res.Path), ".cortex-backup-"}} {
		old, young := filepath.Join(c.dir, c.prefix+"old"), filepath.Join(c.dir, c.prefix+"young")
		other := filepath.Join(c.dir, "keep-old")
		for _, d := range []string{old, young, other} {
			if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		os.Chtimes(old, now.Add(-61*time.Minute), now.Add(-61*time.Minute))
		os.Chtimes(other, now.Add(-48*time.Hour), now.Add(-48*time.Hour))
		os.Chtimes(young, now.Add(-59*time.Minute), now.Add(-59*time.Minute))
		if c.prefix == scratchPrefix {
			if _, err := Verify(context.Background(), res.Path, VerifyOptions{Scratch: c.dir, Limits: Limits{Now: func() time.Time { return now }}}); err != nil {
				t.Fatal(err)
			}
		} else if _, err := Create(context.Background(), c.dir, Options{Vault: vaultDir, State: stateDir, Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: stale scratch kept: %v", c.prefix, err)
		}
		for _, d := range []string{young, other} {
			if _, err := os.Stat(d); err != nil {
				t.Errorf("%s: removed %s: %v", c.prefix, d, err)
			}
		}
	}
}

// Restore checks the vault's files fit on the target's disk above the
// floor before it writes the first one.
func TestRestoreVaultNeedsRoom(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	dst := t.TempDir()
	rv, rs := filepath.Join(dst, "v"), filepath.Join(dst, "s")
	l := Limits{MinFree: 1 << 20, FreeSpace: func(dir string) (uint64, error) {
		if strings.HasPrefix(dir, rs) {
			return 1 << 40, nil
		}
		return 1<<20 + 8, nil // 8 bytes above the floor where the vault goes
	}}
	_, err := Restore(context.Background(), res.Path, rv, rs, RestoreOptions{Limits: l})
	if !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "the backup's vault is") {
		t.Errorf("restore: %v", err)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}

// Every entry is held to the limits the server holds.
func TestEntriesHeldToServerLimits(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	rename := func(from, to string) []byte {
		return rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) {
			switch h.Name {
			case from:
				h.Name = to
			case manifestName:
				body = bytes.Replace(body, []byte(`"`+from+`"`), []byte(`"`+to+`"`), 1)
			}
			return body, true
		})
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"note over the limit", bigEntry(t, good, "vault/notes/a.md", 8<<20+1),
			"vault/notes/a.md is a note of 8.0 MiB (8388609 bytes), over the largest note cortex reads (8 MiB (8388608 bytes)): the server would not serve it"},
		{"file and folder", rename("vault/top.md", "vault/notes/a.md/top.md"),
			"it holds vault/notes/a.md both as a file and as a folder"},
		{"invisible character", rename("vault/top.md", "vault/to\u200bp.md"), "vault/to\u200bp.md has a name the vault refuses"},
		{"control character", rename("vault/top.md", "vault/to\x01p.md"), "has a name the vault refuses"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refusedByBoth(t, c.data, c.want) })
	}
	// An attachment is no note: it may be larger.
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	os.WriteFile(p, replaceEntry(t, good, "vault/img/pic.png", make([]byte, 9<<20)), 0o600)
	if _, err := Verify(context.Background(), p, VerifyOptions{}); err != nil {
		t.Errorf("a 9 MiB attachment: %v", err)
	}
}

package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Both ways of making a restore durable leave the files written; Abort
// takes everything back out, and the folder too when it made it.
func TestRestorerSyncAndAbort(t *testing.T) {
	for _, noSyncfs := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "vault")
		r, err := NewRestorer(dir)
		if err != nil {
			t.Fatal(err)
		}
		r.noSyncfs = noSyncfs
		if err := r.Dir("a/b"); err != nil {
			t.Fatal(err)
		}
		if err := r.File("a/b/n.md", time.Time{}, strings.NewReader("# N\n")); err != nil {
			t.Fatal(err)
		}
		if err := r.File("top.md", time.Time{}, strings.NewReader("top\n")); err != nil {
			t.Fatal(err)
		}
		if err := r.Sync(); err != nil {
			t.Fatalf("sync (noSyncfs %v): %v", noSyncfs, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "a", "b", "n.md")); err != nil || string(b) != "# N\n" {
			t.Errorf("restored %q %v", b, err)
		}
	}

	parent := t.TempDir()
	for _, existed := range []bool{false, true} {
		dir := filepath.Join(parent, "v")
		if existed {
			os.Mkdir(dir, 0o700)
		}
		r, err := NewRestorer(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.File("a/n.md", time.Time{}, strings.NewReader("# N\n")); err != nil {
			t.Fatal(err)
		}
		if err := r.Abort(); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(dir)
		switch {
		case existed && (err != nil || len(ents) != 0):
			t.Errorf("abort left %v %v in a folder that existed", ents, err)
		case !existed && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("abort left the folder it made: %v %v", ents, err)
		}
		os.Remove(dir)
	}
}

// The folders a restore creates are the ones whose entries Sync makes
// durable in their parents (without syncfs): the vault folder and each
// parent that did not exist, the deepest first, and none that existed.
func TestRestorerKnowsTheFoldersItMade(t *testing.T) {
	base := t.TempDir()
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{filepath.Join(base, "x", "y", "vault"), []string{filepath.Join(base, "x", "y", "vault"), filepath.Join(base, "x", "y"), filepath.Join(base, "x")}},
		{filepath.Join(base, "x", "other"), []string{filepath.Join(base, "x", "other")}},
		{filepath.Join(base, "x", "y"), nil}, // exists (empty after the first restore's vault is removed below)
	} {
		if c.want == nil {
			if err := os.RemoveAll(filepath.Join(base, "x", "y", "vault")); err != nil {
				t.Fatal(err)
			}
		}
		r, err := NewRestorer(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(r.made, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: made %q, want %q", c.dir, r.made, c.want)
		}
		r.noSyncfs = true
		if err := r.Sync(); err != nil {
			t.Fatalf("%s: sync: %v", c.dir, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

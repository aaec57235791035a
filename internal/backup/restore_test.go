package backup

import (
	"archive/tar"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Restore gives folders 0700 and files 0600, the modes cortex creates,
// whatever the archive records.
func TestRestoreSetsModes(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	open := rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) {
		h.Mode = 0o777
		return body, true
	})
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, open, 0o600); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	rv, rs := filepath.Join(dst, "vault"), filepath.Join(dst, "state")
	if _, err := Restore(context.Background(), p, rv, rs, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{rv, rs} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := d.Info()
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = 0o700
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
			}
			return nil
		})
	}
}

// A refused or failed restore removes every folder it made, the parents
// of the vault and state folders too.
func TestFailedRestoreRemovesParents(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	bad := tamperDB(t, good, "cortex.db", `CREATE TABLE extra (x)`)
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	// Refused at the check: only the state's folders were made.
	if _, err := Restore(context.Background(), p, filepath.Join(dst, "new", "vault"), filepath.Join(dst, "new", "deeper", "state"), RestoreOptions{}); err == nil {
		t.Fatal("restored an altered backup")
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Errorf("a refused restore left %v", ents)
	}
	// Failing late: the vault was written under a parent shared with the state.
	install := func(src, dir, name string) error { return fs.ErrPermission }
	if _, err := restore(context.Background(), res.Path, filepath.Join(dst, "a", "b", "vault"), filepath.Join(dst, "a", "state"), RestoreOptions{}, install); err == nil {
		t.Fatal("restore did not fail")
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Errorf("a failed restore left %v", ents)
	}
}

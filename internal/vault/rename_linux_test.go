package vault

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// On Linux the one-step rename is used: it keeps the inode, never
// replaces, and works across folders of the vault.
func TestRenameat2(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "sub/": ""}, nil)
	before, _ := os.Lstat(dir + "/a.md")
	if err := v.renameNoReplace("a.md", "sub/a.md"); errors.Is(err, errNoRenameat2) {
		t.Skip("this file system lacks renameat2(RENAME_NOREPLACE)")
	} else if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Lstat(dir + "/sub/a.md")
	if exists(dir, "a.md") || after == nil || !os.SameFile(before, after) {
		t.Fatal("not moved in one step")
	}
	if err := v.renameNoReplace("sub/a.md", "b.md"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("rename onto b.md: %v, want EEXIST", err)
	}
	if readFile(t, dir, "b.md") != "b\n" || readFile(t, dir, "sub/a.md") != "a\n" {
		t.Fatal("a refused rename changed a file")
	}
}

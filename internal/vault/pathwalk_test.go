package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pathOps runs one vault operation on path p. Operations that need a
// second note use "c.md" (content "c"); the note at p, when it exists,
// holds "b".
var pathOps = []struct {
	name string
	do   func(v *Vault, p string) error
}{
	{"read", func(v *Vault, p string) error { _, err := v.Read(ctx, p); return err }},
	{"create", func(v *Vault, p string) error { _, err := v.Create(ctx, p, "new"); return err }},
	{"edit", func(v *Vault, p string) error { _, err := v.Edit(ctx, p, ver("b"), "b", "x", false); return err }},
	{"append", func(v *Vault, p string) error { _, err := v.Append(ctx, p, "x", ""); return err }},
	{"move from", func(v *Vault, p string) error { _, err := v.Move(ctx, p, "moved.md", ver("b"), false); return err }},
	{"move to", func(v *Vault, p string) error { _, err := v.Move(ctx, "c.md", p, ver("c"), false); return err }},
	{"delete", func(v *Vault, p string) error { _, err := v.Delete(ctx, p, ver("b")); return err }},
}

// TestSymlinkInTheMiddle puts a symbolic link between two folders of a
// path, pointing inside and outside the vault, and checks every operation
// refuses it without touching either side.
func TestSymlinkInTheMiddle(t *testing.T) {
	for _, target := range []string{"inside", "outside"} {
		for _, op := range pathOps {
			t.Run(target+"/"+op.name, func(t *testing.T) {
				v, dir := newTestVault(t, map[string]string{"a/real/b.md": "b", "c.md": "c"}, nil)
				outside := t.TempDir()
				if err := os.WriteFile(filepath.Join(outside, "b.md"), []byte("b"), 0o644); err != nil {
					t.Fatal(err)
				}
				dest := "real"
				if target == "outside" {
					dest = outside
				}
				if err := os.Symlink(dest, filepath.Join(dir, "a", "link")); err != nil {
					t.Fatal(err)
				}
				err := op.do(v, "a/link/b.md")
				wantCode(t, err, CodeInvalidPath)
				if msg := err.(*Error).Message; msg != sentenceOf(CodeInvalidPath, ReasonLinkInPath) {
					t.Errorf("message = %q, want the symbolic-link sentence", msg)
				}
				for _, f := range []string{filepath.Join(dir, "a/real/b.md"), filepath.Join(outside, "b.md"), filepath.Join(dir, "c.md")} {
					want := "b"
					if strings.HasSuffix(f, "c.md") {
						want = "c"
					}
					if got, err := os.ReadFile(f); err != nil || string(got) != want {
						t.Errorf("%s = %q, %v; want it untouched", f, got, err)
					}
				}
				for _, p := range []string{"moved.md", ".trash", "a/real/new.md"} {
					if exists(dir, p) {
						t.Errorf("%s appeared", p)
					}
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 {
					t.Errorf("outside folder has %d entries, want 1", len(entries))
				}
				assertNoTemps(t, dir)
			})
		}
	}
}

// TestFileUsedAsFolder: a path that goes through a note as if it were a
// folder gets the sentence that says so, for every operation.
func TestFileUsedAsFolder(t *testing.T) {
	for _, p := range []string{"N.md/b.md", "d/N.md/b.md", "N.md/deeper/b.md"} {
		for _, op := range pathOps {
			t.Run(p+"/"+op.name, func(t *testing.T) {
				v, dir := newTestVault(t, map[string]string{"N.md": "n", "d/N.md": "n", "c.md": "c"}, nil)
				err := op.do(v, p)
				want, msg := CodeNotFound, sentenceOf(CodeNotFound, ReasonFileInPath)
				if op.name == "create" || op.name == "move to" {
					want, msg = CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonFileInNewPath)
				}
				wantCode(t, err, want)
				if got := err.(*Error).Message; got != msg {
					t.Errorf("message = %q, want %q", got, msg)
				}
				if !strings.Contains(strings.ToLower(msg), "a part of this path is a file, not a folder") {
					t.Errorf("sentence %q does not name the problem", msg)
				}
				if readFile(t, dir, "N.md") != "n" || readFile(t, dir, "c.md") != "c" {
					t.Error("a note changed")
				}
			})
		}
	}
}

// TestFileUsedAsFolderInTrash: deleting a note whose folder name is taken
// by a trashed note says what is wrong and moves nothing.
func TestFileUsedAsFolderInTrash(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md/x.md": "x", ".trash/a.md": "old"}, nil)
	_, err := v.Delete(ctx, "a.md/x.md", ver("x"))
	wantCode(t, err, CodeInvalidPath)
	if msg := err.(*Error).Message; !strings.Contains(msg, "trash holds a file") {
		t.Errorf("message = %q", msg)
	}
	if readFile(t, dir, "a.md/x.md") != "x" || readFile(t, dir, ".trash/a.md") != "old" {
		t.Error("a note changed")
	}
}

// TestFileSystemErrorsName checks the mapping of the errors a path through
// a file produces when it is only found by the file system (a file put in
// place of a folder after the path was checked).
func TestFileSystemErrorsName(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"N.md": "n"}, nil)
	_, err := v.root.Lstat("N.md/x.md")
	if e := fsErr("lstat", err); e.Code != CodeNotFound || e.Message != sentenceOf(CodeNotFound, ReasonFileInPath) {
		t.Errorf("fsErr(ENOTDIR) = %v", e)
	}
	err = v.root.MkdirAll("N.md/sub", 0o755)
	if e := mkdirErr(err); e.Code != CodeInvalidPath || e.Message != sentenceOf(CodeInvalidPath, ReasonFileInNewPath) {
		t.Errorf("mkdirErr(ENOTDIR) = %v", e)
	}
	_, err = v.root.Lstat("missing.md")
	if e := fsErr("lstat", err); e.Code != CodeNotFound || e.Message != sentences[CodeNotFound] {
		t.Errorf("fsErr(ENOENT) = %v", e)
	}
}

package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// hostileVault is a vault with a note three folders deep and, around it,
// links at every position of its path, a file used as a folder, a named
// pipe, a hard link, a folder and a note too large.
func hostileVault(t *testing.T) (*Vault, string) {
	t.Helper()
	v, dir := newTestVault(t, map[string]string{
		"a/b/c/n.md":  "note\n",
		"a/b/file.md": "file\n",
		"big.md":      strings.Repeat("x", 2000),
		"folder.md/":  "",
	}, func(o *Options) { o.MaxNote = 1000 })
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"x.md": "outside\n", "c/n.md": "outside\n"})
	for link, target := range map[string]string{
		"top":         "a",                        // first folder
		"a/link":      "b",                        // middle folder
		"a/b/clink":   "c",                        // last folder
		"a/b/out":     outside,                    // a folder outside
		"a/b/c/ln.md": "n.md",                     // the note
		"a/b/c/up.md": "../../../big.md",          // the note, leaving its folder
		"a/b/c/ex.md": outside + "/x.md",          // the note, leaving the vault
		"a/b/c/no.md": "missing.md",               // a dangling note
		"dangling":    filepath.Join("a", "gone"), // a dangling folder
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "a/b/c/n.md"), filepath.Join(dir, "hard.md")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "a/pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	return v, dir
}

const msgNoteLink = "This note is a symbolic link, which cortex never follows; use the path of the note it points to, or ask the owner to replace the link with the note itself."

// TestReadBeneathBothPaths reads every hostile path with openat2 and with
// the walk, with and without the folder's info, and requires the same
// answer, word for word, from all: the one-call lookup changes what a read
// costs, never what it says.
func TestReadBeneathBothPaths(t *testing.T) {
	v, _ := hostileVault(t)
	if v.beneath == nil {
		t.Log("this kernel lacks openat2: both runs take the walk")
	}
	tests := []struct{ path, content, code, msg string }{
		{"a/b/c/n.md", "note\n", "", ""},
		{"hard.md", "note\n", "", ""},
		{"top/b/c/n.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"a/link/c/n.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"a/b/clink/n.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"a/b/out/x.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"a/b/out/c/n.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"dangling/n.md", "", CodeInvalidPath, sentenceOf(CodeInvalidPath, ReasonLinkInPath)},
		{"a/b/c/ln.md", "", CodeInvalidPath, msgNoteLink},
		{"a/b/c/up.md", "", CodeInvalidPath, msgNoteLink},
		{"a/b/c/ex.md", "", CodeInvalidPath, msgNoteLink},
		{"a/b/c/no.md", "", CodeInvalidPath, msgNoteLink},
		{"a/b/file.md/x.md", "", CodeNotFound, sentenceOf(CodeNotFound, ReasonFileInPath)},
		{"a/b/file.md/d/x.md", "", CodeNotFound, sentenceOf(CodeNotFound, ReasonFileInPath)},
		{"a/b/c/missing.md", "", CodeNotFound, sentences[CodeNotFound]},
		{"a/gone/n.md", "", CodeNotFound, sentences[CodeNotFound]},
		{"folder.md", "", CodeNotANote, sentenceOf(CodeNotANote, ReasonSpecialNote)},
		{"a/pipe.md", "", CodeNotANote, sentenceOf(CodeNotANote, ReasonSpecialNote)},
		{"big.md", "", CodeNoteTooLarge, errNoteTooLarge(2000, 1000).Message},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var got [2]string
			for i, walk := range []bool{false, true} {
				v.noOpenat2 = walk
				data, fi, parent, e := v.readNote(tt.path)
				switch {
				case e != nil:
					got[i] = e.Code + ": " + e.Message
				case fi.Name() != filepath.Base(tt.path) || !fi.Mode().IsRegular() || parent == nil || !parent.IsDir():
					t.Errorf("walk %v: infos %v, %v", walk, fi, parent)
				default:
					got[i] = string(data)
				}
				if data, _, e := v.readNoteFile(tt.path); e != nil && e.Code+": "+e.Message != got[i] || e == nil && string(data) != got[i] {
					t.Errorf("walk %v: readNoteFile = %q, %v; readNote %q", walk, data, e, got[i])
				}
			}
			v.noOpenat2 = false
			want := tt.content
			if tt.code != "" {
				want = tt.code + ": " + tt.msg
			}
			if got[0] != want || got[1] != want {
				t.Errorf("openat2 %q, walk %q; want %q", got[0], got[1], want)
			}
			// The lookup itself refuses all but plain notes; the walk is
			// not what keeps it confined.
			if _, _, ok := v.readBeneath(tt.path, nil); ok != (tt.code == "" && v.beneath != nil) {
				t.Errorf("readBeneath ok = %v", ok)
			}
		})
	}
}

// TestReadBeneathUsed: where the kernel has openat2, notes are read with
// it, and a vault closed meanwhile answers as the walk does.
func TestReadBeneathUsed(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"a/b/c/n.md": "note\n"}, nil)
	if v.beneath == nil {
		t.Skip("this kernel lacks openat2, or a filter refuses it")
	}
	data, fi, ok := v.readBeneath("a/b/c/n.md", nil)
	if !ok || string(data) != "note\n" || fi.Size() != 5 {
		t.Fatalf("readBeneath = %q, %v, %v", data, fi, ok)
	}
	if parent, ok := v.folderBeneath("a/b/c"); !ok || !parent.IsDir() || parent.Name() != "c" {
		t.Errorf("folderBeneath = %v, %v", parent, ok)
	}
	v.Close()
	if _, _, ok := v.readBeneath("a/b/c/n.md", nil); ok {
		t.Error("read through a closed vault")
	}
	if _, _, _, e := v.readNote("a/b/c/n.md"); e == nil {
		t.Error("readNote through a closed vault succeeded")
	}
}

// TestReadWhileFolderSwapped swaps a folder for a link to a folder outside
// the vault, and back, while the note below it is read: every read gives
// the vault's note or refuses, on both paths; none serves the outside file.
func TestReadWhileFolderSwapped(t *testing.T) {
	for _, walk := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walk], func(t *testing.T) {
			v, dir := newTestVault(t, map[string]string{"a/b/n.md": "inside\n"}, nil)
			v.noOpenat2 = walk
			outside := t.TempDir()
			writeFiles(t, outside, map[string]string{"b/n.md": "outside\n"})
			done := make(chan struct{})
			go func() {
				defer close(done)
				swapFolder(t, filepath.Join(dir, "a"), outside, 300)
			}()
			for reads := 0; ; reads++ {
				select {
				case <-done:
					if reads == 0 {
						t.Error("no read finished")
					}
					return
				default:
				}
				data, _, _, e := v.readNote("a/b/n.md")
				if e == nil && string(data) != "inside\n" {
					t.Fatalf("read %q through a swapped folder", data)
				}
				if e != nil && e.Code != CodeInvalidPath && e.Code != CodeNotFound && e.Code != CodeInternal {
					t.Errorf("read: %v", e)
				}
			}
		})
	}
}

// swapFolder replaces the folder at a with a link to outside and puts it
// back, n times.
func swapFolder(t *testing.T, a, outside string, n int) {
	moved := a + "2"
	steps := []func() error{
		func() error { return os.Rename(a, moved) },
		func() error { return os.Symlink(outside, a) },
		func() error { return os.Remove(a) },
		func() error { return os.Rename(moved, a) },
	}
	for range n {
		for _, step := range steps {
			if err := step(); err != nil {
				t.Error(err)
				return
			}
		}
	}
}

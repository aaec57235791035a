package vault

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCreate(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"exists.md": "x", "file.md": "f"}, func(o *Options) { o.MaxWrite = 100 })
	if err := os.Symlink("elsewhere", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, content, want string }{
		{"new.md", "hello\n", ""},
		{"a/b/c/deep.md", "deep", ""},
		{"empty.md", "", ""},
		{"exists.md", "x", CodeNoteExists},
		{"EXISTS.md", "x", CodeNoteExists}, // one file on macOS and Windows
		{"file.md/x.md", "x", CodeInvalidPath},
		{"link/x.md", "x", CodeInvalidPath},
		{"note.txt", "x", CodeNotANote},
		{"a.sync-conflict-20240101-000000-AAAAAAA.md", "x", CodeNotANote},
		{".obsidian/x.md", "x", CodeProtectedPath},
		{".trash/x.md", "x", CodeProtectedPath},
		{"AGENTS.md", "x", CodeProtectedPath},
		{"big.md", strings.Repeat("x", 101), CodeWriteTooLarge},
		{"a/../b.md", "x", CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res, err := v.Create(ctx, tt.path, tt.content)
			wantCode(t, err, tt.want)
			if err != nil {
				return
			}
			if got := readFile(t, dir, tt.path); got != tt.content {
				t.Errorf("file = %q", got)
			}
			if res.Path != tt.path || res.OldVersion != "" || res.Version != versionOf([]byte(tt.content)) {
				t.Errorf("result = %+v", res)
			}
		})
	}
	if got := readFile(t, dir, "exists.md"); got != "x" {
		t.Errorf("existing note changed to %q", got)
	}
	if exists(dir, "elsewhere") {
		t.Error("a write followed a symbolic link")
	}
	assertNoTemps(t, dir)
}

// assertNoTemps fails when a temporary file is left anywhere in dir.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tmpPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

func TestEdit(t *testing.T) {
	const base = "alpha beta\nbeta gamma\n"
	tests := []struct {
		name        string
		content     string
		version     string // "" = none; "read" = the current one
		old, new    string
		all         bool
		want        string
		wantContent string
		wantCount   int
	}{
		{"unique", base, "read", "alpha", "ALPHA", false, "", "ALPHA beta\nbeta gamma\n", 0},
		{"multiple", base, "read", "beta", "B", false, CodeMultipleMatches, base, 2},
		{"replace all", base, "read", "beta", "B", true, "", "alpha B\nB gamma\n", 0},
		{"no match", base, "read", "delta", "D", false, CodeNoMatch, base, 0},
		{"no version", base, "", "alpha", "A", false, CodeVersionRequired, base, 0},
		{"stale version", base, "0123456789ab", "alpha", "A", false, CodeNoteChanged, base, 0},
		{"empty old", base, "read", "", "A", false, CodeInvalidArgument, base, 0},
		{"crlf note", "one\r\ntwo\r\n", "read", "one\ntwo", "1\n2", false, "", "1\r\n2\r\n", 0},
		{"same text", base, "read", "alpha", "alpha", false, "", base, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, map[string]string{"n.md": tt.content}, nil)
			version := tt.version
			if version == "read" {
				version = versionOf([]byte(tt.content))
			}
			res, err := v.Edit(ctx, "n.md", version, tt.old, tt.new, tt.all)
			wantCode(t, err, tt.want)
			if got := readFile(t, dir, "n.md"); got != tt.wantContent {
				t.Errorf("content = %q, want %q", got, tt.wantContent)
			}
			if e, ok := err.(*Error); ok {
				if e.Count != tt.wantCount {
					t.Errorf("Count = %d", e.Count)
				}
				if e.Code == CodeNoteChanged && e.Version != versionOf([]byte(tt.content)) {
					t.Errorf("note_changed Version = %q", e.Version)
				}
				return
			}
			if res.OldVersion != versionOf([]byte(tt.content)) || res.Version != versionOf([]byte(tt.wantContent)) {
				t.Errorf("result = %+v", res)
			}
		})
	}
}

func TestEditKeepsModeAndRefusesMissing(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "abc"}, nil)
	full := filepath.Join(dir, "n.md")
	if err := os.Chmod(full, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Edit(ctx, "n.md", versionOf([]byte("abc")), "b", "B", false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(full)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after edit = %v, %v", fi.Mode(), err)
	}
	_, err = v.Edit(ctx, "gone.md", "0123456789ab", "a", "b", false)
	wantCode(t, err, CodeNotFound)
	assertNoTemps(t, dir)
}

func TestEditResultTooLarge(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "x x x x x"}, func(o *Options) { o.MaxNote = 15 })
	_, err := v.Edit(ctx, "n.md", versionOf([]byte("x x x x x")), "x", "yyy", true)
	wantCode(t, err, CodeNoteTooLarge)
	if got := readFile(t, dir, "n.md"); got != "x x x x x" {
		t.Errorf("content = %q", got)
	}
}

// TestConcurrentEdits starts many edits from the same version at once:
// exactly one may win, all others must see note_changed.
func TestConcurrentEdits(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "counter: 0\n"}, nil)
	version := versionOf([]byte("counter: 0\n"))
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = v.Edit(ctx, "n.md", version, "counter: 0", "counter: "+string(rune('a'+i)), false)
		})
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch code(t, err) {
		case "":
			wins++
		case CodeNoteChanged:
		default:
			t.Errorf("unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d edits won, want exactly 1", wins)
	}
	if got := readFile(t, dir, "n.md"); got == "counter: 0\n" {
		t.Error("no edit reached the disk")
	}
}

func TestEditDetectsWriteBehindTheLock(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "one\n"}, nil)
	_, fi, _, e := v.readNote("n.md")
	if e != nil {
		t.Fatal(e)
	}
	// Another program replaces the note after it was read.
	writeFiles(t, dir, map[string]string{"n.md": "changed elsewhere\n"})
	e = v.writeAtomic(writeSpec{path: "n.md", data: []byte("mine\n"), prev: fi})
	if e == nil || e.Code != CodeNoteChanged || e.Version != versionOf([]byte("changed elsewhere\n")) {
		t.Fatalf("writeAtomic over a changed note = %v", e)
	}
	if got := readFile(t, dir, "n.md"); got != "changed elsewhere\n" {
		t.Errorf("content = %q", got)
	}
	assertNoTemps(t, dir)
}

// TestConcurrentCreates: of many creates of one path, exactly one wins
// and the others see note_exists.
func TestConcurrentCreates(t *testing.T) {
	v, dir := newTestVault(t, nil, nil)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = v.Create(ctx, "same/n.md", strings.Repeat("x", i+1))
		})
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch code(t, err) {
		case "":
			wins++
		case CodeNoteExists:
		default:
			t.Errorf("unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d creates won, want exactly 1", wins)
	}
	assertNoTemps(t, dir)
}

func BenchmarkEdit(b *testing.B) {
	content := "# Bench\n" + strings.Repeat("Some words of a note.\n", 450) + "counter\n"
	v, _ := newTestVault(b, map[string]string{"note.md": content}, nil)
	version := versionOf([]byte(content))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		old, next := "counter", "COUNTER"
		if i%2 == 1 {
			old, next = next, old
		}
		res, err := v.Edit(ctx, "note.md", version, old, next, false)
		if err != nil {
			b.Fatal(err)
		}
		version = res.Version
		i++
	}
}

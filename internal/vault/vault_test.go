package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plenty is a FreeSpace that never hits the floor.
func plenty(string) (uint64, error) { return 1 << 40, nil }

// newTestVault opens a vault on a fresh folder holding files (path →
// content; a path ending in '/' makes a folder).
func newTestVault(t testing.TB, files map[string]string, mod func(*Options)) (*Vault, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	opts := Options{Dir: dir, FreeSpace: plenty}
	if mod != nil {
		mod(&opts)
	}
	v, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

func exists(dir, p string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
	return err == nil
}

// code returns the *Error code of err, "" for nil, and fails the test for
// any other error type.
func code(t testing.TB, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not *Error: %v", err, err)
	}
	if e.Message == "" {
		t.Errorf("error %s has no message", e.Code)
	}
	return e.Code
}

func wantCode(t testing.TB, err error, want string) {
	t.Helper()
	if got := code(t, err); got != want {
		t.Fatalf("error code = %q (%v), want %q", got, err, want)
	}
}

var ctx = context.Background()

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no dir", Options{}, CodeInvalidArgument},
		{"missing", Options{Dir: filepath.Join(dir, "nope")}, CodeInvalidArgument},
		{"file", Options{Dir: file}, CodeInvalidArgument},
		{"bad denied", Options{Dir: dir, Denied: []string{"../x"}}, CodeInvalidArgument},
		{"bad instructions", Options{Dir: dir, Instructions: "/etc/passwd"}, CodeInvalidArgument},
		{"protected instructions", Options{Dir: dir, Instructions: ".git/AGENTS.md"}, CodeInvalidArgument},
		{"ok", Options{Dir: dir, Denied: []string{"Private/", "diary.md"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Open(tt.opts)
			if err == nil {
				defer v.Close()
			} else if strings.Contains(err.Error(), dir) {
				t.Errorf("error reveals the host path: %v", err)
			}
			wantCode(t, err, tt.want)
		})
	}
}

func TestOpenRemovesStrayTemps(t *testing.T) {
	_, dir := newTestVault(t, map[string]string{
		".cortex-tmp-abc":        "half",
		"a/.cortex-tmp-def":      "half",
		".trash/.cortex-tmp-1":   "half",
		".git/.cortex-tmp-keep":  "not ours to touch",
		"a/note.md":              "keep",
		"a/.cortex-tmp-dir/x.md": "a folder, not a temp file",
		".syncthing.note.md.tmp": "syncthing's",
	}, nil)
	for p, want := range map[string]bool{
		".cortex-tmp-abc": false, "a/.cortex-tmp-def": false, ".trash/.cortex-tmp-1": false,
		".git/.cortex-tmp-keep": true, "a/note.md": true, "a/.cortex-tmp-dir/x.md": true,
		".syncthing.note.md.tmp": true,
	} {
		if got := exists(dir, p); got != want {
			t.Errorf("%s exists = %v, want %v", p, got, want)
		}
	}
}

func TestDiskFloor(t *testing.T) {
	free := uint64(1 << 40)
	v, dir := newTestVault(t, map[string]string{"a.md": "text\n", "b.md": "b\n"}, func(o *Options) {
		o.MinFree = 1 << 20
		o.FreeSpace = func(string) (uint64, error) { return free, nil }
	})
	n, err := v.Read(ctx, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	free = 1<<20 - 1
	writes := map[string]func() error{
		"create":  func() error { _, err := v.Create(ctx, "c.md", "x"); return err },
		"append":  func() error { _, err := v.Append(ctx, "a.md", "x", ""); return err },
		"edit":    func() error { _, err := v.Edit(ctx, "a.md", n.Version, "text", "t", false); return err },
		"replace": func() error { _, err := v.ReplaceSection(ctx, "a.md", n.Version, "# H", "x", true); return err },
		"frontmatter": func() error {
			_, err := v.UpdateFrontmatter(ctx, "a.md", n.Version, map[string]any{"k": 1.0}, nil)
			return err
		},
		"move":   func() error { _, err := v.Move(ctx, "a.md", "z.md", n.Version, false); return err },
		"delete": func() error { _, err := v.Delete(ctx, "a.md", n.Version); return err },
	}
	for name, w := range writes {
		t.Run(name, func(t *testing.T) { wantCode(t, w(), CodeDiskLow) })
	}
	if got := readFile(t, dir, "a.md"); got != "text\n" || exists(dir, "c.md") || exists(dir, "z.md") {
		t.Errorf("a write went through below the floor")
	}
	free = 1 << 20
	if _, err := v.Append(ctx, "a.md", "more", ""); err != nil {
		t.Errorf("append at the floor: %v", err)
	}
	v.freeSpace = func(string) (uint64, error) { return 0, errors.New("statfs failed") }
	_, err = v.Create(ctx, "d.md", "x")
	wantCode(t, err, CodeInternal)
}

func TestStatfsFree(t *testing.T) {
	free, err := statfsFree(t.TempDir())
	if err != nil || free == 0 {
		t.Fatalf("statfsFree = %d, %v", free, err)
	}
}

func TestLocksHonourContext(t *testing.T) {
	var lt lockTable
	unlock, e := lt.lock(ctx, "a.md", "b.md")
	if e != nil {
		t.Fatal(e)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, e := lt.lock(cctx, "B.md"); e == nil {
		t.Fatal("lock of a held note with a cancelled context succeeded")
	}
	unlock()
	unlock2, e := lt.lock(ctx, "A.md")
	if e != nil {
		t.Fatal(e)
	}
	unlock2()
	if len(lt.m) != 0 {
		t.Errorf("lock table keeps %d entries", len(lt.m))
	}
}

// A floor of 0 is no floor, as --min-free-mb 0 asks: writes go on with no
// free space at all, and the free space is not even looked at.
func TestNoDiskFloor(t *testing.T) {
	asked := false
	v, _ := newTestVault(t, map[string]string{"a.md": "text\n"}, func(o *Options) {
		o.MinFree = 0
		o.FreeSpace = func(string) (uint64, error) { asked = true; return 0, nil }
	})
	if _, err := v.Create(ctx, "c.md", "x"); err != nil {
		t.Fatalf("create with no floor: %v", err)
	}
	if asked {
		t.Error("the free space was checked with no floor")
	}
}

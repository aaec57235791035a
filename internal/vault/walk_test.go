package vault

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var listFiles = map[string]string{
	"a.md":             "a",
	"b/c.md":           "c",
	"b/d/e.md":         "e",
	"b/notes.txt":      "not a note",
	"empty/":           "",
	".hidden.md":       "hidden",
	".stversions/x.md": "old copy",
	".git/HEAD.md":     "git",
	".obsidian/w.md":   "cfg",
	".trash/old.md":    "old",
	"Private/p.md":     "private",
	"z.sync-conflict-20240101-000000-AAAAAAA.md": "conflict",
	".syncthing.z.md.tmp":                        "tmp",
	"~syncthing~z.md.tmp":                        "tmp",
}

func TestList(t *testing.T) {
	v, dir := newTestVault(t, listFiles, func(o *Options) { o.Denied = []string{"private"} })
	if err := os.Symlink("b", filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		folder    string
		recursive bool
		want      []string
		code      string
	}{
		{"", false, []string{".trash", "a.md", "b", "empty"}, ""},
		{"/", true, []string{".trash", "a.md", "b", "b/c.md", "b/d", "b/d/e.md", "b/notes.txt", "empty"}, ""},
		{"b", false, []string{"b/c.md", "b/d", "b/notes.txt"}, ""},
		{"b/", true, []string{"b/c.md", "b/d", "b/d/e.md", "b/notes.txt"}, ""},
		{".trash", false, []string{".trash/old.md"}, ""},
		{"empty", true, []string{}, ""},
		{"missing", false, nil, CodeNotFound},
		{"a.md", false, nil, CodeNotFound},
		{".git", false, nil, CodeProtectedPath},
		{".Obsidian", false, nil, CodeProtectedPath},
		{"Private", false, nil, CodeProtectedPath},
		{"linkdir", false, nil, CodeInvalidPath},
		{"../x", false, nil, CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.folder, func(t *testing.T) {
			got, err := v.List(ctx, tt.folder, tt.recursive)
			wantCode(t, err, tt.code)
			var paths []string
			for _, e := range got {
				paths = append(paths, e.Path)
				if e.Modified.IsZero() || (e.IsDir && e.Size != 0) || (!e.IsDir && e.Size == 0) || e.Attachment != (e.Path == "b/notes.txt") {
					t.Errorf("entry %+v", e)
				}
			}
			if err == nil && !slices.Equal(paths, tt.want) && !(len(paths) == 0 && len(tt.want) == 0) {
				t.Errorf("List(%q, %v) = %v, want %v", tt.folder, tt.recursive, paths, tt.want)
			}
		})
	}
}

func TestListSkipsOwnTempFiles(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a"}, nil)
	writeFiles(t, dir, map[string]string{tmpPrefix + "late": "x"}) // appears after Open
	got, err := v.List(ctx, "", true)
	if err != nil || len(got) != 1 || got[0].Path != "a.md" {
		t.Errorf("List = %v, %v", got, err)
	}
}

func TestChanged(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"old.md": "o", "mid/n.md": "m", "new.md": "n", ".trash/t.md": "t"}, nil)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for p, d := range map[string]time.Duration{"old.md": 0, "mid/n.md": time.Hour, "new.md": 2 * time.Hour, ".trash/t.md": 3 * time.Hour} {
		tm := base.Add(d)
		if err := os.Chtimes(filepath.Join(dir, p), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	got, err := v.Changed(ctx, base.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got {
		paths = append(paths, e.Path)
	}
	if want := []string{"new.md", "mid/n.md"}; !slices.Equal(paths, want) {
		t.Errorf("Changed = %v, want %v", paths, want)
	}
}

func TestStatsAndSeedWelcome(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"empty/": "", ".trash/x.md": "x"}, nil)
	s, err := v.Stats(ctx)
	if err != nil || s.Notes != 0 || s.FreeBytes != 1<<40 {
		t.Fatalf("Stats = %+v, %v", s, err)
	}
	wrote, err := v.SeedWelcome(ctx)
	if err != nil || !wrote {
		t.Fatalf("SeedWelcome = %v, %v", wrote, err)
	}
	if n, err := v.Read(ctx, "Welcome.md"); err != nil || n.Title != "Welcome" {
		t.Errorf("welcome note: %v", err)
	}
	wrote, err = v.SeedWelcome(ctx)
	if err != nil || wrote {
		t.Errorf("second SeedWelcome = %v, %v", wrote, err)
	}
	if s, _ := v.Stats(ctx); s.Notes != 1 {
		t.Errorf("Stats after seeding = %+v", s)
	}
	v2, _ := newTestVault(t, map[string]string{"deep/inside/n.md": "n"}, nil)
	if wrote, err := v2.SeedWelcome(ctx); wrote || err != nil {
		t.Errorf("SeedWelcome in a vault with notes = %v, %v", wrote, err)
	}
	_ = dir
}

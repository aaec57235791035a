package vault

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func ver(s string) string { return versionOf([]byte(s)) }

func TestDelete(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{
		"a/n.md":            "one",
		".trash/a/n.md":     "older",
		".trash/a/n (2).md": "oldest",
		"keep.md":           "k",
		"AGENTS.md":         "rules",
		"c.sync-conflict-20240101-000000-AAAAAAA.md": "conflict",
	}, nil)
	tests := []struct {
		name, path, version, want, wantTrash string
	}{
		{"no version", "a/n.md", "", CodeVersionRequired, ""},
		{"stale", "a/n.md", ver("other"), CodeNoteChanged, ""},
		{"suffix", "a/n.md", ver("one"), "", ".trash/a/n (3).md"},
		{"missing", "a/n.md", ver("one"), CodeNotFound, ""},
		{"first", "keep.md", ver("k"), "", ".trash/keep.md"},
		{"in trash", ".trash/keep.md", ver("k"), CodeProtectedPath, ""},
		{"instructions", "AGENTS.md", ver("rules"), CodeProtectedPath, ""},
		{"conflict copy", "c.sync-conflict-20240101-000000-AAAAAAA.md", ver("conflict"), "", ".trash/c.sync-conflict-20240101-000000-AAAAAAA.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := v.Delete(ctx, tt.path, tt.version)
			wantCode(t, err, tt.want)
			if err != nil {
				return
			}
			if res.Path != tt.wantTrash || res.Version != tt.version || exists(dir, tt.path) {
				t.Errorf("result = %+v, source still there: %v", res, exists(dir, tt.path))
			}
		})
	}
	for p, want := range map[string]string{".trash/a/n.md": "older", ".trash/a/n (2).md": "oldest", ".trash/a/n (3).md": "one", ".trash/keep.md": "k", "AGENTS.md": "rules"} {
		if got := readFile(t, dir, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	assertNoTemps(t, dir)
}

func TestDeleteKeepsModeAndTime(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "x"}, nil)
	full := filepath.Join(dir, "n.md")
	os.Chmod(full, 0o600)
	before, _ := os.Stat(full)
	if _, err := v.Delete(ctx, "n.md", ver("x")); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(filepath.Join(dir, ".trash", "n.md"))
	if err != nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("trashed note: %v, %v (before %v)", after, err, before)
	}
}

func TestMove(t *testing.T) {
	files := map[string]string{
		"old.md":         "# Old\nsee [[other]]\n",
		"other.md":       "x",
		"linker.md":      "link to [[old]] and [[old#Part|alias]]\n",
		"sub/md-link.md": "a [markdown](../old.md) link\n",
		"plain.md":       "no links here\n",
		"AGENTS.md":      "rules",
		".trash/gone.md": "restored text",
	}
	tests := []struct {
		name, from, to, version string
		update                  bool
		want                    string
		linking                 []string
		rewritten               map[string]string
	}{
		{"report only", "old.md", "new/place.md", ver(files["old.md"]), false, "", []string{"linker.md", "sub/md-link.md"}, nil},
		// Links by name still find a note moved under the same name.
		{"same name elsewhere", "old.md", "arch/old.md", ver(files["old.md"]), false, "", []string{"sub/md-link.md"}, nil},
		{"same name elsewhere, rewrite", "old.md", "arch/old.md", ver(files["old.md"]), true, "", []string{}, map[string]string{
			"sub/md-link.md": "a [markdown](../arch/old.md) link\n",
		}},
		{"rewrite", "old.md", "new/place.md", ver(files["old.md"]), true, "", []string{}, map[string]string{
			"linker.md":      "link to [[place]] and [[place#Part|alias]]\n",
			"sub/md-link.md": "a [markdown](../new/place.md) link\n",
		}},
		{"restore from trash", ".trash/gone.md", "gone.md", ver("restored text"), true, "", []string{}, nil},
		{"target exists", "old.md", "other.md", ver(files["old.md"]), false, CodeNoteExists, nil, nil},
		{"no version", "old.md", "x.md", "", false, CodeVersionRequired, nil, nil},
		{"stale", "old.md", "x.md", ver("nope"), false, CodeNoteChanged, nil, nil},
		{"into trash", "old.md", ".trash/old.md", ver(files["old.md"]), false, CodeProtectedPath, nil, nil},
		{"instructions", "AGENTS.md", "x.md", ver("rules"), false, CodeProtectedPath, nil, nil},
		{"onto instructions", "old.md", "agents.md", ver(files["old.md"]), false, CodeProtectedPath, nil, nil},
		{"to non-note", "old.md", "x.txt", ver(files["old.md"]), false, CodeNotANote, nil, nil},
		{"same", "old.md", "old.md", ver(files["old.md"]), false, CodeInvalidArgument, nil, nil},
		{"missing", "nope.md", "x.md", ver("x"), false, CodeNotFound, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, files, nil)
			res, err := v.Move(ctx, tt.from, tt.to, tt.version, tt.update)
			wantCode(t, err, tt.want)
			if err != nil {
				if _, ok := files[tt.from]; ok && readFile(t, dir, tt.from) != files[tt.from] {
					t.Error("source changed by a refused move")
				}
				return
			}
			if res.From != tt.from || res.To != tt.to || res.Version != tt.version {
				t.Errorf("result = %+v", res)
			}
			if exists(dir, tt.from) || readFile(t, dir, tt.to) != files[tt.from] {
				t.Error("note not moved intact")
			}
			if !slices.Equal(res.Linking, tt.linking) {
				t.Errorf("Linking = %v, want %v", res.Linking, tt.linking)
			}
			if len(res.Rewritten) != len(tt.rewritten) {
				t.Errorf("Rewritten = %+v", res.Rewritten)
			}
			for _, wr := range res.Rewritten {
				want, ok := tt.rewritten[wr.Path]
				got := readFile(t, dir, wr.Path)
				if !ok || got != want || wr.Version != ver(got) || wr.OldVersion != ver(files[wr.Path]) {
					t.Errorf("rewrite of %s = %q (%+v), want %q", wr.Path, got, wr, want)
				}
			}
			if !tt.update && readFile(t, dir, "linker.md") != files["linker.md"] {
				t.Error("links rewritten without updateLinks")
			}
			assertNoTemps(t, dir)
		})
	}
}

func TestMoveRefusesSymlinkedTarget(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a", "real/": ""}, nil)
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := v.Move(ctx, "a.md", "link/a.md", ver("a"), false)
	wantCode(t, err, CodeInvalidPath)
	if !exists(dir, "a.md") || exists(dir, "real/a.md") {
		t.Error("note moved through a symbolic link")
	}
}

func TestDeleteRefusesSymlinkedTrash(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"n.md": "x", "elsewhere/": ""}, nil)
	if err := os.Symlink("elsewhere", filepath.Join(dir, ".trash")); err != nil {
		t.Fatal(err)
	}
	_, err := v.Delete(ctx, "n.md", ver("x"))
	wantCode(t, err, CodeInvalidPath)
	if !exists(dir, "n.md") || exists(dir, "elsewhere/n.md") {
		t.Error("note moved through a symbolic link")
	}
}

func TestSearchHonoursCancel(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"a.md": "word", "b/c.md": "word"}, nil)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := v.Search(cctx, Query{Text: "word"})
	wantCode(t, err, CodeInternal)
}

// TrashOrigin undoes what Delete adds to a trashed note's name, and only
// that: a name that merely ends in brackets keeps them.
func TestTrashOrigin(t *testing.T) {
	for p, want := range map[string]string{
		".trash/a/n.md":                  "a/n.md",
		".trash/a/n (2).md":              "a/n.md",
		".trash/a/n (0123456789ab).md":   "a/n.md",
		".trash/a/n (0123456789ab 3).md": "a/n.md",
		".trash/a (2)/n.md":              "a (2)/n.md",
		".trash/Notes (draft).md":        "Notes (draft).md",
		".trash/n (0123456789AB).md":     "n (0123456789AB).md",
		".trash/n (12345).md":            "n.md",
	} {
		if got := TrashOrigin(p); got != want {
			t.Errorf("TrashOrigin(%q) = %q, want %q", p, got, want)
		}
	}
}

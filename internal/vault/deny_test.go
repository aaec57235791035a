package vault

import (
	"slices"
	"testing"
)

// TestDenyGlobs: a --deny pattern written as a glob protects what it names
// through every way in: read, create, list and search. Before patterns,
// "private/**" and "private/*" were taken as literal names and denied
// nothing.
func TestDenyGlobs(t *testing.T) {
	files := map[string]string{
		"private/diary.md":       "# Diary\ncanary words\n",
		"private/deep/health.md": "canary deep\n",
		"Journal/2026-01-01.md":  "canary journal\n",
		"Journal/notes.md":       "open journal\n",
		"open.md":                "open words\n",
	}
	for _, deny := range [][]string{{"private/**", "Journal/2026-*.md"}, {"private/*", "Journal/2026-*"}, {"/private/", "journal/2026-*.md"}} {
		t.Run(deny[0], func(t *testing.T) {
			v, _ := newTestVault(t, files, func(o *Options) { o.Denied = deny })
			for _, p := range []string{"private/diary.md", "private/deep/health.md", "Journal/2026-01-01.md"} {
				if _, err := v.Read(ctx, p); code(t, err) != CodeProtectedPath {
					t.Errorf("Read(%s) = %v, want protected_path", p, err)
				}
			}
			for _, p := range []string{"private/new.md", "Journal/2026-02-02.md"} {
				if _, err := v.Create(ctx, p, "x"); code(t, err) != CodeProtectedPath {
					t.Errorf("Create(%s) = %v, want protected_path", p, err)
				}
			}
			entries, err := v.List(ctx, "", true)
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range entries {
				if en.Path == "Journal/2026-01-01.md" || len(en.Path) >= 8 && en.Path[:8] == "private/" {
					t.Errorf("List shows %s", en.Path)
				}
			}
			hits, err := v.Search(ctx, Query{Text: "canary"})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 0 {
				t.Errorf("Search finds %v", hitPaths(hits))
			}
			if got := hitPaths(mustSearch(t, v, "open")); !slices.Equal(sorted(got), []string{"Journal/notes.md", "open.md"}) {
				t.Errorf("Search open = %v", got)
			}
		})
	}
	if _, err := Open(Options{Dir: t.TempDir(), FreeSpace: plenty, Denied: []string{"private/[x"}}); code(t, err) != CodeInvalidArgument {
		t.Errorf("a bad pattern opens: %v", err)
	}
}

func mustSearch(t *testing.T, v *Vault, q string) []Hit {
	t.Helper()
	hits, err := v.Search(ctx, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

package vault

import (
	"context"
	"slices"
	"testing"
)

// TestScopeMemoKeepsScopesApart: searches remember what each scope sees by
// path, and one scope's verdicts never answer for another, in any order,
// nor once the memo is full and starts again.
func TestScopeMemoKeepsScopesApart(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{
		"Work/a.md":     "# A\nquokka work\n",
		"Work/HR/b.md":  "# B\nquokka pay\n",
		"Home/c.md":     "# C\nquokka home\n",
		"Health/d.md":   "# D\nquokka health\n",
		"e.md":          "---\nprivate: true\n---\n# E\nquokka private\n",
		"Work/Notes.md": "# Notes\nquokka notes\n",
	}, func(o *Options) { o.Private = []string{"Health/"} })
	cases := []struct {
		name string
		ctx  context.Context
		want []string
	}{
		{"work", scopedCtx(t, "Work, !Work/HR", "", false), []string{"Work/Notes.md", "Work/a.md"}},
		{"work and HR", scopedCtx(t, "Work", "", false), []string{"Work/HR/b.md", "Work/Notes.md", "Work/a.md"}},
		{"whole", scopedCtx(t, "", "", false), []string{"Home/c.md", "Work/HR/b.md", "Work/Notes.md", "Work/a.md"}},
		{"whole with private", scopedCtx(t, "", "", true), []string{"Health/d.md", "Home/c.md", "Work/HR/b.md", "Work/Notes.md", "Work/a.md", "e.md"}},
		{"home and health, private", scopedCtx(t, "Home, Health", "", true), []string{"Health/d.md", "Home/c.md"}},
		{"home and health", scopedCtx(t, "Home, Health", "", false), []string{"Home/c.md"}},
		{"owner", context.Background(), []string{"Health/d.md", "Home/c.md", "Work/HR/b.md", "Work/Notes.md", "Work/a.md", "e.md"}},
	}
	check := func(round string) {
		t.Helper()
		for _, c := range cases {
			got := hitPaths(mustSearchIn(t, v, c.ctx, "quokka"))
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s, %s: %v, want %v", round, c.name, got, c.want)
			}
		}
	}
	check("first")
	slices.Reverse(cases)
	check("remembered")
	v.paths.mu.Lock()
	v.paths.n = maxPathMemo
	v.paths.mu.Unlock()
	if got := hitPaths(mustSearchIn(t, v, scopedCtx(t, "Home", "", false), "quokka")); !slices.Equal(got, []string{"Home/c.md"}) {
		t.Errorf("a new scope once the memo is full: %v", got)
	}
	check("after the memo started again")
}

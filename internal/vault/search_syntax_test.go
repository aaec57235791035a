package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// syntaxVault holds one note per feature of the search syntax; modification
// times rise in this order, so that recency ties are known.
var syntaxVault = []struct{ path, content string }{
	{"Projects/Garden Redesign.md", "---\nstatus: active\ntags: [project, garden]\nrelated: \"[[Homelab]]\"\n---\n# Garden Redesign\n\n- [ ] buy seeds\n- [x] dig beds\n"},
	{"Projects/Homelab.md", "---\nstatus: paused\ntags: [project]\nowners: [Ana, Bo]\n---\n# Homelab\n\nRack the server. 🚀 launch day.\n"},
	{"Daily/2026-12-01.md", "# Tuesday\n\n- [ ] call the garden centre\nOld stuff to sort.\n"},
	{"Notes/Recipes.md", "---\ndue:\n---\nPesto with garden basil. No tasks here.\n"},
	{"Notes/Plan old.md", "---\nstatus: done\n---\nThe old plan for the garden, old stuff.\n"},
}

func newSyntaxVault(t *testing.T, index bool) *Vault {
	t.Helper()
	files := map[string]string{}
	for _, f := range syntaxVault {
		files[f.path] = f.content
	}
	// The times are set before the vault opens: its index build starts at
	// once, and a time changed after it read a note reaches the index only
	// through the watcher, later than the searches below.
	v, _ := newTestVault(t, files, func(o *Options) {
		o.Index = index
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i, f := range syntaxVault {
			tm := base.Add(time.Duration(i) * time.Hour)
			if err := os.Chtimes(filepath.Join(o.Dir, filepath.FromSlash(f.path)), tm, tm); err != nil {
				t.Fatal(err)
			}
		}
	})
	if index {
		if err := v.WaitIndexed(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func TestSearchSyntax(t *testing.T) {
	tests := []struct {
		q    Query
		want []string // in order, unless sorted is set
		any  bool     // compare as sets (ranked by score)
	}{
		{Query{Text: "garden OR homelab"}, []string{"Projects/Garden Redesign.md", "Projects/Homelab.md", "Daily/2026-12-01.md", "Notes/Recipes.md", "Notes/Plan old.md"}, true},
		{Query{Text: "rack OR pesto"}, []string{"Projects/Homelab.md", "Notes/Recipes.md"}, true},
		{Query{Text: "garden -old"}, []string{"Projects/Garden Redesign.md", "Notes/Recipes.md"}, true},
		{Query{Text: `garden -"old stuff"`}, []string{"Projects/Garden Redesign.md", "Notes/Recipes.md"}, true},
		{Query{Text: "-garden"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "tag:#project"}, []string{"Projects/Homelab.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: "#garden"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Text: "project -tag:garden"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "path:projects"}, []string{"Projects/Homelab.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: `path:"plan old"`}, []string{"Notes/Plan old.md"}, false},
		{Query{Text: "file:2026 garden"}, []string{"Daily/2026-12-01.md"}, false},
		{Query{Text: "folder:Notes garden"}, []string{"Notes/Recipes.md", "Notes/Plan old.md"}, true},
		{Query{Text: "[status:active]"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Text: "[status]"}, []string{"Notes/Plan old.md", "Projects/Homelab.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: "[owners:bo]"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "[due]"}, []string{"Notes/Recipes.md"}, false},
		{Query{Text: "[due:]"}, []string{"Notes/Recipes.md"}, false},
		{Query{Text: "[related:homelab]"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Text: "[status:active] OR [status:done]"}, []string{"Notes/Plan old.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: "- [ ]"}, []string{"Daily/2026-12-01.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: "- [X]"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Text: "🚀"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "🚀 rack"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "🚀 garden"}, []string{}, false},
		{Query{Text: "folder:Projects 🚀"}, []string{"Projects/Homelab.md"}, false},
		{Query{Text: "folder:Notes 🚀"}, []string{}, false},
		{Query{Text: "- [ ]", Folder: "Daily"}, []string{"Daily/2026-12-01.md"}, false},
		{Query{Text: "folder:Daily - [ ]"}, []string{"Daily/2026-12-01.md"}, false},
		{Query{Text: "- [ ] seeds"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Text: "- [ ] garden"}, []string{"Projects/Garden Redesign.md", "Daily/2026-12-01.md"}, true},
		{Query{Text: "- [x] garden"}, []string{"Projects/Garden Redesign.md"}, false},
		{Query{Tag: "project"}, []string{"Projects/Homelab.md", "Projects/Garden Redesign.md"}, false},
		{Query{Text: "garden OR homelab", Tag: "project"}, []string{"Projects/Garden Redesign.md", "Projects/Homelab.md"}, true},
	}
	for _, index := range []bool{false, true} {
		v := newSyntaxVault(t, index)
		for _, tt := range tests {
			hits, err := v.Search(ctx, tt.q)
			if err != nil {
				t.Errorf("index %v: %+v: %v", index, tt.q, err)
				continue
			}
			got := hitPaths(hits)
			want := tt.want
			if tt.any {
				got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
			}
			if !slices.Equal(got, want) {
				t.Errorf("index %v: %q (folder %q, tag %q) = %q, want %q", index, tt.q.Text, tt.q.Folder, tt.q.Tag, got, want)
			}
		}
		// Unsupported syntax answers with a hint instead of something else.
		for _, q := range []string{"block:abc", "section:Plan", "/gar.*n/", "(garden OR homelab) seeds", "-path:Projects garden", "match-case:Seeds"} {
			_, err := v.Search(ctx, Query{Text: q})
			if e := errOf(t, err, CodeInvalidArgument); e.Reason != ReasonObsidianOperator || !strings.Contains(e.Message, "does not have Obsidian's "+e.Subject) {
				t.Errorf("%q: %q", q, e.Message)
			}
		}
		// An operator without its value is refused, not run without it.
		for _, q := range []string{"tag:", "garden path:", `file:"" seeds`, "garden OR folder:"} {
			_, err := v.Search(ctx, Query{Text: q})
			if e := errOf(t, err, CodeInvalidArgument); !strings.Contains(e.Message, "needs its value right after it") {
				t.Errorf("%q: %q", q, e.Message)
			}
		}
	}
}

func TestSearchSyntaxPages(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[filepath.Join("Tasks", string(rune('a'+i%26))+string(rune('a'+i/26))+".md")] = "- [ ] task\n"
	}
	for _, index := range []bool{false, true} {
		v, _ := newTestVault(t, files, func(o *Options) { o.Index = index })
		if index {
			if err := v.WaitIndexed(ctx); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[string]bool{}
		cursor := ""
		for range 10 {
			p, err := v.SearchPage(ctx, Query{Text: "- [ ]", Limit: 7, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range p.Hits {
				if seen[h.Path] {
					t.Errorf("index %v: %s twice", index, h.Path)
				}
				seen[h.Path] = true
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		if len(seen) != 30 {
			t.Errorf("index %v: %d notes over all pages, want 30", index, len(seen))
		}
	}
}

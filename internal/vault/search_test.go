package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestSearch(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{
		"garden.md":           "# Garden\nTomatoes and basil grow here. #plants\n",
		"kitchen/recipe.md":   "---\ntags: [food]\n---\n# Pesto\nBasil, garlic, pine nuts.\n",
		"kitchen/basil.md":    "Basil basil basil.\n",
		"work/plan.md":        "# Plan\nNothing green.\n",
		".trash/basil-old.md": "basil in the trash\n",
		".git/basil.md":       "basil in git\n",
		"Private/basil.md":    "secret basil\n",
		"basil.sync-conflict-20240101-000000-AAAAAAA.md": "basil conflict\n",
	}, func(o *Options) { o.Denied = []string{"Private"} })
	// Same score ties break newest first.
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"garden.md", "kitchen/recipe.md", "kitchen/basil.md", "work/plan.md"} {
		tm := base.Add(time.Duration(i) * time.Hour)
		os.Chtimes(filepath.Join(dir, p), tm, tm)
	}
	tests := []struct {
		name string
		q    Query
		want []string // in order; nil means only check the code
		code string
	}{
		{"word", Query{Text: "basil"}, []string{"kitchen/basil.md"}, ""},
		{"folder", Query{Text: "basil", Folder: "kitchen"}, []string{"kitchen/basil.md", "kitchen/recipe.md"}, ""},
		{"tag param", Query{Tag: "#food"}, []string{"kitchen/recipe.md"}, ""},
		{"inline tag", Query{Text: "basil", Tag: "plants"}, []string{"garden.md"}, ""},
		{"folder only", Query{Folder: "work"}, []string{"work/plan.md"}, ""},
		{"trash on request", Query{Text: "basil", Folder: ".trash"}, []string{".trash/basil-old.md"}, ""},
		{"no match", Query{Text: "zucchini"}, []string{}, ""},
		{"limit", Query{Text: "basil", Limit: 1}, []string{"kitchen/basil.md"}, ""},
		{"empty", Query{}, nil, CodeInvalidArgument},
		{"protected folder", Query{Text: "basil", Folder: ".git"}, nil, CodeProtectedPath},
		{"denied folder", Query{Text: "basil", Folder: "private"}, nil, CodeProtectedPath},
		{"missing folder", Query{Text: "basil", Folder: "nope"}, nil, CodeNotFound},
		{"bad folder", Query{Text: "basil", Folder: "../x"}, nil, CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := v.Search(ctx, tt.q)
			wantCode(t, err, tt.code)
			if err != nil {
				return
			}
			var paths []string
			for _, h := range hits {
				paths = append(paths, h.Path)
				if h.Title == "" || h.Score <= 0 || h.Modified.IsZero() {
					t.Errorf("hit %+v", h)
				}
			}
			if tt.name == "word" {
				// All three notes match; the one saying basil most ranks first.
				if len(paths) != 3 || paths[0] != "kitchen/basil.md" {
					t.Errorf("hits = %v", paths)
				}
				return
			}
			if !slices.Equal(paths, tt.want) && !(len(paths) == 0 && len(tt.want) == 0) {
				t.Errorf("hits = %v, want %v", paths, tt.want)
			}
		})
	}
}

func TestSearchLimitCap(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files["n"+strconv.Itoa(i)+".md"] = "common word\n"
	}
	v, _ := newTestVault(t, files, nil)
	for limit, want := range map[int]int{0: defaultSearchLimit, -3: defaultSearchLimit, 20: 20, 500: maxSearchLimit} {
		hits, err := v.Search(ctx, Query{Text: "common", Limit: limit})
		if err != nil || len(hits) != want {
			t.Errorf("limit %d: %d hits, %v", limit, len(hits), err)
		}
	}
}

func TestLinks(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		"hub.md":      "to [[a]], [[missing]], ![[pic.png]] and [b](sub/b.md)\n",
		"a.md":        "back to [[hub]]\n",
		"sub/b.md":    "up [h](../hub.md)\nagain [[hub#Part]]\n",
		".trash/t.md": "[[hub]]\n",
	}, nil)
	l, err := v.Links(ctx, "hub.md")
	if err != nil {
		t.Fatal(err)
	}
	var out, unres, back []string
	for _, x := range l.Outgoing {
		out = append(out, x.Raw+"->"+x.Target)
	}
	for _, x := range l.Unresolved {
		unres = append(unres, x.Raw)
	}
	for _, x := range l.Backlinks {
		back = append(back, x.Source+":"+strconv.Itoa(x.Line))
	}
	if want := []string{"a->a.md", "missing->", "sub/b.md->sub/b.md"}; !slices.Equal(out, want) {
		t.Errorf("Outgoing = %v, want %v", out, want)
	}
	if !slices.Equal(unres, []string{"missing"}) {
		t.Errorf("Unresolved = %v", unres)
	}
	if want := []string{"a.md:1", "sub/b.md:1", "sub/b.md:2"}; !slices.Equal(back, want) {
		t.Errorf("Backlinks = %v, want %v", back, want)
	}
	_, err = v.Links(ctx, "nope.md")
	wantCode(t, err, CodeNotFound)
}

package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchCursorAcrossIndexBuilt: a search paged from before the index is
// built (every note read and ranked in one call) to after it shows every
// matching note once.
func TestSearchCursorAcrossIndexBuilt(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	var want []string
	for i := range 12 {
		p := fmt.Sprintf("n%02d.md", i)
		// Scores differ by how often the word stands and how long the note is.
		files[p] = "# Note " + p + "\n\n" + strings.Repeat("garden ", 1+i%4) + strings.Repeat("filler words here ", 1+(i*7)%11) + "\n"
		want = append(want, p)
	}
	files["other.md"] = "nothing to see\n"
	writeFiles(t, dir, files)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 12 {
		mod := base.Add(-time.Duration((i*5)%12) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	open := func(indexed bool) *Vault {
		v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: indexed})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		if err := v.WaitIndexed(ctx); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, query := range []string{"garden", "garden -nothing", `"garden"`} {
		before, after := open(false), open(true)
		p, err := before.SearchPage(ctx, Query{Text: query, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		got := hitPaths(p.Hits)
		for q, calls := (Query{Text: query, Limit: 3, Cursor: p.NextCursor}), 0; q.Cursor != "" && calls < 20; calls++ {
			p, err := after.SearchPage(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, hitPaths(p.Hits)...)
			q.Cursor = p.NextCursor
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q paged from before the index to after it: %v, want each of %v once", query, got, want)
		}
	}
}

package vault

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestSearchHitsOutliveReadBuffers checks that a hit keeps nothing of the
// pooled buffer its note was read into: the first searches' titles,
// snippets and lines (all cut from the notes' text) must read the same
// after other searches have read other notes into the same buffers, with
// the index (candidates confirmed) and without it (every note read), read
// in one lookup or by the walk, one search at a time and several at once.
func TestSearchHitsOutliveReadBuffers(t *testing.T) {
	files := map[string]string{
		"a/first.md":  "# Alpha heading\n\n- [ ] call the roofer about alpha\nalpha words and the weekly goals\n",
		"a/second.md": "---\ntitle: Alpha from frontmatter\n---\n\n- [ ] alpha task to do\nmore alpha and weekly goals\n",
	}
	// Notes of other bytes at the same offsets, read after the first ones.
	for i := range 40 {
		files[fmt.Sprintf("b/other%d.md", i)] = fmt.Sprintf("# Zulu %d %s\n\n- [ ] zulu chore %d %s\n%s zulu yankee\n",
			i, strings.Repeat("z", i), i, strings.Repeat("y", 40), strings.Repeat("x ", 30))
	}
	first := []Query{
		{Text: "alpha"},
		{Text: "alpha", Lines: true},
		{Text: "task-todo:alpha"},
		{Text: "task-todo:roofer"},
		{Text: `"weekly goals" alpha`},
		{Text: "alpha -zulu", Lines: true},
		{Text: "[title:alpha]"},
	}
	other := []Query{
		{Text: "zulu"},
		{Text: "zulu", Lines: true},
		{Text: "task-todo:zulu"},
		{Text: `"zulu yankee"`, Lines: true},
		{Text: "zulu -alpha", Limit: 50},
	}
	show := func(t *testing.T, v *Vault, q Query) string {
		t.Helper()
		hits, err := v.Search(ctx, q)
		if err != nil {
			t.Errorf("%q: %v", q.Text, err) // not Fatal: searches run in goroutines too
		}
		// Printed, the hits' texts are copied out of wherever they lie.
		return fmt.Sprintf("%+v", hits)
	}
	indexed, _ := newIndexedVault(t, files, nil)
	scanned, _ := newTestVault(t, files, nil)
	walked, _ := newTestVault(t, files, nil)
	walked.noOpenat2 = true // notes read by the portable walk (no indexer runs to race with)
	for name, v := range map[string]*Vault{"index": indexed, "scan": scanned, "walk": walked} {
		t.Run(name, func(t *testing.T) {
			want := make([]string, len(first))
			for i, q := range first {
				hits, err := v.Search(ctx, q)
				if err != nil || len(hits) == 0 {
					t.Fatalf("%q: %d hits, %v", q.Text, len(hits), err)
				}
				want[i] = fmt.Sprintf("%+v", hits)
				for _, q := range other {
					show(t, v, q)
				}
				if got := fmt.Sprintf("%+v", hits); got != want[i] {
					t.Errorf("%q: hits changed as other notes were read:\n got %s\nwant %s", q.Text, got, want[i])
				}
			}
			// Several at once: each search's buffers are its own.
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for k := range 20 {
						i := (g + k) % len(first)
						hits, err := v.Search(ctx, first[i])
						if err != nil {
							t.Error(err)
							return
						}
						before := fmt.Sprintf("%+v", hits)
						show(t, v, other[(g+k)%len(other)])
						if got := fmt.Sprintf("%+v", hits); got != before || got != want[i] {
							t.Errorf("%q: hits changed as others searched:\n got %s\nwant %s", first[i].Text, got, want[i])
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

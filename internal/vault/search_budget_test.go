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

// budgetVault opens an indexed vault of n notes of about 2 kB, note 0 the
// newest, whose read budget covers about perCall notes; mark(i) says which
// notes hold an open task and a rocket.
func budgetVault(t *testing.T, n, perCall int, mark func(int) bool) *Vault {
	t.Helper()
	return budgetVaultIn(t, t.TempDir(), true, n, perCall, mark)
}

// budgetVaultIn is budgetVault in dir, with or without the index (without
// it every search reads the notes, as before the index is built).
func budgetVaultIn(t *testing.T, dir string, indexed bool, n, perCall int, mark func(int) bool) *Vault {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		body := strings.Repeat("plain words of a note ", 90)
		if mark(i) {
			body += "\n- [ ] call the plumber 🚀\n"
		}
		files[fmt.Sprintf("n%03d.md", i)] = "# Note\n\n" + body + "\n"
	}
	writeFiles(t, dir, files)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		mod := base.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, fmt.Sprintf("n%03d.md", i)), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: indexed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	v.readBudget = int64(perCall) * (int64(len(files["n000.md"])) + noteReadCost)
	return v
}

// TestSearchReadBudget: a query the index cannot decide (text without
// words) that matches nothing stops after the read budget instead of
// reading every note, says how far it got, and its cursor reads on from
// there until the one match, in the oldest note, is found.
func TestSearchReadBudget(t *testing.T) {
	const n, perCall = 60, 8
	v := budgetVault(t, n, perCall, func(i int) bool { return i == n-1 })
	p, err := v.SearchPage(ctx, Query{Text: "🚀"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hits) != 0 || p.Cut == nil || p.Cut.Checked != perCall || p.Cut.Candidates != n || p.NextCursor == "" {
		t.Fatalf("first page: %d hits, cut %+v, cursor %q; want none, %d of %d notes checked, a cursor", len(p.Hits), p.Cut, p.NextCursor, perCall, n)
	}
	var got []string
	calls := 1
	for p.NextCursor != "" {
		checked := p.Cut.Checked
		if p, err = v.SearchPage(ctx, Query{Text: "🚀", Cursor: p.NextCursor}); err != nil {
			t.Fatal(err)
		}
		calls++
		got = append(got, hitPaths(p.Hits)...)
		if p.Cut != nil && (p.Cut.Checked != checked+perCall || p.Cut.Candidates != n) {
			t.Fatalf("call %d: cut %+v after %d checked", calls, p.Cut, checked)
		}
		if calls > n {
			t.Fatal("the cursor does not move on")
		}
	}
	if want := []string{fmt.Sprintf("n%03d.md", n-1)}; !slices.Equal(got, want) || p.Cut != nil {
		t.Errorf("found %v (last cut %+v), want %v", got, p.Cut, want)
	}
	if want := (n + perCall - 1) / perCall; calls != want {
		t.Errorf("%d calls, want %d", calls, want)
	}
}

// TestSearchReadBudgetPages: matches found before the budget runs out are
// shown, and paging over budget-cut and full pages alike gives every match
// once, newest first. Queries the index narrows are not cut.
func TestSearchReadBudgetPages(t *testing.T) {
	const n = 90
	every5 := func(i int) bool { return i%5 == 0 }
	v := budgetVault(t, n, 4, every5)
	var want []string
	for i := range n {
		if every5(i) {
			want = append(want, fmt.Sprintf("n%03d.md", i))
		}
	}
	for _, q := range []string{"- [ ]", "🚀", "plumber -nothing", `"call the plumber"`} {
		var got []string
		cuts := 0
		cursor := ""
		for range 3 * n {
			p, err := v.SearchPage(ctx, Query{Text: q, Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, hitPaths(p.Hits)...)
			if p.Cut != nil {
				cuts++
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: paged through %v, want %v", q, got, want)
		}
		// The index finds the notes with words and phrases; text without
		// words has to be looked for in every note, in calls of 4 notes.
		if literal := !strings.Contains(q, "plumber"); literal != (cuts > 0) {
			t.Errorf("%q: %d pages cut by the budget", q, cuts)
		}
	}
}

// BenchmarkSearchReadBudget measures a query without words that matches
// nothing, over 10,000 notes of about 3.5 kB: one call (which stops at the
// read budget) and every call its cursors lead to, reading all the notes.
func BenchmarkSearchReadBudget(b *testing.B) {
	v := openBench(b, benchVault(b, 10000))
	b.Run("one call", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.SearchPage(ctx, Query{Text: "🚀"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("all calls", func(b *testing.B) {
		calls := 0
		for b.Loop() {
			q := Query{Text: "🚀"}
			for {
				p, err := v.SearchPage(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				calls++
				if q.Cursor = p.NextCursor; q.Cursor == "" {
					break
				}
			}
		}
		b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	})
}

// TestSearchReadBudgetDepth: at the depth limit of 1,000 results a search
// cut by the budget gives no cursor, and so does not say it could go on.
func TestSearchReadBudgetDepth(t *testing.T) {
	const n, perCall = 2040, 30
	v := budgetVault(t, n, perCall, func(i int) bool { return i%2 == 0 })
	q := Query{Text: "🚀", Limit: 50}
	hits := 0
	for calls := 0; ; calls++ {
		p, err := v.SearchPage(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		hits += len(p.Hits)
		if p.Cut != nil && p.NextCursor == "" {
			t.Fatalf("after %d hits: cut %+v without a cursor", hits, p.Cut)
		}
		if q.Cursor = p.NextCursor; q.Cursor == "" {
			break
		}
		if calls > n {
			t.Fatal("the cursor does not move on")
		}
	}
	if hits < maxSearchDepth || hits >= maxSearchDepth+perCall {
		t.Errorf("%d hits over all pages, want the first %d or a few more", hits, maxSearchDepth)
	}
}

// TestSearchReadBudgetBeforeIndex: before the index is built every search
// reads the notes, newest first, within the same read budget: a call
// stops after it, says so (and why), and its cursor reads on, even once
// the index is there.
func TestSearchReadBudgetBeforeIndex(t *testing.T) {
	const n, perCall = 60, 8
	dir := t.TempDir()
	every5 := func(i int) bool { return i%5 == 0 }
	v := budgetVaultIn(t, dir, false, n, perCall, every5)
	p, err := v.SearchPage(ctx, Query{Text: "plumber", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	// The budget covers perCall marked notes, and a few more plain ones.
	if got := hitPaths(p.Hits); !slices.Equal(got, []string{"n000.md", "n005.md"}) || p.Cut == nil ||
		*p.Cut != (ScanCut{Checked: perCall + 1, Candidates: n, Unindexed: true}) || p.NextCursor == "" {
		t.Fatalf("first page: %v, cut %+v, cursor %q; want the 2 matches of the %d newest notes, cut, a cursor", got, p.Cut, p.NextCursor, perCall+1)
	}
	var want []string
	for i := range n {
		if every5(i) {
			want = append(want, fmt.Sprintf("n%03d.md", i))
		}
	}
	for _, q := range []string{"plumber", "🚀", "- [ ] -nothing", `"call the plumber"`} {
		var got []string
		calls, cursor := 0, ""
		for {
			p, err := v.SearchPage(ctx, Query{Text: q, Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			calls++
			got = append(got, hitPaths(p.Hits)...)
			if cursor = p.NextCursor; cursor == "" || calls > n {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: paged through %v, want %v", q, got, want)
		}
	}

	// A cursor of the scan reads on after the index is built.
	p, err = v.SearchPage(ctx, Query{Text: "🚀", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	indexed := budgetVaultIn(t, dir, true, n, perCall, every5)
	got := hitPaths(p.Hits)
	for q := (Query{Text: "🚀", Limit: 50, Cursor: p.NextCursor}); q.Cursor != ""; {
		p, err := indexed.SearchPage(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, hitPaths(p.Hits)...)
		q.Cursor = p.NextCursor
		if p.Cut != nil && !p.Cut.Unindexed {
			t.Errorf("cut %+v does not say the search began without the index", p.Cut)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("continued after the index was built: %v, want %v", got, want)
	}
}

// TestSearchFullPageNotCut: a page that is full is not called cut short
// when the budget ran out while looking for one more match; its cursor
// still reads on from where the reading stopped.
func TestSearchFullPageNotCut(t *testing.T) {
	const n, perCall = 40, 8
	marked := func(i int) bool { return i < 2 || i == n-1 }
	for _, indexed := range []bool{true, false} {
		v := budgetVaultIn(t, t.TempDir(), indexed, n, perCall, marked)
		p, err := v.SearchPage(ctx, Query{Text: "🚀", Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitPaths(p.Hits); !slices.Equal(got, []string{"n000.md", "n001.md"}) || p.Cut != nil || p.NextCursor == "" {
			t.Fatalf("indexed %v: first page %v, cut %+v, cursor %q; want 2 hits, not cut, a cursor", indexed, got, p.Cut, p.NextCursor)
		}
		var rest []string
		for q := (Query{Text: "🚀", Limit: 2, Cursor: p.NextCursor}); q.Cursor != ""; {
			p, err := v.SearchPage(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Cut != nil && p.Cut.Checked <= perCall {
				t.Errorf("indexed %v: cursor read again from %d", indexed, p.Cut.Checked)
			}
			rest = append(rest, hitPaths(p.Hits)...)
			q.Cursor = p.NextCursor
		}
		if want := []string{fmt.Sprintf("n%03d.md", n-1)}; !slices.Equal(rest, want) {
			t.Errorf("indexed %v: the next pages found %v, want %v", indexed, rest, want)
		}
	}
}

// BenchmarkSearchBeforeIndex measures a search for a word over 10,000
// notes of about 3.5 kB before the index is built: one call, which reads
// the newest notes within the read budget.
func BenchmarkSearchBeforeIndex(b *testing.B) {
	v, err := Open(Options{Dir: benchVault(b, 10000), FreeSpace: plenty})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	for b.Loop() {
		if _, err := v.SearchPage(ctx, Query{Text: "garden"}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSearchBeforeIndexCursorAfterRemovals: a search read note by note
// newest first resumes after the last note it read, not at a count of
// notes: notes removed meanwhile from those already read (to the trash,
// or by the owner) must not make it pass over notes it has not read.
func TestSearchBeforeIndexCursorAfterRemovals(t *testing.T) {
	const n, perCall = 60, 8
	dir := t.TempDir()
	every5 := func(i int) bool { return i%5 == 0 }
	v := budgetVaultIn(t, dir, false, n, perCall, every5)
	p, err := v.SearchPage(ctx, Query{Text: "plumber", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := hitPaths(p.Hits)
	if !slices.Equal(got, []string{"n000.md", "n005.md"}) || p.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", got, p.NextCursor)
	}
	for _, name := range []string{"n000.md", "n001.md", "n002.md"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for cursor, calls := p.NextCursor, 0; cursor != "" && calls <= n; calls++ {
		p, err := v.SearchPage(ctx, Query{Text: "plumber", Limit: 50, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, hitPaths(p.Hits)...)
		cursor = p.NextCursor
	}
	var want []string
	for i := range n {
		if every5(i) {
			want = append(want, fmt.Sprintf("n%03d.md", i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged through %v, want %v", got, want)
	}
}

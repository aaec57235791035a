package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// scratchIndex is an index of 300 notes (one removed) of ten words, with
// three tags, four property values and five folders.
func scratchIndex() *Index {
	words := strings.Fields("garden plan meeting budget review travel weekly goals river winter")
	x := NewIndex()
	for i := range 300 {
		var body strings.Builder
		fmt.Fprintf(&body, "---\ntags: [t%d]\nstatus: s%d\n---\n# %s %s\n\n", i%3, i%4, words[i%len(words)], words[(i/3)%len(words)])
		for j := range 40 {
			body.WriteString(words[(i*7+j*j)%len(words)])
			body.WriteByte(' ')
		}
		body.WriteString("\nweekly goals and more\n")
		p := fmt.Sprintf("f%d/Note %d.md", i%5, i)
		x.Put(Analyse(p, body.String(), int64(i), int64(body.Len())), false)
	}
	x.Remove("f0/Note 0.md")
	x.SortTerms()
	return x
}

// TestCandidatesScratchNotShared runs searches of every kind while the
// lists earlier ones returned are still held, then gives them back and runs
// them again: a list handed out must not be one the pool hands out too (a
// list given back twice, or kept by the index after it was returned), and
// a list filled from one given back must hold the same candidates as a
// fresh one.
func TestCandidatesScratchNotShared(t *testing.T) {
	x := scratchIndex()
	queries := []string{
		"garden", "budget review", `"weekly goals"`, "rive", "tag:t1", "folder:f2", "tag:t2 folder:f3",
		"-garden", "garden -plan", "plan -tag:t0", "garden OR plan", "tag:t0 OR tag:t1", "[status:s1]",
		"[status:s2] river", "path:f1 plan", "file:Note river", "garden OR -plan", "nothinghere", "[nope:x]",
		"meeting OR nothinghere", "tag:t1 plan", "tag:t0 tag:t1", "[status:s1] tag:t1", "[status] river -tag:t2",
	}
	want := map[string][]Scored{}
	for _, q := range queries {
		c := x.Candidates(ParseQuery(q))
		want[q] = slices.Clone(c)
		ReleaseCandidates(c)
	}
	for round := range 4 {
		order := slices.Clone(queries)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		held := map[string][]Scored{}
		for _, q := range order {
			c := x.Candidates(ParseQuery(q))
			if !slices.Equal(c, want[q]) {
				t.Errorf("round %d: %q: %d candidates, want %d", round, q, len(c), len(want[q]))
			}
			held[q] = c
			// Another caller's list, ranked in place, given back at once.
			again := x.Candidates(ParseQuery(q))
			x.Top(again, len(again))
			ReleaseCandidates(again)
		}
		for q, c := range held {
			// Every later search ran while c was held.
			if !slices.Equal(c, want[q]) {
				t.Errorf("round %d: %q changed while held by its caller", round, q)
			}
			ReleaseCandidates(c)
		}
	}
}

// TestPhraseScratchReused matches phrases in notes long and short, with
// and without them, in turn: each note read after another must be found
// as when it was read first, with none of the other's words or offsets.
func TestPhraseScratchReused(t *testing.T) {
	long := "# Long\n\n" + strings.Repeat("the weekly goals of the river team, and more words besides. ", 400)
	notes := []struct{ path, content string }{
		{"Long.md", long},
		{"Short.md", "# Short\n\nriver plans, no goals here\n"},
		{"Late.md", "# Late\n\n" + strings.Repeat("filler words only ", 300) + "\nweekly goals at the end\n"},
		{"None.md", "# None\n\n" + strings.Repeat("weekly ", 50) + "\n"},
	}
	queries := []string{`"weekly goals"`, `"river team" weekly`, `"goals here"`, `"weekly goals" -filler`}
	type result struct {
		score   float64
		snippet string
	}
	first := map[string]result{}
	for _, q := range queries {
		for _, n := range notes {
			s, sn := Match(ParseQuery(q), n.path, n.path, n.content)
			first[q+"|"+n.path] = result{s, sn}
		}
	}
	for range 3 {
		for i := len(queries) - 1; i >= 0; i-- {
			q := queries[i]
			for j := len(notes) - 1; j >= 0; j-- {
				n := notes[j]
				s, sn := Match(ParseQuery(q), n.path, n.path, n.content)
				if got := (result{s, sn}); got != first[q+"|"+n.path] {
					t.Errorf("%q in %s: %v, first %v", q, n.path, got, first[q+"|"+n.path])
				}
				if ok, _ := Confirm(ParseQuery(q), n.path, n.path, n.content); ok != (first[q+"|"+n.path].score > 0) {
					t.Errorf("%q in %s: Confirm %v", q, n.path, ok)
				}
			}
		}
	}
	if first[`"weekly goals"|None.md`].score != 0 || first[`"weekly goals"|Late.md`].score == 0 {
		t.Errorf("phrases not told apart: %v", first)
	}
}

// TestSnippetAllocatesOnce checks a snippet is built on the stack and
// copied out once, cut on both sides and in any script.
func TestSnippetAllocatesOnce(t *testing.T) {
	content := strings.Repeat("garden words 会議の記録 and more\n", 40)
	for _, at := range []int{0, 200, 600} {
		if n := testing.AllocsPerRun(100, func() { makeSnippet(content, 0, at) }); n != 1 {
			t.Errorf("makeSnippet at %d: %v allocations, want 1", at, n)
		}
	}
}

// TestPathFiltersAllocateNothing checks path: and file:, which the index
// applies to every candidate, fold the path on the stack.
func TestPathFiltersAllocateNothing(t *testing.T) {
	q := ParseQuery(`path:projects/ file:"note é" garden`)
	p := "Projects/Été/Note É 12.md"
	if !pathFilters(p, q) || pathFilters("Other/Note É.md", q) || pathFilters("Projects/Plan.md", q) {
		t.Fatalf("pathFilters(%q, %+v) decides wrongly", p, q)
	}
	if n := testing.AllocsPerRun(100, func() { pathFilters(p, q) }); n != 0 {
		t.Errorf("pathFilters: %v allocations, want 0", n)
	}
}

// TestTopIsSortedPrefix checks the best k of a list, taken without sorting
// it all, are the first k of it sorted, in their order, for every k; and
// that they cost the heap and its array only.
func TestTopIsSortedPrefix(t *testing.T) {
	x := scratchIndex()
	for _, q := range []string{"garden", "plan weekly", "tag:t1"} {
		c := x.Candidates(ParseQuery(q))
		sorted := x.Top(slices.Clone(c), len(c))
		for k := 1; k < len(c); k++ {
			if got := x.Top(c, k); !slices.Equal(got, sorted[:k]) {
				t.Fatalf("%q: Top(%d) = %v, want %v", q, k, got, sorted[:k])
			}
		}
		if n := testing.AllocsPerRun(20, func() { x.Top(c, 10) }); n > 2 {
			t.Errorf("%q: Top(10) of %d: %v allocations, want at most 2", q, len(c), n)
		}
	}
}

// TestLiteralReadsWithoutGarbage checks a search for literal text alone
// ("- [ ]", an emoji), which reads note after note, makes nothing for a
// note without the text, and the same snippet for one with it.
func TestLiteralReadsWithoutGarbage(t *testing.T) {
	q := ParseQuery("- [ ]")
	if q.Literal == "" {
		t.Fatalf("ParseQuery(%q) = %+v, want a literal", "- [ ]", q)
	}
	without := "---\ntags: [x]\n---\n# Plan\n\n- [x] done already\nsome words\n"
	with := "# Plan\n\nsome words first\n- [ ] call the roofer\n"
	if s, sn := Match(q, "Plan.md", "Plan", with); s != 1 || sn != "# Plan some words first - [ ] call the roofer" {
		t.Errorf("Match(with) = %v, %q", s, sn)
	}
	if n := testing.AllocsPerRun(50, func() { Match(q, "Plan.md", "Plan", without) }); n != 0 {
		t.Errorf("Match of a note without the literal: %v allocations, want 0", n)
	}
}

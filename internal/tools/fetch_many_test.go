package tools

import (
	"fmt"
	"strings"
	"testing"
)

// fetch with ids reads several notes in one call, in the order asked,
// each with its version, and a note that cannot be read gets the error
// fetch gives for it alone while the others are read.
func TestFetchMany(t *testing.T) {
	e := newEnv(t)
	e.write("Garden/Plan.md", "# Plan\nTomatoes.\n")
	e.write("Work/Budget.md", "---\naliases: [Money]\n---\n# Budget\nTen.\n")
	var f fetchOut
	e.ok("fetch", map[string]any{"ids": []string{"Money", "nowhere", "Garden/Plan.md"}}, &f)
	if len(f.Notes) != 3 {
		t.Fatalf("notes = %+v", f.Notes)
	}
	b, miss, p := f.Notes[0], f.Notes[1], f.Notes[2]
	if b.ID != "Work/Budget.md" || b.Title != "Budget" || !strings.Contains(b.Text, "Ten.") || b.Version != e.version("Work/Budget.md") || b.Error != nil {
		t.Errorf("first = %+v", b)
	}
	if miss.ID != "nowhere" || miss.Error == nil || miss.Error.Code != "not_found" || miss.Text != "" {
		t.Errorf("missing = %+v", miss)
	}
	if p.ID != "Garden/Plan.md" || p.Version != e.version("Garden/Plan.md") {
		t.Errorf("third = %+v", p)
	}
	// The notes read are recorded as shown, the missing one not.
	if got := f.shown(); strings.Join(got, ",") != "Work/Budget.md,Garden/Plan.md" {
		t.Errorf("shown = %v", got)
	}
}

// Text is shared out so that one answer stays bounded; a cut note says
// where to go on.
func TestFetchManyBounded(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := range 20 {
		p := fmt.Sprintf("N%02d.md", i)
		e.write(p, strings.Repeat("line of text\n", 2000))
		ids = append(ids, p)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"ids": ids}, &f)
	total := 0
	for _, n := range f.Notes {
		total += len(n.Text)
		if n.NextOffset == nil || *n.NextOffset != len(n.Text) {
			t.Fatalf("%s: next_offset %v after %d chars", n.ID, n.NextOffset, len(n.Text))
		}
	}
	if total > maxManyChars {
		t.Errorf("20 long notes gave %d characters, over %d", total, maxManyChars)
	}
}

// Bad calls are refused as a whole, with what to do.
func TestFetchManyRefusals(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "a\n")
	many := make([]string, 21)
	for i := range many {
		many[i] = "a.md"
	}
	for _, args := range []map[string]any{
		{},
		{"ids": []string{}},
		{"ids": many},
		{"id": "a.md", "ids": []string{"a.md"}},
		{"ids": []string{"a.md"}, "offset": 5},
		{"ids": []string{"a.md"}, "version": "0123456789ab"},
	} {
		te := e.fail("fetch", args, "invalid_argument")
		if te.Message == "" {
			t.Errorf("%v: no sentence", args)
		}
	}
}

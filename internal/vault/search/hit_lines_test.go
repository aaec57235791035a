package search

import (
	"reflect"
	"strings"
	"testing"
)

// Any query can name the lines of a note that hold what it matched the
// note by, read as the matcher reads the note: words folded (any case or
// accent), the last word as a prefix, phrases on one line, text without
// words and symbols as written, tags in the body and in the frontmatter's
// tags, a property's line, the alternatives of an OR that the note
// matches; never a line for an excluded word, and a tag in fenced code
// is not a tag.
func TestHitLines(t *testing.T) {
	const note = "---\ntitle: Budget\ntags: [home, money/2026]\nstatus: active\nowners:\n  - Ana\n  - Bea\n---\n" + // 1-8
		"# Café plans\n" + // 9
		"The CAFE budget is tight.\n" + // 10
		"- [ ] call Ana about the cafés\n" + // 11
		"Rockets 🚀 launch #money soon\n" + // 12
		"```\n#home in code, budget too\n```\n" + // 13-15
		"The budget, again, for the tight cafe.\n" // 16
	lines := func(ns ...int) []int { return ns }
	cases := []struct {
		query string
		want  []int
	}{
		{"cafe ", lines(9, 10, 16)},    // a whole word
		{"cafe", lines(9, 10, 11, 16)}, // as typed: cafés too
		{"café budget", lines(2, 9, 10, 14, 16)},
		{`"budget is tight"`, lines(10)},
		{`"tight cafe"`, lines(16)},
		{"caf budget", lines()}, // only the last word is a prefix: no match
		{"- [ ]", lines(11)},
		{"🚀", lines(12)},
		{"tag:#money", lines(3, 12)},
		{"#home", lines(3)},
		{"[status:active]", lines(4)},
		{"[owners:bea]", lines(7)},
		{"[owners]", lines(5)},
		{"rockets OR nothinghere", lines(12)},
		{"rockets OR (ana -budget)", lines(12)}, // the note has budget: the second alternative does not match
		{"cafe -rockets", lines()},              // the note does not match
		{"tight -rockets2", lines(10, 16)},
	}
	for _, tc := range cases {
		q := ParseQuery(tc.query)
		var got []int
		matched := false
		if s, _ := Match(q, "Budget.md", "Budget", note); s > 0 {
			matched = true
			for _, h := range HitLines(q, "Budget.md", "Budget", note, 10) {
				got = append(got, h.N)
				if want := strings.TrimSpace(strings.Split(note, "\n")[h.N-1]); h.Text != want {
					t.Errorf("%s: line %d reads %q, want %q", tc.query, h.N, h.Text, want)
				}
			}
		}
		if len(tc.want) > 0 && !matched {
			t.Errorf("%s: the note does not match", tc.query)
		}
		if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
			t.Errorf("%s: lines %v, want %v", tc.query, got, tc.want)
		}
	}
}

// A prefix search (search as you type) names the lines with a word the
// last term starts.
func TestHitLinesPrefix(t *testing.T) {
	q := ParseQuery("budg")
	q.PrefixLast = true
	got := HitLines(q, "a.md", "a", "one\nthe budgets\nbud\n", 10)
	if len(got) != 1 || got[0] != (LineHit{2, "the budgets"}) {
		t.Errorf("prefix lines = %v", got)
	}
}

// At most limit lines, each clipped as line filters clip theirs.
func TestHitLinesCapped(t *testing.T) {
	var b strings.Builder
	for range 30 {
		b.WriteString("zebra " + strings.Repeat("é", 400) + "\n")
	}
	got := HitLines(ParseQuery("zebra"), "a.md", "a", b.String(), 10)
	if len(got) != 10 || got[9].N != 10 {
		t.Fatalf("got %d lines, last %v", len(got), got[len(got)-1].N)
	}
	if l := got[0].Text; len(l) > maxLineText+len("…") || !strings.HasSuffix(l, "…") || !strings.HasPrefix(l, "zebra é") {
		t.Errorf("clipped line = %q (%d bytes)", l, len(l))
	}
}

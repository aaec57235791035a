package search

import (
	"reflect"
	"testing"
)

// Line filters look at one line at a time, as Obsidian's do: a task line
// (open or done), or any line, holding every word; code blocks and the
// frontmatter are not lines of the note's text; the hits give the line's
// number in the whole file.
func TestMatchLines(t *testing.T) {
	const note = "---\ntags: [home]\n---\n# House\n- [ ] call the roofer about the leak\n- [x] paint the fence\n* [/] order paint samples\nThe roofer said call back.\n```\n- [ ] call in code\n```\n  1. [ ] call the plumber\n"
	cases := []struct {
		query string
		want  []LineHit
		ok    bool
	}{
		{"task-todo:call", []LineHit{{5, "- [ ] call the roofer about the leak"}, {12, "1. [ ] call the plumber"}}, true},
		{"task-done:paint", []LineHit{{6, "- [x] paint the fence"}, {7, "* [/] order paint samples"}}, true},
		{"task:paint", []LineHit{{6, "- [x] paint the fence"}, {7, "* [/] order paint samples"}}, true},
		{"task-todo:paint", nil, false},
		{`line:(roofer call)`, []LineHit{{5, "- [ ] call the roofer about the leak"}, {8, "The roofer said call back."}}, true},
		{`line:("call back")`, []LineHit{{8, "The roofer said call back."}}, true},
		{`line:(roofer fence)`, nil, false}, // on different lines
		{"task-todo:code", nil, false},      // in a code block
		{"line:home", nil, false},           // in the frontmatter
		{"task-todo:leak task-done:fence", []LineHit{{5, "- [ ] call the roofer about the leak"}, {6, "- [x] paint the fence"}}, true},
		{"task-todo:leak OR task-todo:nothing", []LineHit{{5, "- [ ] call the roofer about the leak"}}, true},
	}
	for _, tc := range cases {
		q := ParseQuery(tc.query)
		got, ok := MatchLines(q, note, 10)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v %v", tc.query, got, ok, tc.want, tc.ok)
		}
		score, _ := Match(q, "House.md", "House", note)
		if (score > 0) != tc.ok {
			t.Errorf("%s: Match score %v, want a match %v", tc.query, score, tc.ok)
		}
	}
}

// Find names the lines of line filters from the reading that decides the
// match: those of the first alternative with line filters that the note
// matches, whether scored or confirmed.
func TestFindNamesFilterLines(t *testing.T) {
	const note = "# House\n- [ ] call the roofer\n- [x] call the painter\nleak\n"
	for _, scoring := range []bool{true, false} {
		for query, want := range map[string][]LineHit{
			"task-todo:call":                    {{2, "- [ ] call the roofer"}},
			"leak OR task-done:call":            {{3, "- [x] call the painter"}},
			"task-todo:nothing OR task:painter": {{3, "- [x] call the painter"}},
			"leak":                              nil,
		} {
			f := Find(ParseQuery(query), "House.md", "House", note, scoring, 10)
			if f.Score <= 0 || !reflect.DeepEqual(f.Lines, want) {
				t.Errorf("%s (scoring %v): %+v, want lines %v", query, scoring, f, want)
			}
			if f0 := Find(ParseQuery(query), "House.md", "House", note, scoring, 0); f0.Lines != nil {
				t.Errorf("%s: lines without asking: %v", query, f0.Lines)
			}
		}
	}
}

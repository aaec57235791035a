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

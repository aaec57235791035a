package tools

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/diff"
)

// What a write's answer says of the change it made: enough for a model to
// check it did what was meant and tell the owner, never the whole note.
const (
	maxSummaryChars    = 1500 // of the diff text
	maxSummaryLineChar = 200  // of one line in it
)

// changeSummary is a write's change in brief: how many lines it removed
// and added, and those lines (cut when long), the full diff being the
// console's to show.
type changeSummary struct {
	Removed int    `json:"removed" jsonschema:"lines removed (a changed line counts as removed and added)"`
	Added   int    `json:"added" jsonschema:"lines added"`
	Diff    string `json:"diff,omitempty" jsonschema:"the removed (-) and added (+) lines after @@ line N @@, cut when long"`
	Cut     bool   `json:"cut,omitempty" jsonschema:"true when diff does not show every changed line; the owner's console shows all"`
}

// summarize compares a note's text before and after a write. Lines the two
// share at the start and end are set aside first, so that an append or a
// small edit to a long note costs a pass over its lines, not a diff of
// the whole.
func summarize(before, after string) *changeSummary {
	if before == after {
		return &changeSummary{}
	}
	// The common start, back to the start of its last line, and the
	// common end, forward to the start of a line.
	n := 0
	for n < len(before) && n < len(after) && before[n] == after[n] {
		n++
	}
	n = strings.LastIndexByte(before[:n], '\n') + 1
	head := strings.Count(before[:n], "\n")
	a, b := before[n:], after[n:]
	q := 0
	for q < len(a) && q < len(b) && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	la, lb := len(a)-q, len(b)-q
	for la < len(a) && la > 0 && a[la-1] != '\n' {
		la++
		lb++
	}
	d := diff.Lines(a[:la], b[:lb])
	s := &changeSummary{}
	s.Added, s.Removed = diff.Count(d)
	if s.Added+s.Removed == 0 {
		// Only line ends changed (a final newline, \r\n): one line each.
		s.Added, s.Removed = 1, 1
	}
	var w strings.Builder
	last := -2
	for i, l := range d {
		if l.Op == diff.Equal {
			continue
		}
		var line strings.Builder
		if last != i-1 {
			n := l.Old
			if n == 0 {
				n = l.New
			}
			line.WriteString("@@ line " + strconv.Itoa(n+head) + " @@\n")
		}
		last = i
		if l.Op == diff.Delete {
			line.WriteByte('-')
		} else {
			line.WriteByte('+')
		}
		text := l.Text
		if utf8.RuneCountInString(text) > maxSummaryLineChar {
			text = text[:byteIndex(text, maxSummaryLineChar)] + "…"
		}
		line.WriteString(text)
		line.WriteByte('\n')
		if w.Len()+line.Len() > maxSummaryChars {
			s.Cut = true
			break
		}
		w.WriteString(line.String())
	}
	s.Diff = w.String()
	return s
}

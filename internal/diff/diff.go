// Package diff compares two texts line by line and, within the lines that
// were changed in place, word by word. It owns the comparison shared by
// the console's pages, the history's undo plans and the tools' summaries.
//
// It is strings in, lines out: it imports nothing of cortex and must never
// read notes, log, or give up on a large input by pairing lines by
// position. A diff it returns always rebuilds both texts, and for every
// realistic edit it is minimal (no unchanged line is shown as changed);
// only inputs built to defeat it get a diff that is correct but longer
// than needed, so its time stays bounded (see costLimit).
package diff

import (
	"strings"
	"unicode"
)

// Op says what a diff line does.
type Op int

// Diff operations.
const (
	Equal Op = iota
	Delete
	Insert
)

// Line is one line of a diff.
type Line struct {
	Op   Op
	Text string // without its line end
	// Old and New are the line's 1-based numbers in the old and new text
	// (0 for a line that is not in that text).
	Old, New int
	// Spans split Text into changed and unchanged words, for a line that
	// was changed in place rather than added or removed; nil otherwise.
	Spans []Span
}

// Span is a run of a changed line's text.
type Span struct {
	Text    string
	Changed bool
}

// Lines compares two texts line by line and marks the changed words of
// lines that were changed in place. A final line end, and a "\r" before
// each line end, are not part of a line.
func Lines(a, b string) []Line {
	al, bl := SplitLines(a), SplitLines(b)
	x, y, n := intern(al, bl)
	xch, ych := compare(x, y, n)
	size := len(al)
	for _, ch := range ych {
		if ch {
			size++
		}
	}
	out := make([]Line, 0, size)
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && xch[i]:
			out = append(out, Line{Op: Delete, Text: al[i], Old: i + 1})
			i++
		case j < len(bl) && ych[j]:
			out = append(out, Line{Op: Insert, Text: bl[j], New: j + 1})
			j++
		default:
			out = append(out, Line{Op: Equal, Text: al[i], Old: i + 1, New: j + 1})
			i++
			j++
		}
	}
	markWords(out)
	return out
}

// Changed reports whether the diff has any added or removed line.
func Changed(d []Line) bool {
	for _, l := range d {
		if l.Op != Equal {
			return true
		}
	}
	return false
}

// Count returns how many lines the diff adds and removes.
func Count(d []Line) (added, removed int) {
	for _, l := range d {
		switch l.Op {
		case Insert:
			added++
		case Delete:
			removed++
		}
	}
	return added, removed
}

// SplitLines splits s into lines as Lines does: without line ends, a
// final line end ending the last line rather than starting an empty one.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// intern numbers the distinct strings of a and b, so the comparison looks
// at each line once and compares numbers after; n is how many there are.
func intern(a, b []string) (x, y []int32, n int) {
	ids := make(map[string]int32, len(a))
	num := func(s []string) []int32 {
		out := make([]int32, len(s))
		for i, v := range s {
			id, ok := ids[v]
			if !ok {
				id = int32(len(ids))
				ids[v] = id
			}
			out[i] = id
		}
		return out
	}
	x, y = num(a), num(b)
	return x, y, len(ids)
}

// similar is the least share of its text (counted in bytes, out of both
// lines) that a removed and an added line must have in common to be
// shown as one line changed in place; below it they are shown as a line
// removed and another added, with no word marked.
const similar = 0.5

// lookahead is how many added lines after the last pairing one removed
// line is tried against, which bounds the cost of pairing a large block.
const lookahead = 4

// pairBudget bounds the bytes of lines compared word by word in one diff;
// past it (only in diffs of whole megabytes rewritten) the remaining
// changed lines are shown without marks, as lines removed and added.
// Each pair counts pairCost bytes more, for the work any pair costs.
const (
	pairBudget = 4 << 20
	pairCost   = 64
)

// markWords pairs, in order, the removed and added lines of each changed
// block that are alike enough to be one line changed in place, and marks
// the words that differ within each pair.
func markWords(lines []Line) {
	budget := pairBudget
	for i := 0; i < len(lines) && budget > 0; {
		if lines[i].Op != Delete {
			i++
			continue
		}
		d := i
		for i < len(lines) && lines[i].Op == Delete {
			i++
		}
		ins := i
		for i < len(lines) && lines[i].Op == Insert {
			i++
		}
		next := ins // the first added line not yet paired or passed
		for k := d; k < ins && next < i; k++ {
			for j := next; j < i && j < next+lookahead && budget > 0; j++ {
				budget -= pairCost + len(lines[k].Text) + len(lines[j].Text)
				if sa, sb, ok := wordSpans(lines[k].Text, lines[j].Text); ok {
					lines[k].Spans, lines[j].Spans = sa, sb
					next = j + 1
					break
				}
			}
		}
	}
}

// wordSpans splits two versions of a line into words and marks, in each,
// the words the other lacks; ok is false when the lines share too little
// to be one line changed.
func wordSpans(a, b string) (sa, sb []Span, ok bool) {
	if a == "" || b == "" {
		return nil, nil, false
	}
	wa, wb := words(a), words(b)
	x, y, n := intern(wa, wb)
	xch, ych := compare(x, y, n)
	same := 0
	for i, w := range wa {
		if !xch[i] {
			same += len(w)
		}
	}
	if float64(2*same) < similar*float64(len(a)+len(b)) {
		return nil, nil, false
	}
	return spans(a, wa, xch), spans(b, wb, ych), true
}

// spans cuts s, which the words ws make up, into runs of words that are
// all changed or all unchanged, as slices of s (no copying, so a long
// line costs its length once).
func spans(s string, ws []string, ch []bool) []Span {
	var out []Span
	start, pos := 0, 0
	for i, w := range ws {
		if i > 0 && ch[i] != ch[i-1] {
			out = append(out, Span{Text: s[start:pos], Changed: ch[i-1]})
			start = pos
		}
		pos += len(w)
	}
	if len(ws) > 0 {
		out = append(out, Span{Text: s[start:pos], Changed: ch[len(ws)-1]})
	}
	return out
}

// words splits s into runs of letters and digits, runs of spaces, and
// single other characters, so that the pieces join back into s.
func words(s string) []string {
	var out []string
	start := 0
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	prev := 0
	for i, r := range s {
		c := class(r)
		if i > start && (c != prev || c == 3) {
			out = append(out, s[start:i])
			start = i
		}
		prev = c
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

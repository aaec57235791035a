package history

import (
	"strconv"
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
	// was changed rather than added or removed; nil otherwise.
	Spans []Span
}

// Span is a run of a changed line's text.
type Span struct {
	Text    string
	Changed bool
}

// maxCells bounds the work of one comparison (old × new items after the
// common start and end are set aside); beyond it the middle is shown as
// removed and added whole.
const maxCells = 4 << 20

// Diff compares two texts line by line and marks the changed words of
// lines that were changed in place.
func Diff(a, b string) []Line {
	al, bl := splitLines(a), splitLines(b)
	var out []Line
	oldN, newN := 0, 0
	for _, e := range compare(al, bl) {
		switch e.op {
		case Equal:
			oldN++
			newN++
			out = append(out, Line{Op: Equal, Text: al[e.a], Old: oldN, New: newN})
		case Delete:
			oldN++
			out = append(out, Line{Op: Delete, Text: al[e.a], Old: oldN})
		case Insert:
			newN++
			out = append(out, Line{Op: Insert, Text: bl[e.b], New: newN})
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

func splitLines(s string) []string {
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

type edit struct {
	op   Op
	a, b int // indexes into the old and new items
}

// compare returns the edit script turning a into b: a longest common
// subsequence, computed on what remains once the common start and end are
// set aside.
func compare(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for i := range pre {
		out = append(out, edit{Equal, i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	out = append(out, middle(ma, mb, pre)...)
	for i := range suf {
		out = append(out, edit{Equal, len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

// middle diffs a and b (offset in the whole texts) by dynamic programming.
func middle(a, b []string, off int) []edit {
	n, m := len(a), len(b)
	var out []edit
	if n*m > maxCells || n == 0 || m == 0 {
		for i := range n {
			out = append(out, edit{Delete, off + i, 0})
		}
		for j := range m {
			out = append(out, edit{Insert, 0, off + j})
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{Equal, off + i, off + j})
			i++
			j++
		case j < m && (i == n || lcs[i*w+j+1] > lcs[(i+1)*w+j]):
			out = append(out, edit{Insert, 0, off + j})
			j++
		default:
			out = append(out, edit{Delete, off + i, 0})
			i++
		}
	}
	return out
}

// markWords pairs the removed and added lines of each changed block, in
// order, and marks the words that differ within each pair.
func markWords(lines []Line) {
	for i := 0; i < len(lines); {
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
		for k := 0; d+k < ins && ins+k < i; k++ {
			old, nw := &lines[d+k], &lines[ins+k]
			old.Spans, nw.Spans = wordSpans(old.Text, nw.Text)
		}
	}
}

// wordSpans splits two versions of a line into words and marks, in each,
// the words the other lacks.
func wordSpans(a, b string) (sa, sb []Span) {
	wa, wb := words(a), words(b)
	for _, e := range compare(wa, wb) {
		switch e.op {
		case Equal:
			sa = addSpan(sa, wa[e.a], false)
			sb = addSpan(sb, wb[e.b], false)
		case Delete:
			sa = addSpan(sa, wa[e.a], true)
		case Insert:
			sb = addSpan(sb, wb[e.b], true)
		}
	}
	return sa, sb
}

func addSpan(s []Span, text string, changed bool) []Span {
	if n := len(s); n > 0 && s[n-1].Changed == changed {
		s[n-1].Text += text
		return s
	}
	return append(s, Span{Text: text, Changed: changed})
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

// Unified renders a diff for a terminal: changed lines with "-" and "+",
// context lines around them with " ", "@@" between distant hunks, and the
// changed words of a changed line in [-removed-] and {+added+}.
func Unified(d []Line, context int) string {
	var b strings.Builder
	show := make([]bool, len(d))
	for i, l := range d {
		if l.Op == Equal {
			continue
		}
		for k := max(0, i-context); k <= min(len(d)-1, i+context); k++ {
			show[k] = true
		}
	}
	last := -2
	for i, l := range d {
		if !show[i] {
			continue
		}
		if last != i-1 {
			b.WriteString("@@ line ")
			n := l.Old
			if n == 0 {
				n = l.New
			}
			b.WriteString(strconv.Itoa(n))
			b.WriteString(" @@\n")
		}
		last = i
		switch l.Op {
		case Equal:
			b.WriteString(" ")
		case Delete:
			b.WriteString("-")
		case Insert:
			b.WriteString("+")
		}
		if l.Spans == nil {
			b.WriteString(l.Text)
		} else {
			for _, s := range l.Spans {
				switch {
				case !s.Changed:
					b.WriteString(s.Text)
				case l.Op == Delete:
					b.WriteString("[-" + s.Text + "-]")
				default:
					b.WriteString("{+" + s.Text + "+}")
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

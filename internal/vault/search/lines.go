package search

import (
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// LineKind says which lines a line filter looks at, as Obsidian's line:,
// task:, task-todo: and task-done: do.
type LineKind int

// Line filter kinds.
const (
	AnyLine  LineKind = iota // line:
	AnyTask                  // task: a task line, done or not
	TodoTask                 // task-todo: "- [ ]"
	DoneTask                 // task-done: any other mark, "- [x]"
)

// lineOps maps each line operator to its kind, longest first so that
// task-todo: is not read as task:.
var lineOps = []struct {
	op   string
	kind LineKind
}{{"task-todo:", TodoTask}, {"task-done:", DoneTask}, {"task:", AnyTask}, {"line:", AnyLine}}

// LineFilter asks for one line of the note (of Kind) holding all of
// Terms and Phrases, folded as a query's are.
type LineFilter struct {
	Kind    LineKind
	Terms   []string
	Phrases []string
}

// LineHit is a line of a note that a line filter matched: its 1-based
// number in the whole file and its text.
type LineHit struct {
	N    int
	Text string
}

// maxLineText clips a matched line's text.
const maxLineText = 300

// HasLines reports whether q (or one of its alternatives) filters lines,
// so that its hits can name the lines they matched.
func (q *Query) HasLines() bool {
	if len(q.Lines) > 0 {
		return true
	}
	for i := range q.Or {
		if len(q.Or[i].Lines) > 0 {
			return true
		}
	}
	return false
}

// MatchLines returns up to limit lines of content that one of q's line
// filters matches (those of the first alternative that has any), in
// order, and whether every filter of that clause found a line.
func MatchLines(q Query, content string, limit int) ([]LineHit, bool) {
	if len(q.Or) > 0 {
		for _, alt := range q.Or {
			if hits, ok := MatchLines(alt, content, limit); ok && len(alt.Lines) > 0 {
				return hits, true
			}
		}
		return nil, false
	}
	if len(q.Lines) == 0 {
		return nil, true
	}
	found := make([]bool, len(q.Lines))
	var hits []LineHit
	_, bodyStart, _ := markdown.Split(content)
	n := strings.Count(content[:bodyStart], "\n")
	fence := ""
	for rest := content[bodyStart:]; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		n++
		line = strings.TrimSuffix(line, "\r")
		if f := fenceOf(line); f != "" && (fence == "" || strings.HasPrefix(f, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		kind, ok := taskKind(line)
		var toks string
		matched := false
		for i, f := range q.Lines {
			if f.Kind != AnyLine && (!ok || f.Kind == TodoTask && kind != TodoTask || f.Kind == DoneTask && kind != DoneTask) {
				continue
			}
			if toks == "" {
				toks = " " + strings.Join(Tokens(Fold(line)), " ") + " "
			}
			if lineHolds(toks, f) {
				found[i], matched = true, true
			}
		}
		if matched && len(hits) < limit {
			hits = append(hits, LineHit{N: n, Text: clipLine(line)})
		}
	}
	for _, f := range found {
		if !f {
			return nil, false
		}
	}
	return hits, true
}

// lineHolds reports whether the line's tokens (space-joined, with a space
// at both ends) hold every term and phrase of f.
func lineHolds(toks string, f LineFilter) bool {
	for _, t := range f.Terms {
		if !strings.Contains(toks, " "+t+" ") {
			return false
		}
	}
	for _, p := range f.Phrases {
		if !strings.Contains(toks, " "+p+" ") {
			return false
		}
	}
	return true
}

// taskKind reads a list item with a task box: "- [ ]" is to do, any other
// mark done, as Obsidian counts them.
func taskKind(line string) (LineKind, bool) {
	t := strings.TrimLeft(line, " \t")
	if !markdown.IsListItem(t) {
		return 0, false
	}
	_, after, _ := strings.Cut(t, " ")
	after = strings.TrimLeft(after, " ")
	if len(after) < 3 || after[0] != '[' {
		return 0, false
	}
	end := strings.IndexByte(after, ']')
	if end < 2 || end > 5 {
		return 0, false
	}
	if after[1:end] == " " {
		return TodoTask, true
	}
	return DoneTask, true
}

// fenceOf is the fence a line opens or closes (``` or ~~~ and more), or "".
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			return t[:n]
		}
	}
	return ""
}

// clipLine is a line's text as a hit names it: trimmed, and cut after
// maxLineText bytes.
func clipLine(line string) string {
	text := strings.TrimSpace(line)
	if len(text) > maxLineText {
		text = clipUTF8(text, maxLineText) + "…"
	}
	return text
}

// clipUTF8 cuts s to at most n bytes at a character boundary.
func clipUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

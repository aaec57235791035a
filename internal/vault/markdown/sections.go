package markdown

import (
	"errors"
	"fmt"
	"strings"
)

// Heading is one ATX heading ("# x" to "###### x").
type Heading struct {
	Level int
	Text  string // trimmed, without the closing '#' sequence
	Line  int    // 1-based
	Start int    // byte offset of the heading line
}

// ErrSectionNotFound means no heading matches. FindSection returns it
// as a *NotFoundError, which lists the note's headings.
var ErrSectionNotFound = errors.New("section not found")

// MaxCandidates caps the headings an error lists, so that a note of a
// million headings cannot make an answer megabytes long.
const MaxCandidates = 50

// NotFoundError means no heading matches. Headings lists the note's
// headings as "## Plan (line 12)", the first MaxCandidates of them; More
// counts the rest.
type NotFoundError struct {
	Headings []string
	More     int
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no heading matches among %d", len(e.Headings)+e.More)
}

func (e *NotFoundError) Is(target error) bool { return target == ErrSectionNotFound }

// AmbiguousError means several headings match; Candidates lists them as
// "## Plan (line 12)", the first MaxCandidates of them; More counts the
// rest.
type AmbiguousError struct {
	Candidates []string
	More       int
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d headings match; name the section with its level or rename one", len(e.Candidates)+e.More)
}

// HeadingList renders headings for an error as "## Plan (line 12)",
// capped at MaxCandidates; the count of the rest comes second.
func HeadingList(hs []Heading) ([]string, int) { return candidateList(hs) }

// candidateList renders headings for an error, capped at MaxCandidates.
func candidateList(hs []Heading) ([]string, int) {
	out := make([]string, 0, min(len(hs), MaxCandidates))
	for _, h := range hs[:min(len(hs), MaxCandidates)] {
		out = append(out, fmt.Sprintf("%s %s (line %d)", strings.Repeat("#", h.Level), h.Text, h.Line))
	}
	return out, len(hs) - len(out)
}

// Headings returns the ATX headings of the body, outside fenced code blocks
// and the frontmatter. Setext headings (underlined with === or ---) are not
// recognised: cortex writes and addresses ATX headings only.
func Headings(content string) []Heading {
	var hs []Heading
	forBodyLines(content, func(l line) bool {
		if level, text, ok := parseHeading(content[l.start:l.end]); ok {
			hs = append(hs, Heading{Level: level, Text: text, Line: l.num, Start: l.start})
		}
		return true
	})
	return hs
}

// parseHeading recognises an ATX heading line.
func parseHeading(s string) (level int, text string, ok bool) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	j := i
	for j < len(s) && s[j] == '#' {
		j++
	}
	level = j - i
	if level < 1 || level > 6 || j < len(s) && s[j] != ' ' && s[j] != '\t' {
		return 0, "", false
	}
	text = strings.TrimSpace(s[j:])
	// A closing sequence of '#' counts only after a space (or alone).
	if k := strings.TrimRight(text, "#"); len(k) < len(text) {
		if k == "" {
			text = ""
		} else if c := k[len(k)-1]; c == ' ' || c == '\t' {
			text = strings.TrimSpace(k)
		}
	}
	return level, text, true
}

// FindSection locates the section under a heading: the heading line plus
// everything up to the next heading of the same or a higher level, or the
// end of the note. heading is compared with the heading text after
// trimming, exactly first and, when no heading matches exactly, ignoring
// case; it may carry the leading '#'s followed by a space ("## Plan"), and
// then the level must match too. Several matches give an *AmbiguousError,
// none a *NotFoundError.
//
// start is the offset of the heading line, bodyStart the offset just after
// it, end the offset where the section stops.
func FindSection(content, heading string) (start, bodyStart, end int, err error) {
	return findSection(content, Headings(content), heading, 0, len(content))
}

// findSection is FindSection among the headings that start in [lo, hi),
// a section ending at hi at the latest: a heading path looks within its
// parent's section of the whole note, as a part cut out of it could open
// with a rule (---) that would read as frontmatter.
func findSection(content string, all []Heading, heading string, lo, hi int) (start, bodyStart, end int, err error) {
	want := strings.TrimSpace(heading)
	wantLevel := 0
	if lv, text, ok := parseHeading(want); ok && text != "" {
		wantLevel, want = lv, text
	}
	hs := all
	if lo > 0 || hi < len(content) {
		hs = nil
		for _, h := range all {
			if h.Start >= lo && h.Start < hi {
				hs = append(hs, h)
			}
		}
	}
	if want == "" {
		list, more := candidateList(hs)
		return 0, 0, 0, &NotFoundError{Headings: list, More: more}
	}
	var matches []int
	for _, same := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		strings.EqualFold,
	} {
		for i, h := range hs {
			if same(h.Text, want) && (wantLevel == 0 || h.Level == wantLevel) {
				matches = append(matches, i)
			}
		}
		if len(matches) > 0 {
			break
		}
	}
	switch {
	case len(matches) == 0:
		// "Plan#Sub", as an Obsidian link writes a heading below another:
		// Sub within the section of Plan. Six levels at most, as headings.
		if parent, sub, ok := strings.Cut(want, "#"); ok && wantLevel == 0 && strings.Count(want, "#") < 6 {
			if _, pb, pe, err := findSection(content, all, parent, lo, hi); err == nil && pb < pe {
				if s, b, e, err := findSection(content, all, sub, pb, pe); err == nil {
					return s, b, e, nil
				}
			}
		}
		list, more := candidateList(hs)
		return 0, 0, 0, &NotFoundError{Headings: list, More: more}
	case len(matches) > 1:
		amb := make([]Heading, 0, min(len(matches), MaxCandidates))
		for _, i := range matches[:min(len(matches), MaxCandidates)] {
			amb = append(amb, hs[i])
		}
		list, _ := candidateList(amb)
		return 0, 0, 0, &AmbiguousError{Candidates: list, More: len(matches) - len(list)}
	}
	found := matches[0]
	h := hs[found]
	start = h.Start
	bodyStart = len(content)
	if i := strings.IndexByte(content[start:], '\n'); i >= 0 {
		bodyStart = start + i + 1
	}
	end = hi
	for _, n := range hs[found+1:] {
		if n.Level <= h.Level {
			end = n.Start
			break
		}
	}
	return start, bodyStart, end, nil
}

// FindBlock finds the block a link's ^id names ([[Note#^id]]): the
// paragraph or list item whose last line ends in " ^id", or the block just
// above a line holding only "^id" (as Obsidian marks a table or a quote).
// start and end are offsets of whole lines.
func FindBlock(content, id string) (start, end int, ok bool) {
	if id == "" {
		return 0, 0, false
	}
	mark := "^" + id
	_, blockStart, _ := Split(content) // of the block being read
	// Lines in fenced code and the frontmatter are text, not blocks; a
	// fence stays within the block it stands in, so "^id" alone below a
	// code block names the code block.
	forBodyLines(content, func(l line) bool {
		s := strings.TrimRight(content[l.start:l.end], " \t")
		switch {
		case s == "":
			blockStart = l.next
		case s == mark || strings.HasSuffix(s, " "+mark):
			start, end, ok = blockStart, l.next, true
			if s != mark && isListItem(s) {
				start = l.start
			}
			return false
		case isListItem(s):
			blockStart = l.start // a list item is a block of its own
		}
		return true
	})
	return start, end, ok
}

// IsListItem reports a line that starts a list item (-, *, + or a number
// and a dot or parenthesis, then a space), indented or not.
func IsListItem(line string) bool { return isListItem(line) }

// isListItem reports a line that starts a list item.
func isListItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

package search

import (
	"bytes"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// HitLines names up to limit lines of a note that q matches, in the
// order of the file, that hold what q matched the note by: a word or a
// phrase as Match finds them (folded the same way, the last word as a
// prefix when q.PrefixLast), text without words or a symbol as written
// (ignoring case), a tag written in the body or listed in the
// frontmatter's tags, a property's line in the frontmatter. With OR, the
// alternatives the note matches count. Exclusions, folders, path: and
// file: name no line. Line filters are not read here: Find names their
// lines.
func HitLines(q Query, notePath, title, content string, limit int) []LineHit {
	alts := []Query{q}
	if len(q.Or) > 0 {
		alts = alts[:0]
		for _, alt := range q.Or {
			if s, _, _ := match(alt, notePath, title, content, false, 0); s > 0 {
				alts = append(alts, alt)
			}
		}
	}
	pats := make([][][]byte, len(alts))
	for i, alt := range alts {
		pats[i] = wordPatterns(alt)
	}
	var hits []LineHit
	var buf []byte // the words of the line, reused
	_, bodyStart, _ := markdown.Split(content)
	inFront := bodyStart > 0
	key, fence := "", ""
	n := 0
	for rest := content; rest != "" && len(hits) < limit; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		n++
		front := inFront && len(content)-len(rest) <= bodyStart
		line = strings.TrimSuffix(line, "\r")
		l := textLine{text: line, front: front, buf: buf[:0]}
		if front {
			key = frontKey(line, key)
			l.key = key
		} else if f := fenceOf(line); f != "" && (fence == "" || strings.HasPrefix(f, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
		} else {
			l.tagged = fence == ""
		}
		for i, alt := range alts {
			if len(alt.Lines) == 0 && l.holds(alt, pats[i]) {
				hits = append(hits, LineHit{N: n, Text: clipLine(line)})
				break
			}
		}
		buf = l.buf
	}
	return hits
}

// wordPatterns are what a line's words (as textLine.words joins them) must
// contain to hold one of q's terms or phrases: " word " or " p h r a s e ",
// and " prefix" for a last word typed as a prefix.
func wordPatterns(q Query) [][]byte {
	var out [][]byte
	for i, t := range q.Terms {
		switch {
		case t == "":
		case i == len(q.Terms)-1 && q.PrefixLast:
			out = append(out, []byte(" "+t))
		default:
			out = append(out, []byte(" "+t+" "))
		}
	}
	for _, p := range q.Phrases {
		if p != "" {
			out = append(out, []byte(" "+p+" "))
		}
	}
	return out
}

// textLine is one line of a note as HitLines reads it.
type textLine struct {
	text  string
	front bool   // in the frontmatter
	key   string // there, the folded property the line belongs to
	// tagged is set for a body line outside fenced code, where #tags
	// count.
	tagged bool
	buf    []byte // the line's words once read, reused from line to line
	read   bool
}

// words is the line's folded words, as the matcher splits and folds them,
// each followed by a space and the first preceded by one.
func (l *textLine) words() []byte {
	if !l.read {
		l.buf, l.read = appendWords(l.buf[:0], l.text), true
	}
	return l.buf
}

// appendWords appends to dst the words of s as words joins them.
func appendWords(dst []byte, s string) []byte {
	dst = append(dst, ' ')
	scanWords(s, func(w []byte, _, _ int) {
		dst = append(append(dst, w...), ' ')
	})
	return dst
}

// holds reports whether the line holds one of the things q (one clause)
// asks the note for; pats are q's wordPatterns.
func (l *textLine) holds(q Query, pats [][]byte) bool {
	for _, p := range pats {
		if bytes.Contains(l.words(), p) {
			return true
		}
	}
	for _, s := range q.Symbols {
		if strings.Contains(l.text, s) {
			return true
		}
	}
	if q.Literal != "" && indexFoldCase(l.text, q.Literal) >= 0 {
		return true
	}
	if len(q.Tags) > 0 {
		var tags []string
		switch {
		case l.front && (l.key == "tags" || l.key == "tag"):
			tags = frontTags(l.text)
		case l.tagged:
			tags = markdown.InlineTags(l.text)
		}
		for _, t := range q.Tags {
			if hasTag(tags, t) {
				return true
			}
		}
	}
	if l.front {
		for _, p := range q.Props {
			if l.key == p.Name && l.hasProperty(p) {
				return true
			}
		}
	}
	return false
}

// hasProperty reports whether a frontmatter line of the property p shows
// what p asks: the property's own line for [name], a line holding the
// value (its own, or an item of its list) for [name:value].
func (l *textLine) hasProperty(p Property) bool {
	v, isKey := frontValue(l.text)
	if !p.HasValue {
		return isKey
	}
	if p.Value == "" {
		return isKey && (v == "" || v == "[]" || v == "null" || v == "~" || v == `""` || v == "''")
	}
	return v != "" && valueHas(strings.Trim(v, `[]"'`), p.Value)
}

// frontKey is the folded name of the property a frontmatter line
// belongs to: its own when it starts one ("name: ..."), else that of the
// line before (a list item or a continued value).
func frontKey(line, before string) string {
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#' {
		return before
	}
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		return ""
	}
	return Fold(strings.Trim(strings.TrimSpace(name), `"'`))
}

// frontValue is the value written on a frontmatter line, trimmed: after
// "name:" on the property's own line (isKey), after "- " on a list item.
func frontValue(line string) (v string, isKey bool) {
	t := strings.TrimSpace(line)
	if item, ok := strings.CutPrefix(t, "- "); ok || t == "-" {
		return strings.TrimSpace(item), false
	}
	if line != "" && line[0] != ' ' && line[0] != '\t' {
		if _, after, ok := strings.Cut(line, ":"); ok {
			return strings.TrimSpace(after), true
		}
	}
	return t, false
}

// frontTags are the tags a frontmatter line of tags lists: "tags: [a, b]",
// "tags: a b" or "  - a".
func frontTags(line string) []string {
	v, _ := frontValue(line)
	return strings.FieldsFunc(v, func(r rune) bool {
		return r == ',' || r == '[' || r == ']' || r == ' ' || r == '"' || r == '\'' || r == '#' || r == '\t'
	})
}

package search

import (
	"math"
	"path"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// termCounter gathers the terms of one note.
type termCounter struct {
	m     map[string]*termStat
	words uint32
}

func (c *termCounter) add(w []byte, body bool, fields uint8) *termStat {
	t, ok := c.m[string(w)]
	if !ok {
		t = &termStat{term: string(w)}
		c.m[t.term] = t
	}
	if body {
		t.tf++
	}
	t.fields |= fields
	return t
}

// text adds the words of s. Two CJK characters in a row also give a
// bigram term, so that a run of them is found without reading every note
// holding its characters. Each word marks its bit in the successor bits
// of the word before it.
func (c *termCounter) text(s string, body bool, fields uint8) {
	var prev [8]byte
	prevLen := 0
	var before *termStat
	Words(s, func(w []byte, _, _ int, cjk bool) {
		if body {
			c.words++
		}
		if before != nil {
			before.next |= nextBit(w)
		}
		before = c.add(w, body, fields)
		if !cjk {
			prevLen = 0
			return
		}
		if prevLen > 0 {
			var bi [16]byte
			n := copy(bi[:], prev[:prevLen])
			n += copy(bi[n:], w)
			c.add(bi[:n], body, fields)
		}
		prevLen = copy(prev[:], w)
	})
}

// Analyse turns the note at p, modified at mod (Unix nanoseconds) and
// size bytes long, into what the index stores.
func Analyse(p, content string, mod, size int64) *Analysed {
	fm, _ := markdown.ParseFrontmatter(content)
	heads := markdown.Headings(content)
	title := fm.Title
	if title == "" {
		for _, h := range heads {
			if h.Level == 1 && h.Text != "" {
				title = h.Text
				break
			}
		}
	}
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if title == "" {
		title = name
	}
	c := termCounter{m: make(map[string]*termStat, 256)}
	c.text(content, true, 0)
	c.text(title, false, fTitle)
	c.text(name, false, fName)
	c.text(strings.TrimSuffix(p, path.Ext(p)), false, fPath)
	for _, h := range heads {
		c.text(h.Text, false, fHeading)
	}
	tags := markdown.MergeTags(fm.Tags, markdown.InlineTags(content))
	for _, t := range tags {
		c.text(t, false, fTag)
	}
	for _, a := range fm.Aliases {
		c.text(a, false, fAlias)
	}
	titleToks := Tokens(Fold(title))
	a := &Analysed{
		// Put copies the title and the links' targets into the index's
		// text, so that no part of the note's text stays in memory.
		title: title,
		info: docInfo{path: p, mod: mod, size: size, words: c.words,
			titleWords: uint16(min(len(titleToks), math.MaxUint16)), key: keyOf(titleToks), order: orderOf(titleToks)}, // #nosec G115 -- capped just before
		terms:   make([]termStat, 0, len(c.m)+len(tags)),
		noteKey: markdown.NoteKey(p),
	}
	a.info.syms.add(content)
	a.info.syms.add(p)
	// Other names a note is known by, for exact matches: its aliases and
	// its file name when the title differs from it.
	for _, s := range append([]string{name}, fm.Aliases...) {
		if k := textKey(s); k != 0 && k != a.info.key && !slices.Contains(a.altKeys, k) {
			a.altKeys = append(a.altKeys, k)
		}
	}
	for _, t := range c.m {
		a.terms = append(a.terms, *t)
	}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimRight(Fold(t), "/")
		for t != "" {
			if !seen[t] {
				seen[t] = true
				a.terms = append(a.terms, termStat{term: tagPrefix + t})
			}
			i := strings.LastIndexByte(t, '/')
			if i < 0 {
				break
			}
			t = t[:i]
		}
	}
	for _, t := range propTerms(fm.Map) {
		if !seen[t] {
			seen[t] = true
			a.terms = append(a.terms, termStat{term: t})
		}
	}
	keys := map[string]bool{}
	for _, l := range markdown.Links(content) {
		if !l.IsNote() {
			continue
		}
		line := l.Line
		if line < 0 || line > math.MaxInt32 { // only a note of over 2^31 lines; 0 says "no line"
			line = 0
		}
		a.links = append(a.links, noteLink{target: l.Target, line: int32(line), md: l.Kind == "markdown"})
		for _, k := range markdown.LinkKeys(p, l) {
			if !keys[k] {
				keys[k] = true
				// A clone: a key already in lower case is a part of
				// the note's text, which the index would keep whole.
				a.linkKeys = append(a.linkKeys, strings.Clone(k))
			}
		}
	}
	return a
}

// propPrefix starts the index keys of frontmatter properties: "=name="
// for a property present, "=name=word" for each word of its value (of
// each item of a list). Tokens never contain '='.
const propPrefix = "="

// propTerms are the property keys of a note's frontmatter.
func propTerms(m map[string]any) []string {
	var out []string
	for k, v := range m {
		key := propPrefix + Fold(k) + propPrefix
		out = append(out, key)
		for _, t := range PropertyTokens(v) {
			out = append(out, key+t)
		}
	}
	return out
}

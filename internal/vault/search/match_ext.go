package search

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// matchExt matches one clause that uses more than words, phrases, tags and
// a folder: its words as match does, then its filters, exclusions and
// literal text against the note itself.
func matchExt(q Query, notePath, title, content string, scoring bool, lines int) (float64, string, []LineHit) {
	var score float64
	var snippet string
	if ip := indexPart(q); q.Literal != "" && len(ip.Terms)+len(ip.Phrases)+len(ip.Tags) == 0 {
		// Only a folder for match to decide, which scores 1: the snippet
		// is the literal text's, made below, and the start of the body
		// match would make is dropped, for every note a search reads.
		if inFolder(notePath, ip.Folder) {
			score = 1
		}
	} else {
		score, snippet, _ = match(ip, notePath, title, content, scoring, 0)
	}
	if score <= 0 || !pathFilters(notePath, q) {
		return 0, "", nil
	}
	if len(q.Props) > 0 || len(q.NotProps) > 0 || len(q.NotTags) > 0 {
		fm, _ := markdown.ParseFrontmatter(content)
		for _, p := range q.Props {
			if !hasProperty(fm.Map, p) {
				return 0, "", nil
			}
		}
		for _, p := range q.NotProps {
			if hasProperty(fm.Map, p) {
				return 0, "", nil
			}
		}
		if len(q.NotTags) > 0 {
			tags := append(slices.Clone(fm.Tags), markdown.InlineTags(content)...)
			for _, t := range q.NotTags {
				if hasTag(tags, t) {
					return 0, "", nil
				}
			}
		}
	}
	for _, t := range q.NotTerms {
		if s, _, _ := match(Query{Terms: []string{t}}, notePath, title, content, false, 0); s > 0 {
			return 0, "", nil
		}
	}
	for _, p := range q.NotPhrases {
		if s, _, _ := match(Query{Phrases: []string{p}}, notePath, title, content, false, 0); s > 0 {
			return 0, "", nil
		}
	}
	for _, s := range q.Symbols {
		if !strings.Contains(content, s) && !strings.Contains(notePath, s) {
			return 0, "", nil
		}
	}
	var found []LineHit
	if len(q.Lines) > 0 {
		// One reading of the lines decides the filters, gives the
		// snippet and names the lines the hit shows.
		hits, ok := MatchLines(q, content, max(lines, 1))
		if !ok {
			return 0, "", nil
		}
		if len(hits) > 0 {
			snippet = hits[0].Text
		}
		if lines > 0 {
			found = hits
		}
	}
	if q.Literal != "" {
		at := indexFoldCase(content, q.Literal)
		if at < 0 {
			return 0, "", nil
		}
		_, bodyStart, _ := markdown.Split(content)
		snippet = makeSnippet(content, bodyStart, max(at, bodyStart))
	}
	return score, snippet, found
}

// pathFilters applies path: and file:.
// The path and the name are folded on the stack: the index applies the
// filters to every candidate, which Fold made a string for each.
func pathFilters(p string, q Query) bool {
	var room [256]byte
	if len(q.Paths) > 0 {
		fp := appendFolded(room[:0], p)
		for _, v := range q.Paths {
			if !bytes.Contains(fp, []byte(v)) {
				return false
			}
		}
	}
	name := appendFolded(room[:0], path.Base(p))
	for _, v := range q.Files {
		if !bytes.Contains(name, []byte(v)) {
			return false
		}
	}
	return true
}

// indexPart is the part of one clause that the index decides: its words,
// phrases, tags and folder, which match weighs.
func indexPart(q Query) Query {
	return Query{Terms: q.Terms, Phrases: q.Phrases, Tags: q.Tags, Folder: q.Folder, PrefixLast: q.PrefixLast}
}

// indexFoldCase is the offset of the first occurrence of sub in s ignoring
// case, or -1.
func indexFoldCase(s, sub string) int {
	if i := strings.Index(s, sub); i >= 0 || strings.ToLower(sub) == strings.ToUpper(sub) {
		return i // found, or sub has no letters that case could change
	}
	ls, lsub := strings.ToLower(s), strings.ToLower(sub)
	i := strings.Index(ls, lsub)
	if i > len(s) {
		i = len(s) // lower case changed lengths; only the snippet shifts
	}
	return i
}

// hasProperty reports whether the frontmatter has the property p: present
// at all, or with a value holding p.Value (any item of a list does;
// "[name:]" asks for an empty value).
func hasProperty(m map[string]any, p Property) bool {
	for k, v := range m {
		if Fold(k) != p.Name {
			continue
		}
		if !p.HasValue {
			return true
		}
		if valueHas(v, p.Value) {
			return true
		}
	}
	return false
}

func valueHas(v any, want string) bool {
	switch x := v.(type) {
	case nil:
		return want == ""
	case []any:
		if len(x) == 0 {
			return want == ""
		}
		for _, e := range x {
			if valueHas(e, want) {
				return true
			}
		}
		return false
	case map[string]any:
		return false
	}
	s := Fold(strings.TrimSpace(fmt.Sprint(v)))
	if want == "" {
		return s == ""
	}
	// Words from the start of one, so that the index can narrow the notes
	// down: [status:act] finds "active", [related:plan] finds "[[Plan]]",
	// [status:tive] finds nothing.
	wt := Tokens(want)
	if len(wt) == 0 {
		return strings.Contains(s, want)
	}
	return strings.Contains(string(field(s)), " "+strings.Join(wt, " "))
}

// PropertyTokens are the words of a property value as hasProperty matches
// them: of a scalar, or of each item of a list.
func PropertyTokens(v any) []string {
	switch x := v.(type) {
	case nil, map[string]any:
		return nil
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, PropertyTokens(e)...)
		}
		return out
	}
	return Tokens(Fold(strings.TrimSpace(fmt.Sprint(v))))
}

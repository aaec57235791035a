package markdown

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryItems caps the terms plus phrases (and, separately, the tags) of
// one query so that a pasted paragraph cannot make matching slow.
const maxQueryItems = 32

// Query is a parsed search query. Terms, phrases and tags are folded.
type Query struct {
	Terms      []string // words that must all appear
	Phrases    []string // folded tokens joined by single spaces; each must appear
	Tags       []string // without '#'; a note must carry each (or a nested tag below it)
	Folder     string   // vault-relative folder without slashes at the ends; "" for all
	PrefixLast bool     // the last term may match the start of a word (search as you type)
}

// ParseQuery parses a search box query: words, "quoted phrases" (an
// unterminated quote runs to the end), tag:x or #x filters, folder:path or
// a word ending in '/' as the folder filter (the last one wins). A word
// that splits into several tokens, such as a run of CJK characters or
// "state-of-the-art", becomes a phrase. At most 32 terms and phrases and 32
// tags are kept. PrefixLast is set when the query ends in a plain word
// without a trailing space.
func ParseQuery(q string) Query {
	var out Query
	lastTerm := false
	items := func() int { return len(out.Terms) + len(out.Phrases) }
	addText := func(text string, phrase bool) {
		toks := Tokens(Fold(text))
		switch {
		case len(toks) == 0 || items() >= maxQueryItems:
			lastTerm = false
		case len(toks) == 1:
			t := toks[0]
			out.Terms = slices.DeleteFunc(out.Terms, func(s string) bool { return s == t })
			out.Terms = append(out.Terms, t)
			lastTerm = !phrase
		default:
			p := strings.Join(toks, " ")
			if !slices.Contains(out.Phrases, p) {
				out.Phrases = append(out.Phrases, p)
			}
			lastTerm = false
		}
	}
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		if r == '"' {
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				addText(q[i+1:], true)
				i = len(q)
			} else {
				addText(q[i+1:i+1+end], true)
				i += end + 2
			}
			continue
		}
		j := i
		for j < len(q) {
			r, size := utf8.DecodeRuneInString(q[j:])
			if unicode.IsSpace(r) || r == '"' {
				break
			}
			j += size
		}
		word := q[i:j]
		i = j
		lower := strings.ToLower(word)
		switch {
		case strings.HasPrefix(lower, "tag:"):
			out.addTag(word[4:])
			lastTerm = false
		case len(word) > 1 && word[0] == '#':
			out.addTag(word[1:])
			lastTerm = false
		case strings.HasPrefix(lower, "folder:"):
			out.Folder = cleanFolder(word[7:])
			lastTerm = false
		case strings.HasSuffix(word, "/") && strings.Trim(word, "/") != "":
			out.Folder = cleanFolder(word)
			lastTerm = false
		default:
			addText(word, false)
		}
	}
	if len(q) > 0 {
		r, _ := utf8.DecodeLastRuneInString(q)
		out.PrefixLast = lastTerm && !unicode.IsSpace(r) && r != '"'
	}
	return out
}

func (q *Query) addTag(t string) {
	t = strings.TrimRight(Fold(strings.TrimLeft(t, "#")), "/")
	if t != "" && len(q.Tags) < maxQueryItems && !slices.Contains(q.Tags, t) {
		q.Tags = append(q.Tags, t)
	}
}

func cleanFolder(f string) string {
	f = strings.Trim(f, "/")
	if f == "" {
		return ""
	}
	f = path.Clean(f)
	if f == "." {
		return ""
	}
	return f
}

// inFolder reports whether notePath lies under folder (case-insensitively).
func inFolder(notePath, folder string) bool {
	if folder == "" {
		return true
	}
	return len(notePath) > len(folder) && notePath[len(folder)] == '/' &&
		strings.EqualFold(notePath[:len(folder)], folder)
}

// hasTag reports whether one of tags is t or nested below it ("a" matches
// "a/b"), ignoring case and accents.
func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		x = Fold(x)
		if x == t || strings.HasPrefix(x, t) && x[len(t)] == '/' {
			return true
		}
	}
	return false
}

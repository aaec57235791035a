package search

import (
	"strings"
)

// maxQueryItems caps the terms plus phrases (and, separately, the tags, the
// excluded items, the filters and the alternatives) of one query so that a
// pasted paragraph cannot make matching slow.
const maxQueryItems = 32

// Query is a parsed search query: one clause, or (Or set) alternatives of
// which a note must match one. Terms, phrases, tags and the filter values
// are folded.
type Query struct {
	Terms      []string // words that must all appear
	Phrases    []string // folded tokens joined by single spaces; each must appear
	Tags       []string // without '#'; a note must carry each (or a nested tag below it)
	Folder     string   // vault-relative folder without slashes at the ends; "" for all
	PrefixLast bool     // the last term may match the start of a word (search as you type)

	NotTerms   []string   // -word: none may appear
	NotPhrases []string   // -"a phrase"
	NotTags    []string   // -tag:x, -#x
	Paths      []string   // path:x, each found in the note's path
	Files      []string   // file:x, each found in the note's file name
	Props      []Property // [name] and [name:value]
	NotProps   []Property // -[name], -[name:value]: none may match
	// Literal is a query without words ("- [ ]", "🚀"), found as written,
	// ignoring case.
	Literal string
	// Lines are line:, task:, task-todo: and task-done: filters: each
	// needs one line of the note holding its words. Their words are in
	// Terms and Phrases too, for the index to find candidates.
	Lines []LineFilter
	// Symbols are emoji and other symbols written beside words or filters
	// ("🚀 launch", "folder:Projects ✅"): each must appear as written.
	Symbols []string

	// Or holds the alternatives of a query with OR; the fields above are
	// then empty.
	Or []Query
	// propAlts holds, by index in Props, a property's alternative values
	// ([status:a OR b]) while a clause is parsed; ParseQuery turns them
	// into alternatives of the query.
	propAlts map[int][]string
	// Unsupported names Obsidian syntax that this search does not have
	// (line:, regular expressions, parentheses...): the query must be
	// refused with it rather than run as something else.
	Unsupported string
	// NoValue names an operator written without its value ("tag:" alone):
	// the query must be refused with it rather than run without the filter.
	NoValue string
	// TooMany is set when the query has more alternatives than a search
	// takes (maxQueryItems): those beyond were left out, so the query must
	// be refused rather than answered without the notes they would find.
	TooMany bool
}

// Property is a frontmatter filter: the property Name is present (Value
// "" and Any false) or has a value holding Value.
type Property struct {
	Name  string // folded
	Value string // folded; "" with HasValue means an empty value
	// HasValue is set for [name:value].
	HasValue bool
}

// Extended reports a query that uses more than words, phrases, tags and a
// folder: matching it needs the note itself, not only its terms.
func (q *Query) Extended() bool {
	return len(q.Or) > 0 || len(q.NotTerms)+len(q.NotPhrases)+len(q.NotTags)+len(q.Paths)+len(q.Files)+len(q.Props)+len(q.NotProps)+len(q.Symbols)+len(q.Lines) > 0 ||
		q.Literal != ""
}

// Empty reports a query that selects nothing by itself.
func (q *Query) Empty() bool {
	return !q.Extended() && len(q.Terms)+len(q.Phrases)+len(q.Tags) == 0 && q.Folder == ""
}

// Restrict adds a tag every result must carry and sets the folder, in
// every alternative.
func (q *Query) Restrict(folder, tag string) {
	if len(q.Or) > 0 {
		for i := range q.Or {
			q.Or[i].Restrict(folder, tag)
		}
		return
	}
	if tag != "" {
		q.addTag(tag)
	}
	if folder != "" {
		q.Folder = folder
	}
}

// Folders lists the folder filters of the query and its alternatives.
func (q *Query) Folders() []string {
	if len(q.Or) == 0 {
		return []string{q.Folder}
	}
	var out []string
	for i := range q.Or {
		out = append(out, q.Or[i].Folder)
	}
	return out
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

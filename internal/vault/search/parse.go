package search

import (
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsupportedOps are Obsidian search operators this search lacks.
var unsupportedOps = []string{"block:", "section:", "match-case:", "ignore-case:"}

// ParseQuery parses a search box query in the subset of Obsidian's syntax
// that cortex has: words (all must appear), "quoted phrases" (an
// unterminated quote runs to the end), OR between alternatives (binding
// less tightly than the implicit AND), -word and -"phrase" to exclude,
// tag:x or #x (and -tag:x), path:x and file:x (found in the path or the
// file name), folder:path or a word ending in '/' as the folder filter
// (the last one wins), [property] and [property:value] for frontmatter
// properties, content:x as plain text. A word that splits into several
// tokens, such as a run of CJK characters or "state-of-the-art", becomes a
// phrase. A query (or alternative) with none of these, such as "- [ ]" or
// an emoji, is a Literal; beside them, a task box ("- [ ]") is kept as the
// Literal and an emoji (any symbol) in Symbols, while other text without
// words (punctuation) is dropped. Operators Obsidian has and this search does not
// (line:, section:, task:, regular expressions, parentheses) set
// Unsupported. At most 32 of each kind of item are kept. PrefixLast is set
// when the query ends in a plain word without a trailing space.
func ParseQuery(q string) Query {
	groups := splitOr(q)
	if len(groups) == 1 {
		if c := parseClause(groups[0]); c.propAlts == nil {
			return c
		}
	}
	var out Query
	for _, g := range groups {
		c := parseClause(g)
		if c.Unsupported != "" {
			out.Unsupported = c.Unsupported
		}
		if c.NoValue != "" {
			out.NoValue = c.NoValue
		}
		c.Unsupported, c.NoValue = "", ""
		xs, all := c.expandProps()
		out.TooMany = out.TooMany || !all
		for _, x := range xs {
			if x.Empty() {
				continue
			}
			if len(out.Or) == maxQueryItems {
				out.TooMany = true
				break
			}
			out.Or = append(out.Or, x)
		}
	}
	if len(out.Or) == 0 && out.Unsupported == "" && out.NoValue == "" {
		return parseClause(q) // "OR" alone is a word
	}
	if len(out.Or) == 1 {
		c := out.Or[0]
		c.Unsupported, c.NoValue, c.TooMany = out.Unsupported, out.NoValue, out.TooMany
		return c
	}
	if strings.ContainsAny(q, "()") && out.Unsupported == "" {
		out.Unsupported = "parentheses"
	}
	return out
}

// splitOr cuts q at each standalone OR outside quotes and brackets.
func splitOr(q string) []string {
	var out []string
	start, quote, bracket := 0, false, 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '"':
			quote = !quote
		case quote:
		case c == '[':
			bracket++
		case c == ']' && bracket > 0:
			bracket--
		case bracket == 0 && c == 'O' && strings.HasPrefix(q[i:], "OR") &&
			(i == 0 || isSpaceByte(q[i-1])) && (i+2 == len(q) || isSpaceByte(q[i+2])):
			out = append(out, q[start:i])
			start = i + 2
			i++
		}
	}
	return append(out, q[start:])
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseClause parses one alternative.
func parseClause(q string) Query {
	if isTaskMarker(strings.TrimSpace(q)) {
		// "- [x]" is a done task to look for, not the property x.
		return Query{Literal: strings.TrimSpace(q)}
	}
	// Beside words or filters ("- [ ] folder:Daily"), a task box is looked
	// for as written too, rather than read as "-" and an empty property.
	whole := strings.TrimSpace(q)
	task, q := cutTaskMarker(q)
	for more := task; more != ""; {
		more, q = cutTaskMarker(q) // the first box is looked for; others are not read as properties
	}
	var out Query
	var symbols []string // kept unless the query turns out to be a Literal
	lastTerm := false
	items := func() int { return len(out.Terms) + len(out.Phrases) }
	addText := func(text string, phrase bool) {
		toks := Tokens(Fold(text))
		switch {
		case len(toks) == 0 && hasSymbol(text) && len(symbols) < maxQueryItems:
			symbols = appendNew(symbols, strings.TrimSpace(text))
			lastTerm = false
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
	addNot := func(text string) {
		toks := Tokens(Fold(text))
		switch {
		case len(toks) == 0 || len(out.NotTerms)+len(out.NotPhrases) >= maxQueryItems:
		case len(toks) == 1:
			out.NotTerms = appendNew(out.NotTerms, toks[0])
		default:
			out.NotPhrases = appendNew(out.NotPhrases, strings.Join(toks, " "))
		}
	}
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		neg := false
		if r == '-' && i+1 < len(q) && !isSpaceByte(q[i+1]) && q[i+1] != '-' {
			neg = true
			i++
			r, _ = utf8.DecodeRuneInString(q[i:])
		}
		if r == '"' {
			text, next := quoted(q, i)
			i = next
			if neg {
				addNot(text)
				lastTerm = false
			} else {
				addText(text, true)
			}
			continue
		}
		if r == '[' {
			if end := strings.IndexByte(q[i:], ']'); end > 0 {
				if neg {
					out.addNotProp(q[i+1 : i+end])
				} else {
					out.addProp(q[i+1 : i+end])
				}
				i += end + 1
				lastTerm = false
				continue
			}
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
		// An operator's value may be quoted: path:"Daily notes".
		value := func(prefix int) string {
			v := word[prefix:]
			if v == "" && i < len(q) && q[i] == '"' {
				v, i = quoted(q, i)
			}
			if strings.Trim(v, "#/") == "" {
				out.NoValue = lower[:prefix]
			}
			return v
		}
		lastTerm = false
		switch {
		case strings.HasPrefix(lower, "tag:") || len(word) > 1 && word[0] == '#':
			t := word[1:]
			if word[0] != '#' {
				t = value(4)
			}
			if neg {
				t = strings.TrimRight(Fold(strings.TrimLeft(t, "#")), "/")
				if t != "" && len(out.NotTags) < maxQueryItems {
					out.NotTags = appendNew(out.NotTags, t)
				}
			} else {
				out.addTag(t)
			}
		case neg && (hasOp(lower) || strings.HasPrefix(lower, "path:") || strings.HasPrefix(lower, "file:") ||
			strings.HasPrefix(lower, "folder:") || strings.HasPrefix(lower, "content:")):
			out.Unsupported = "excluding " + lower[:strings.IndexByte(lower, ':')+1] + " filters"
		case neg:
			addNot(word)
		case strings.HasPrefix(lower, "folder:"):
			out.Folder = cleanFolder(value(7))
		case strings.HasPrefix(lower, "path:"):
			if v := Fold(strings.Trim(value(5), "/")); v != "" && len(out.Paths) < maxQueryItems {
				out.Paths = appendNew(out.Paths, v)
			}
		case strings.HasPrefix(lower, "file:"):
			if v := Fold(value(5)); v != "" && len(out.Files) < maxQueryItems {
				out.Files = appendNew(out.Files, v)
			}
		case strings.HasPrefix(lower, "content:"):
			addText(value(8), true)
		case lineOp(lower) >= 0:
			op := lineOps[lineOp(lower)]
			var f LineFilter
			f, i = parseLineValue(q, i-len(word)+len(op.op), op.kind)
			switch {
			case len(f.Terms)+len(f.Phrases) == 0:
				out.NoValue = op.op
			case len(out.Lines) < maxQueryItems:
				out.Lines = append(out.Lines, f)
				for _, t := range f.Terms {
					addText(t, true)
				}
				for _, p := range f.Phrases {
					addText(p, true)
				}
			}
		case hasOp(lower):
			out.Unsupported = lower[:strings.IndexByte(lower, ':')+1]
		case len(word) > 2 && word[0] == '/' && word[len(word)-1] == '/':
			out.Unsupported = "regular expressions"
		case strings.HasSuffix(word, "/") && strings.Trim(word, "/") != "":
			out.Folder = cleanFolder(word)
		default:
			addText(word, false)
		}
	}
	if len(q) > 0 {
		r, _ := utf8.DecodeLastRuneInString(q)
		out.PrefixLast = lastTerm && !unicode.IsSpace(r) && r != '"'
	}
	switch {
	case out.Empty():
		if whole != "" && out.Unsupported == "" && out.NoValue == "" {
			out = Query{Literal: whole}
		}
	default:
		out.Symbols = symbols
		out.Literal = task
	}
	return out
}

// lineOp is the index in lineOps of the line operator word starts with,
// or -1.
func lineOp(lower string) int {
	for i, o := range lineOps {
		if strings.HasPrefix(lower, o.op) {
			return i
		}
	}
	return -1
}

// parseLineValue reads a line operator's value at q[at:]: a word, a
// "quoted phrase" or a group of them in parentheses, line:(a "b c").
// It returns the filter and where the query goes on.
func parseLineValue(q string, at int, kind LineKind) (LineFilter, int) {
	f := LineFilter{Kind: kind}
	var text string
	end := at
	switch {
	case at < len(q) && q[at] == '(':
		close := strings.IndexByte(q[at:], ')')
		if close < 0 {
			close = len(q) - at
			end = len(q)
		} else {
			end = at + close + 1
		}
		text = q[at+1 : at+close]
	case at < len(q) && q[at] == '"':
		var next int
		text, next = quoted(q, at)
		end = next
		text = "\"" + text + "\""
	default:
		for end < len(q) && !isSpaceByte(q[end]) {
			end++
		}
		text = q[at:end]
	}
	for rest := text; rest != ""; {
		rest = strings.TrimLeft(rest, " \t\r\n")
		if rest == "" {
			break
		}
		var item string
		phrase := false
		if rest[0] == '"' {
			var next int
			item, next = quoted(rest, 0)
			rest, phrase = rest[next:], true
		} else {
			j := strings.IndexAny(rest, " \t\r\n")
			if j < 0 {
				j = len(rest)
			}
			item, rest = rest[:j], rest[j:]
		}
		toks := Tokens(Fold(item))
		switch {
		case len(toks) == 0:
		case len(toks) == 1 && !phrase:
			f.Terms = appendNew(f.Terms, toks[0])
		default:
			f.Phrases = appendNew(f.Phrases, strings.Join(toks, " "))
		}
	}
	return f, end
}

// cutTaskMarker finds the first task box standing as words of q ("- [ ]"
// between spaces) and returns it and q without it.
func cutTaskMarker(q string) (string, string) {
	for i := 0; i+5 <= len(q); i++ {
		if i > 0 && !isSpaceByte(q[i-1]) {
			continue
		}
		_, size := utf8.DecodeRuneInString(q[min(i+3, len(q)):])
		end := i + 3 + size + 1
		if end > len(q) || !isTaskMarker(q[i:end]) || end < len(q) && !isSpaceByte(q[end]) {
			continue
		}
		return q[i:end], q[:i] + " " + q[end:]
	}
	return "", q
}

// hasSymbol reports text holding an emoji or another symbol (Unicode So),
// which a search must not drop the way it drops punctuation.
func hasSymbol(text string) bool {
	for _, r := range text {
		if unicode.Is(unicode.So, r) {
			return true
		}
	}
	return false
}

// isTaskMarker reports a Markdown task box as written in a list: "- [ ]",
// "- [x]", "* [/]".
func isTaskMarker(s string) bool {
	if len(s) < 5 || (s[0] != '-' && s[0] != '*' && s[0] != '+') || s[1] != ' ' || s[2] != '[' {
		return false
	}
	_, size := utf8.DecodeRuneInString(s[3:])
	return s[3+size:] == "]"
}

// quoted returns the text of the quote opening at q[i] and the index after
// it; an unterminated quote runs to the end.
func quoted(q string, i int) (string, int) {
	end := strings.IndexByte(q[i+1:], '"')
	if end < 0 {
		return q[i+1:], len(q)
	}
	return q[i+1 : i+1+end], i + end + 2
}

// hasOp reports a word starting with an Obsidian operator this search
// does not have.
func hasOp(lower string) bool {
	for _, op := range unsupportedOps {
		if strings.HasPrefix(lower, op) {
			return true
		}
	}
	return false
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// addProp adds [name] or [name:value]; an empty name ("[ ]") adds nothing.
func (q *Query) addProp(inner string) {
	name, alts, hasValue := parseProp(inner)
	if name == "" || len(q.Props) >= maxQueryItems {
		return
	}
	if len(alts) > 1 {
		if q.propAlts == nil {
			q.propAlts = map[int][]string{}
		}
		q.propAlts[len(q.Props)] = alts
	}
	q.Props = append(q.Props, Property{Name: name, Value: alts[0], HasValue: hasValue})
}

// addNotProp adds -[name:a OR b]: neither value may be there.
func (q *Query) addNotProp(inner string) {
	name, alts, hasValue := parseProp(inner)
	for _, v := range alts {
		if name != "" && len(q.NotProps) < maxQueryItems {
			q.NotProps = append(q.NotProps, Property{Name: name, Value: v, HasValue: hasValue})
		}
	}
}

// parseProp reads the inside of [name], [name:value] or [name:a OR "b c"]:
// the folded name and the folded values, at least one.
func parseProp(inner string) (name string, alts []string, hasValue bool) {
	name, value, hasValue := strings.Cut(inner, ":")
	for _, v := range splitOr(value) {
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if v = Fold(v); v != "" || len(alts) == 0 {
			alts = append(alts, v)
		}
	}
	if len(alts) > 1 && alts[0] == "" {
		alts = alts[1:]
	}
	return Fold(strings.TrimSpace(name)), alts, hasValue
}

// expandProps turns a clause whose properties have alternative values
// into one clause per combination, at most maxQueryItems of them; all is
// false when there were more.
func (q Query) expandProps() (out []Query, all bool) {
	out, all = []Query{q}, true
	for _, i := range slices.Sorted(maps.Keys(q.propAlts)) {
		alts := q.propAlts[i]
		var next []Query
		for _, c := range out {
			for _, v := range alts {
				if len(next) == maxQueryItems {
					all = false
					break
				}
				c.Props = slices.Clone(c.Props)
				c.Props[i].Value = v
				next = append(next, c)
			}
		}
		out = next
	}
	for i := range out {
		out[i].propAlts = nil
	}
	return out, all
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

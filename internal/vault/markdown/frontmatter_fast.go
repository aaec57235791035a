package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Most frontmatter is a few lines of `key: value`: a title in quotes, tags
// as [a, b] or as a list below the key, a date, a word or a number. Reading
// a note the YAML parser takes about 20 µs and 14 KB of garbage for such a
// block, more than reading the file, and a model reading across the vault
// meets a different note each time, so no cache helps. fastMapping reads
// that common shape directly and declines everything else (comments,
// escapes, anchors, nested maps, multi-line values, any number but a plain
// decimal integer, any date but the two plain forms), which the YAML
// parser then reads as before. Where it accepts a block, its map is the
// one parseYAML and decodeMapping give; FuzzFastFrontmatter holds it to
// that.

// maxFastKeys is the most keys fastMapping reads; a larger block goes to
// the YAML parser, which applies the limits.
const maxFastKeys = 100

// fastMapping decodes text, the frontmatter between the --- lines, when it
// is made only of the plain forms above; ok is false otherwise.
func fastMapping(text string) (m map[string]any, ok bool) {
	if len(text) > MaxFrontmatterBytes || !utf8.ValidString(text) || strings.ContainsAny(text, "\t\r") {
		return nil, false
	}
	// The values are slices of one copy of the block, not of the note:
	// a map kept (the parsed-note cache keeps a thousand) must not keep a
	// whole note alive, nor point into a buffer a search reuses, as the
	// YAML parser's fresh strings never did.
	text = strings.Clone(text)
	m = make(map[string]any, 4)
	var (
		listKey    string // the key whose value is a block list being read
		list       []any
		listIndent = -1 // the indentation of its items, -1 before the first
	)
	endList := func() {
		if listKey != "" && list != nil {
			m[listKey] = list
		}
		listKey, list, listIndent = "", nil, -1
	}
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '-' {
			// An item of the list under the last key, all at one
			// indentation, one plain or quoted value each.
			indent := len(line) - len(strings.TrimLeft(line, " "))
			item, isItem := strings.CutPrefix(line[indent:], "- ")
			if listKey == "" || !isItem || (listIndent >= 0 && indent != listIndent) {
				return nil, false
			}
			listIndent = indent
			v, ok := fastScalar(strings.Trim(item, " "), false)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			continue
		}
		endList()
		key, rest, found := strings.Cut(line, ":")
		if !found || !plainKey(key) {
			return nil, false
		}
		if _, dup := m[key]; dup || len(m) >= maxFastKeys {
			return nil, false
		}
		if rest != "" && rest[0] != ' ' {
			return nil, false
		}
		value := strings.Trim(rest, " ")
		if value == "" {
			// Null, unless a block list follows.
			m[key] = nil
			listKey = key
			continue
		}
		v, ok := fastValue(value)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	endList()
	if len(m) == 0 {
		return nil, false
	}
	return m, true
}

// plainKey reports whether key is a key fastMapping reads: a letter or _,
// then letters, digits, _ and -, at most maxPlainKey of them, and not a
// word YAML reads as a boolean or null (true, Null…).
func plainKey(key string) bool {
	if key == "" || len(key) > maxPlainKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	_, special := yamlWords[key]
	return !special
}

// maxPlainKey is the longest key YAML reads without a `? ` before it:
// the parser refuses a longer one as a missing ':'.
const maxPlainKey = 1024

// yamlWords are the plain words YAML reads as a boolean or null.
var yamlWords = map[string]any{
	"true": true, "True": true, "TRUE": true,
	"false": false, "False": false, "FALSE": false,
	"null": nil, "Null": nil, "NULL": nil, "~": nil,
}

// fastValue reads the value after `key: `: a flow list [a, b] or a scalar.
func fastValue(value string) (any, bool) {
	inner, isList := strings.CutPrefix(value, "[")
	if !isList {
		return fastScalar(value, false)
	}
	inner, isList = strings.CutSuffix(inner, "]")
	if !isList {
		return nil, false
	}
	list := []any{}
	if strings.Trim(inner, " ") == "" {
		return list, true
	}
	for item := range strings.SplitSeq(inner, ",") {
		v, ok := fastScalar(strings.Trim(item, " "), true)
		if !ok {
			return nil, false
		}
		list = append(list, v)
	}
	return list, true
}

// fastScalar reads one scalar: quoted without escapes or line breaks, a
// boolean or null word, a decimal integer, a date (2006-01-02) or a date
// and time without a zone (2006-01-02T15:04:05), both kept as written, or
// plain text that starts with a letter and holds only letters, digits,
// spaces and - _ / . ' ( ). In a flow list (inFlow) quoted text may not
// hold a comma, which would have split it.
func fastScalar(s string, inFlow bool) (any, bool) {
	if s == "" {
		return nil, false
	}
	switch q := s[0]; q {
	case '"', '\'':
		if len(s) < 2 || s[len(s)-1] != q {
			return nil, false
		}
		inner := s[1 : len(s)-1]
		if strings.ContainsAny(inner, `"'\`) || inFlow && strings.Contains(inner, ",") || !printable(inner) {
			return nil, false
		}
		return inner, true
	}
	if v, ok := yamlWords[s]; ok {
		return v, true
	}
	if decimalInt(s) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	if plainDate(s) {
		return s, true
	}
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) || s[len(s)-1] == ' ' {
		return nil, false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), r >= '0' && r <= '9':
		case r == ' ' || r == '-' || r == '_' || r == '/' || r == '.' || r == '\'' || r == '(' || r == ')':
		default:
			return nil, false
		}
	}
	return s, true
}

// decimalInt reports whether s is an integer YAML reads as decimal: an
// optional minus, then 0 or up to 18 digits without a leading zero (which
// YAML would read as octal).
func decimalInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 18 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainDate reports whether s is 2006-01-02 or 2006-01-02T15:04:05 in
// form, digits where the layout has them, years from 1000: YAML gives the
// first back as written (a valid date is decoded and printed the same; an
// invalid one stays text) and the second as text (no zone, so not a
// timestamp to YAML).
func plainDate(s string) bool {
	const date, dateTime = "dddd-dd-dd", "dddd-dd-ddTdd:dd:dd"
	if len(s) != len(date) && len(s) != len(dateTime) || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if l := dateTime[i]; l == 'd' && (s[i] < '0' || s[i] > '9') || l != 'd' && s[i] != l {
			return false
		}
	}
	return true
}

// printable reports whether quoted text holds only characters YAML allows
// in it: no control characters (C0, DEL, C1), no byte order mark and
// nothing past U+FFFD in the BMP.
func printable(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x20, r >= 0x7f && r < 0xa0, r == 0xfeff, r >= 0xfffe && r <= 0xffff:
			return false
		}
	}
	return true
}

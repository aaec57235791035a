package markdown

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// InlineTags returns the #tags written in the body, without '#', in order,
// deduplicated case-insensitively (the first spelling wins). A tag starts
// with '#' at the start of a line or after white space and runs over
// letters, digits, marks, '_', '-' and '/'; it must contain something other
// than digits ("#2024" is not a tag). Tags in fenced code, inline code, the
// frontmatter, a heading's leading '#'s and URLs ("http://x#y") are ignored.
func InlineTags(content string) []string {
	var out []string
	var seen map[string]bool
	forBodyLines(content, func(l line) bool {
		s := content[l.start:l.end]
		if strings.IndexByte(s, '#') < 0 {
			return true
		}
		i := 0
		if _, _, ok := parseHeading(s); ok {
			i = strings.IndexByte(s, '#')
			for i < len(s) && s[i] == '#' {
				i++
			}
		}
		var cs codeSpans
		for i < len(s) {
			switch c := s[i]; {
			case c == '`':
				i = cs.skip(s, i)
				continue
			case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
				tag, n := readTag(s[i+1:])
				i += 1 + n
				if tag == "" {
					continue
				}
				k := strings.ToLower(tag)
				if seen == nil {
					seen = map[string]bool{}
				}
				if !seen[k] {
					seen[k] = true
					out = append(out, tag)
				}
				continue
			}
			i++
		}
		return true
	})
	return out
}

// readTag reads tag characters from the start of s. It returns the tag
// (trailing '/' removed, "" when not a tag) and the bytes consumed.
func readTag(s string) (string, int) {
	n, digitsOnly := 0, true
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		switch {
		case r == '_' || r == '-' || r == '/':
			digitsOnly = false
		case '0' <= r && r <= '9':
		case r >= utf8.RuneSelf && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)),
			'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			digitsOnly = false
		default:
			goto done
		}
		n += size
	}
done:
	tag := strings.TrimRight(s[:n], "/")
	if digitsOnly || tag == "" {
		return "", n
	}
	return tag, n
}

// Title returns the note's title: the frontmatter "title", else the text
// of the first level-1 heading, else the file name of path without ".md".
func Title(content, notePath string) string {
	if fm, err := ParseFrontmatter(content); err == nil && fm.Title != "" {
		return fm.Title
	}
	return BodyTitle(content, notePath)
}

// BodyTitle is Title for a caller that has parsed the frontmatter already
// and found no title there: the first level-1 heading, else the file name.
// It stops at that heading rather than listing every heading of the note.
func BodyTitle(content, notePath string) string {
	title := ""
	forBodyLines(content, func(l line) bool {
		if level, text, ok := parseHeading(content[l.start:l.end]); ok && level == 1 && text != "" {
			title = text
			return false
		}
		return true
	})
	if title != "" {
		return title
	}
	return TrimMD(path.Base(notePath))
}

// MergeTags joins frontmatter and inline tags, dropping repeats that
// differ only in case (the first spelling wins).
func MergeTags(fm, inline []string) []string {
	if len(inline) == 0 {
		return fm
	}
	return dedupeFold(append(slices.Clone(fm), inline...))
}

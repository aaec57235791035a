package render

import "strings"

// NoteURL is the console's page of the note (or name) p, each path segment
// escaped, as the tools hand it out.
func NoteURL(p string) string { return SiteNoteURL("", p) }

// SiteNoteURL is site followed by NoteURL(p), made in one allocation of
// its exact size: search hands out one for each result. Each segment is
// escaped as url.PathEscape escapes it.
func SiteNoteURL(site, p string) string {
	n := len(site) + len("/notes/") + len(p)
	for i := 0; i < len(p); i++ {
		if c := p[i]; c != '/' && escapeInSegment(c) {
			n += 2
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(site)
	b.WriteString("/notes/")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '/' || !escapeInSegment(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

// escapeInSegment reports whether url.PathEscape escapes c (RFC 3986's
// unreserved characters and the reserved ones a segment may hold stay).
func escapeInSegment(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return false
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ':', '=', '@':
		return false
	}
	return true
}

package markdown

import (
	"unicode"
	"unicode/utf8"
)

// isCJK reports runes that are searched one by one because their scripts
// do not separate words with spaces.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isWordRune reports letters, digits and marks (marks keep words such as
// Devanagari ones whole).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// Tokens splits folded text (see Fold; Tokens does not fold) into words:
// runs of letters, digits and marks. Each Han, Hiragana, Katakana or Hangul
// character is a token of its own so that runs of them can be matched as
// phrases. The tokens are substrings of s.
func Tokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		switch {
		case isCJK(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, s[i:i+utf8.RuneLen(r)])
		case isWordRune(r) && r != utf8.RuneError:
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// scanWords walks the words of unfolded text, folding each into a reused
// buffer, and calls fn with the folded word and its byte range in s. It
// splits exactly like Tokens(Fold(s)).
func scanWords(s string, fn func(word []byte, start, end int)) {
	var buf []byte
	start := -1
	flush := func(end int) {
		if start >= 0 && len(buf) > 0 {
			fn(buf, start, end)
		}
		buf = buf[:0]
		start = -1
	}
	for i, r := range s {
		switch {
		case isCJK(r):
			flush(i)
			n := utf8.RuneLen(r)
			buf = utf8.AppendRune(buf[:0], r)
			fn(buf, i, i+n)
			buf = buf[:0]
		case isWordRune(r) && r != utf8.RuneError:
			if start < 0 {
				start = i
			}
			buf = appendFold(buf, r)
		default:
			flush(i)
		}
	}
	flush(len(s))
}

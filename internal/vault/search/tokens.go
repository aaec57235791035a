package search

import (
	"unicode"
	"unicode/utf8"
)

// isCJK reports runes that are searched one by one because their scripts
// do not separate words with spaces.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100, 0x1200 <= r && r < 0x2e80:
		// Latin, Greek, Cyrillic…, and the dashes, quotes and symbols
		// of the General Punctuation block and after.
		return false
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3, 0x3041 <= r && r <= 0x3096, 0x30a1 <= r && r <= 0x30fa:
		// The common blocks (CJK Unified Ideographs, Hangul syllables,
		// the kana), whole, without a search of the tables.
		return true
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
// splits exactly like Tokens(Fold(s)). ASCII, the common case, takes a fast
// path without rune decoding.
func scanWords(s string, fn func(word []byte, start, end int)) {
	scanWordsUntil(s, func(w []byte, start, end int) bool {
		fn(w, start, end)
		return true
	})
}

// scanWordsUntil is scanWords that stops once fn returns false, for a
// caller that has learnt what it needed from the start of the text.
func scanWordsUntil(s string, fn func(word []byte, start, end int) bool) {
	buf := make([]byte, 0, 64)
	start := -1
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				if start >= 0 && len(buf) > 0 && !fn(buf, start, i) {
					return
				}
				buf, start = buf[:0], -1
				i++
				continue
			}
			if start < 0 {
				start = i
			}
			buf = append(buf, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			if start >= 0 && len(buf) > 0 && !fn(buf, start, i) {
				return
			}
			if !fn(utf8.AppendRune(buf[:0], r), i, i+size) {
				return
			}
			buf, start = buf[:0], -1
		case r != utf8.RuneError && isWordRune(r):
			if start < 0 {
				start = i
			}
			buf = appendFold(buf, r)
		default:
			if start >= 0 && len(buf) > 0 && !fn(buf, start, i) {
				return
			}
			buf, start = buf[:0], -1
		}
		i += size
	}
	if start >= 0 && len(buf) > 0 {
		fn(buf, start, len(s))
	}
}

// Words calls fn for every word of unfolded text s, in order: the word
// folded (a buffer reused between calls), its byte range in s, and whether
// it is a single Han, Hiragana, Katakana or Hangul character. It splits
// exactly like Tokens(Fold(s)) without allocating per word, for indexing.
func Words(s string, fn func(word []byte, start, end int, cjk bool)) {
	scanWords(s, func(w []byte, start, end int) {
		cjk := false
		if w[0] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(w)
			cjk = size == len(w) && isCJK(r)
		}
		fn(w, start, end, cjk)
	})
}

// IsCJKToken reports whether a token is a single Han, Hiragana, Katakana or
// Hangul character, which Tokens emits one by one.
func IsCJKToken(tok string) bool {
	r, size := utf8.DecodeRuneInString(tok)
	return size == len(tok) && size > 1 && isCJK(r)
}

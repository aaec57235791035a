package search

import (
	"unicode"
	"unicode/utf8"
)

// Fold lowercases s and strips accents and diacritics so that search is
// insensitive to both: "Crème Brûlée" and "creme brulee" fold alike, as do
// "Straße" and "strasse". Latin letters (Latin-1 Supplement, Latin
// Extended-A/B and Extended Additional) go through a table; combining marks
// U+0300–U+036F are dropped; every other rune is lowercased. Text that is
// already folded ASCII is returned without allocating.
func Fold(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, i, len(s)+8)
	copy(b, s[:i])
	for _, r := range s[i:] {
		b = appendFold(b, r)
	}
	return string(b)
}

// appendFolded appends Fold(s) to b.
func appendFolded(b []byte, s string) []byte {
	for _, r := range s {
		b = appendFold(b, r)
	}
	return b
}

// appendFold appends the folded form of r.
func appendFold(b []byte, r rune) []byte {
	switch {
	case 0 <= r && r < utf8.RuneSelf: // a negative rune falls through to U+FFFD below
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	case r < foldLatinLo:
		if r == 0xB5 { // micro sign, lowercases to Greek mu
			return utf8.AppendRune(b, 'μ')
		}
		return utf8.AppendRune(b, r)
	case r <= foldLatinHi:
		return append(b, foldLatin[r-foldLatinLo]...)
	case isCombining(r):
		return b
	case foldExtLo <= r && r <= foldExtHi:
		return append(b, foldExt[r-foldExtLo]...)
	}
	// A rune outside the tables may lowercase into them (U+212B ANGSTROM SIGN
	// to å, U+2C7E to ȿ): fold that lowercase too, so Fold is idempotent.
	if l := unicode.ToLower(r); l != r && (foldLatinLo <= l && l <= foldLatinHi || foldExtLo <= l && l <= foldExtHi) {
		return appendFold(b, l)
	}
	return utf8.AppendRune(b, unicode.ToLower(r))
}

// isCombining reports the combining diacritical marks dropped by folding.
func isCombining(r rune) bool { return 0x300 <= r && r <= 0x36F }

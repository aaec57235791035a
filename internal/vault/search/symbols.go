package search

import (
	"unicode"
	"unicode/utf8"
)

// symbols is a note's signature of the characters outside words that it
// holds (punctuation, emoji, other symbols), in its text or its path: one
// bit for each ASCII punctuation mark, and the other such characters
// hashed onto the remaining 96 bits. A query's literal text or symbols
// can only be in a note whose signature has all their bits, so a search
// for "🚀" reads the few notes that may hold one instead of every note.
// It costs 16 bytes a note.
type symbols [2]uint64

// asciiPunct numbers the 32 ASCII punctuation marks from 1; 0 is any
// other byte.
var asciiPunct = func() (t [utf8.RuneSelf]uint8) {
	n := uint8(0)
	for c := range utf8.RuneSelf {
		if c > ' ' && c < utf8.RuneSelf-1 && !isWordRune(rune(c)) {
			n++
			t[c] = n
		}
	}
	return t
}()

// symbolRune reports the characters a signature records: neither letters,
// digits, marks nor space, nor the replacement character (which lower
// casing makes of invalid bytes), and unchanged by any case mapping, so
// that a literal found ignoring case (indexFoldCase) holds each of them
// as written in the note.
func symbolRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiPunct[r] != 0
	}
	return r != utf8.RuneError && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) &&
		!unicode.IsSpace(r) && unicode.SimpleFold(r) == r
}

// add records the symbol characters of s.
func (m *symbols) add(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if n := asciiPunct[c]; n != 0 {
				m[0] |= 1 << (n - 1)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if symbolRune(r) {
			h := uint32(r) * 0x9E3779B1 >> 16 % 96 // #nosec G115 -- a rune is below 2^21
			if h < 32 {
				m[0] |= 1 << (32 + h)
			} else {
				m[1] |= 1 << (h - 32)
			}
		}
		i += size - 1
	}
}

// holds reports whether m has every bit of need.
func (m symbols) holds(need symbols) bool {
	return m[0]&need[0] == need[0] && m[1]&need[1] == need[1]
}

// Needs is what the signature of a note must hold for a query's literal
// text and symbols to be in the note: one signature per alternative.
type Needs []symbols

// NeedsOf is the Needs of q; nil when q asks for no literal text or
// symbols, or one of its alternatives does not.
func NeedsOf(q Query) Needs {
	alts := q.Or
	if len(alts) == 0 {
		alts = []Query{q}
	}
	var out Needs
	for _, a := range alts {
		var m symbols
		m.add(a.Literal)
		for _, s := range a.Symbols {
			m.add(s)
		}
		if m == (symbols{}) {
			return nil // this alternative may match any note
		}
		out = append(out, m)
	}
	return out
}

// MayHold reports whether the note of s may hold what n needs; false
// means it cannot, as the index last saw it.
func (x *Index) MayHold(s Scored, n Needs) bool {
	if n == nil {
		return true
	}
	m := x.docs[s.doc].syms
	for _, need := range n {
		if m.holds(need) {
			return true
		}
	}
	return false
}

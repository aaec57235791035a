package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestSymbolRunesKeepTheirCase: no case mapping turns another character
// into one a signature records, nor one into another, so that a literal
// found ignoring case holds each recorded character as the note writes it.
func TestSymbolRunesKeepTheirCase(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for _, f := range []func(rune) rune{unicode.ToLower, unicode.ToUpper, unicode.ToTitle, unicode.SimpleFold} {
			if m := f(r); m != r && (symbolRune(m) || symbolRune(r)) {
				t.Fatalf("%U maps to %U, and a signature records one of them", r, m)
			}
		}
	}
	if symbolRune(utf8.RuneError) || symbolRune('a') || symbolRune(' ') || symbolRune('é') || symbolRune('日') || !symbolRune('🚀') || !symbolRune('[') {
		t.Fatal("symbolRune records the wrong characters")
	}
}

// TestSignatureHoldsWhatIsFound: whenever a literal is found in a note
// as search finds it (ignoring case), or a symbol in its text or path,
// the note's signature holds the query's, on random notes and queries
// made of punctuation, emoji, letters whose case changes and bytes that
// are not UTF-8.
func TestSignatureHoldsWhatIsFound(t *testing.T) {
	parts := []string{"a", "B", "É", "ß", "İ", "K", "Ω", "Ⓐ", "ⓐ", "Ⅻ", "🚀", "📌", "✅", "€", "—", "“", "-", " ", "[", "]", "\n", "\xff", "\xe2\x82", "日", "#"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		content := b.String()
		lo := r.IntN(len(content) + 1)
		hi := lo + r.IntN(len(content)-lo+1)
		lit := content[lo:hi]
		if r.IntN(2) == 0 {
			lit = strings.ToUpper(lit)
		}
		var note, need symbols
		note.add(content)
		note.add("dir/note.md")
		need.add(lit)
		if indexFoldCase(content, lit) >= 0 && !note.holds(need) {
			t.Fatalf("%q is found in %q, but the signature does not hold it", lit, content)
		}
	}
}

// TestMayHold: the index passes over the notes that cannot hold a query's
// literal text or symbols, alternative by alternative, and keeps the rest.
func TestMayHold(t *testing.T) {
	x := NewIndex()
	notes := map[string]string{
		"rocket.md":    "# Launch\n\n- [ ] check the fuel 🚀\n",
		"plain.md":     "# Plain\n\nWords, and a list:\n\n- one\n",
		"pin 📌.md":     "The pin is in the name.\n",
		"tasks.md":     "- [x] done\n- [ ] open\n",
		"euro.md":      "300 € for the garden\n",
		"upper.md":     "A NOTE IN CAPITALS: Ⓐ\n",
		"notaglyph.md": "Text without any symbol at all\n",
	}
	for p, c := range notes {
		x.Put(Analyse(p, c, 1, int64(len(c))), true)
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"🚀", []string{"rocket.md"}},
		{"- [ ]", []string{"rocket.md", "tasks.md"}},
		{"garden 🚀", []string{"rocket.md"}},
		{"📌", []string{"pin 📌.md"}},
		{"🚀 OR €", []string{"euro.md", "rocket.md"}},
		{"🚀 OR garden", []string{"euro.md", "notaglyph.md", "pin 📌.md", "plain.md", "rocket.md", "tasks.md", "upper.md"}},
		{"capitals", []string{"euro.md", "notaglyph.md", "pin 📌.md", "plain.md", "rocket.md", "tasks.md", "upper.md"}},
	}
	for _, tt := range tests {
		need := NeedsOf(ParseQuery(tt.q))
		var got []string
		for p := range notes {
			if x.MayHold(Scored{doc: x.byPath[p]}, need) {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q may be in %q, want %q", tt.q, got, tt.want)
		}
	}
}

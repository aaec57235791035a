package search

import (
	"strings"
	"testing"
	"unicode"
)

// isCJK answers for every rune what the Unicode tables answer: its ranges
// decided without them are exactly theirs.
func TestIsCJKEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isCJK(r), unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul); got != want {
			t.Fatalf("isCJK(%U) = %v, the tables say %v", r, got, want)
		}
	}
}

// BenchmarkWordsCJK splits text mixing Korean, Japanese, Chinese and
// English with its punctuation, as the bench vault's notes do.
func BenchmarkWordsCJK(b *testing.B) {
	text := strings.Repeat("서울에서 회의를 했다. 東京で会議をした。我们今天开会了。 The team—“today”—met… ", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Words(text, func([]byte, int, int, bool) {})
	}
}

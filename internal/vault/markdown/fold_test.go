package markdown

import "testing"

// Folding what is already folded changes nothing: the index stores folded
// terms and queries are folded again, so a rune that folds in two steps
// (Ƕ → ƕ → hv) would never match.
func TestFoldIsIdempotent(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		a := Fold(string(r))
		if b := Fold(a); a != b {
			t.Errorf("U+%04X: Fold gives %q, folding again gives %q", r, a, b)
		}
	}
}

package search

import (
	"reflect"
	"testing"
)

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

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"MiXeD", "mixed"},
		{"Crème Brûlée", "creme brulee"},
		{"Straße ŒUVRE Ærø", "strasse oeuvre aero"},
		{"Ñandú Çà Øst Łódź Đorđe Þór", "nandu ca ost lodz dorde thor"},
		{"Tiếng Việt", "tieng viet"},
		{"e\u0301a\u0308", "ea"},
		{"ΑΒΓ Привет", "αβγ привет"},
		{"日本語", "日本語"},
		{"bad \xff utf8", "bad \ufffd utf8"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Fold("already folded ascii") }); n != 0 {
		t.Errorf("Fold of folded ASCII allocates %v times", n)
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"hello, world! x2 don't", []string{"hello", "world", "x2", "don", "t"}},
		{"日本語テキストと한국어 mixed", []string{"日", "本", "語", "テ", "キ", "ス", "ト", "と", "한", "국", "어", "mixed"}},
		{"नमस्ते दुनिया", []string{"नमस्ते", "दुनिया"}},
		{"  ", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

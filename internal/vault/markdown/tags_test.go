package markdown

import (
	"reflect"
	"testing"
)

func TestInlineTags(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"basic", "#one two #Two-2 #a/b/ and #snake_case", []string{"one", "Two-2", "a/b", "snake_case"}},
		{"dedupe keeps first spelling", "#Tag #tag #TAG", []string{"Tag"}},
		{"digits only", "#2024 #2024a #1-2", []string{"2024a", "1-2"}},
		{"unicode", "#café #日本 #emoji🙂", []string{"café", "日本", "emoji"}},
		{"not after word", "a#b http://x.y/#frag [[n#h]] &#39; \\#esc (#p)", nil},
		{"heading leading hashes", "## Heading #intag\n# #first", []string{"intag", "first"}},
		{"code", "`#no` ```#no``` #yes\n```\n#fenced\n```\n#after", []string{"yes", "after"}},
		{"frontmatter", "---\ntags: [x]\n# comment\n---\n#body", []string{"body"}},
		{"punctuation ends", "#end. #comma, #q?", []string{"end", "comma", "q"}},
		{"lone hash", "# \n#\n# # #", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InlineTags(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("InlineTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ content, path, want string }{
		{"---\ntitle: From FM\n---\n# H1\n", "a/b.md", "From FM"},
		{"---\ntitle: [not, string]\n---\n## H2\n# H1 #\n", "a/b.md", "H1"},
		{"```\n# fenced\n```\ntext", "dir/My Note.md", "My Note"},
		{"---\nbad: [\n---\n# Still\n", "x.md", "Still"},
		{"", "Upper.MD", "Upper"},
	}
	for _, tt := range tests {
		if got := Title(tt.content, tt.path); got != tt.want {
			t.Errorf("Title(%q, %q) = %q, want %q", tt.content, tt.path, got, tt.want)
		}
	}
	// BodyTitle skips the frontmatter's title, and a heading that the
	// frontmatter or a fence holds.
	bodies := []struct{ content, path, want string }{
		{"---\ntitle: From FM\n---\n# H1\n", "a/b.md", "H1"},
		{"---\ntitle: x\n# not a heading\n---\ntext", "a/b.md", "b"},
		{"## Two\n#\n# One\n# Later\n", "a.md", "One"},
		{"```\n# fenced\n```\n# After\n", "a.md", "After"},
	}
	for _, tt := range bodies {
		if got := BodyTitle(tt.content, tt.path); got != tt.want {
			t.Errorf("BodyTitle(%q, %q) = %q, want %q", tt.content, tt.path, got, tt.want)
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

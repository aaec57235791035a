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

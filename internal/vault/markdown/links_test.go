package markdown

import (
	"reflect"
	"strings"
	"testing"
)

func TestLinks(t *testing.T) {
	l := func(kind, target, heading, alias string, embed bool) Link {
		return Link{Kind: kind, Target: target, Heading: heading, Alias: alias, Embed: embed}
	}
	tests := []struct {
		name string
		in   string
		want []Link
	}{
		{"wiki forms", "[[a]] [[b|Alias]] [[c#Head]] [[d#H|Al]] ![[e]]", []Link{
			l("wiki", "a", "", "", false), l("wiki", "b", "", "Alias", false), l("wiki", "c", "Head", "", false),
			l("wiki", "d", "H", "Al", false), l("wiki", "e", "", "", true),
		}},
		{"wiki path and table pipe", `| [[f/g\|x]] |`, []Link{l("wiki", "f/g", "", "x", false)}},
		{"self heading skipped", "[[#Only heading]] [[ spaced ]]", []Link{l("wiki", "spaced", "", "", false)}},
		{"markdown forms", "[t](a.md) [u](b%20c.md) [v](<d e.md>) [w](sub/f.md#Sec \"title\") [x](g)", []Link{
			l("markdown", "a.md", "", "t", false), l("markdown", "b c.md", "", "u", false),
			l("markdown", "d e.md", "", "v", false), l("markdown", "sub/f.md", "Sec", "w", false),
			l("markdown", "g", "", "x", false),
		}},
		{"markdown skipped", "[a](https://x.y/z.md) [b](mailto:q@r) [c](#anchor) ![i](p.png) [d](f.pdf) [e](//host/x.md) [f]() [g](dir/)", nil},
		{"markdown embed of note", "![x](n.md)", []Link{l("markdown", "n.md", "", "x", true)}},
		{"nested text brackets", "[a [b] c](n.md)", []Link{l("markdown", "n.md", "", "a [b] c", false)}},
		{"parens in destination", "[a](x(1).md)", []Link{l("markdown", "x(1).md", "", "a", false)}},
		{"inline code", "`[[no]]` ``[[no]] ` still`` [[yes]] `unclosed [[also]]", []Link{
			l("wiki", "yes", "", "", false), l("wiki", "also", "", "", false),
		}},
		{"escaped", `\[[no]] \[t](n.md)`, nil},
		{"fence and frontmatter", "---\nx: \"[[fm]]\"\n---\n```\n[[code]]\n```\n~~~~\n[[tilde]]\n~~~~\n[[after]]", []Link{l("wiki", "fm", "", "", false), l("wiki", "after", "", "", false)}},
		{"frontmatter properties", "---\nrelated: \"[[Garden Redesign]]\"\nlist:\n  - '[[A#h|x]]'\n  - \"![[B]]\"\nnested: [[not, a link]]\ntext: see [[C]]\n---\nbody", []Link{
			l("wiki", "Garden Redesign", "", "", false), {Kind: "wiki", Target: "A", Heading: "h", Alias: "x"}, l("wiki", "B", "", "", true)}},
		{"unclosed", "[[a [b](c", nil},
		{"wiki wins", "[[a]](b.md)", []Link{l("wiki", "a", "", "", false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Links(tt.in)
			for i := range got {
				if s := tt.in[got[i].Start:got[i].End]; !strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "!") {
					t.Errorf("link %d slices to %q", i, s)
				}
				got[i].Line, got[i].Start, got[i].End = 0, 0, 0
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLinksPositions(t *testing.T) {
	in := "---\na: 1\n---\nline [[x|y]]\r\n  ![[img.png]] and [t](<a b.md>)\n"
	got := Links(in)
	if len(got) != 3 {
		t.Fatalf("got %d links", len(got))
	}
	wantText := []string{"[[x|y]]", "![[img.png]]", "[t](<a b.md>)"}
	wantLine := []int{4, 5, 5}
	for i, l := range got {
		if in[l.Start:l.End] != wantText[i] || l.Line != wantLine[i] {
			t.Errorf("link %d = %q line %d; want %q line %d", i, in[l.Start:l.End], l.Line, wantText[i], wantLine[i])
		}
	}
	if got[1].IsNote() || !got[0].IsNote() {
		t.Errorf("IsNote: image %v, note %v", got[1].IsNote(), got[0].IsNote())
	}
}

func TestLinksPathologicalLineIsFast(t *testing.T) {
	// Quadratic scanning would take minutes here.
	for _, s := range []string{strings.Repeat("[", 1<<20), strings.Repeat("[a](", 1<<18), strings.Repeat("[[x", 1<<18), strings.Repeat("` ``", 1<<18)} {
		if n := len(Links(s)); n != 0 {
			t.Errorf("found %d links", n)
		}
	}
}

package markdown

import "testing"

var vaultPaths = []string{
	"Index.md", "notes/a.md", "notes/b.md", "notes/sub/a.md", "other/a.md",
	"projects/Plan 2024.md", "deep/x/y/z.md", "img.png", "One.md", "archive/one.md",
}

func TestResolve(t *testing.T) {
	r := NewResolver(vaultPaths)
	w := func(t string) Link { return Link{Kind: "wiki", Target: t} }
	m := func(t string) Link { return Link{Kind: "markdown", Target: t} }
	tests := []struct {
		name, source string
		link         Link
		want         string
	}{
		{"exact path", "Index.md", w("notes/b"), "notes/b.md"},
		{"exact with md", "Index.md", w("notes/b.md"), "notes/b.md"},
		{"case-insensitive path", "Index.md", w("NOTES/B"), "notes/b.md"},
		{"base unique", "Index.md", w("b"), "notes/b.md"},
		{"base with space", "x.md", w("plan 2024"), "projects/Plan 2024.md"},
		{"ambiguous prefers own folder", "other/q.md", w("a"), "other/a.md"},
		{"ambiguous shortest path", "Index.md", w("a"), "notes/a.md"},
		{"exact beats base", "Index.md", w("one"), "One.md"},
		{"path suffix", "Index.md", w("y/z"), "deep/x/y/z.md"},
		{"path suffix must be whole segments", "Index.md", w("x/y/z2"), ""},
		{"unresolved", "Index.md", w("nope"), ""},
		{"empty", "Index.md", w(""), ""},
		{"attachment not a note", "Index.md", w("img.png"), ""},
		{"md relative", "notes/b.md", m("a.md"), "notes/a.md"},
		{"md relative sub", "notes/b.md", m("sub/a.md"), "notes/sub/a.md"},
		{"md parent", "notes/sub/a.md", m("../b.md"), "notes/b.md"},
		{"md dot relative only", "notes/b.md", m("./Index.md"), ""},
		{"md root path", "notes/b.md", m("other/a.md"), "other/a.md"},
		{"md absolute", "notes/sub/a.md", m("/Index.md"), "Index.md"},
		{"md without extension", "Index.md", m("notes/b"), "notes/b.md"},
		{"md escapes root", "Index.md", m("../x.md"), ""},
		{"md base fallback", "Index.md", m("z.md"), "deep/x/y/z.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Resolve(tt.source, tt.link); got != tt.want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tt.source, tt.link.Target, got, tt.want)
			}
		})
	}
	var nilR *Resolver
	if got := nilR.Resolve("a.md", w("a")); got != "" {
		t.Errorf("nil resolver = %q", got)
	}
}

func TestRewriteLinks(t *testing.T) {
	r := NewResolver(vaultPaths)
	tests := []struct {
		name, content, source, from, to string
		want                            string
		n                               int
	}{
		{"wiki base stays base", "see [[b]] and ![[b#H|x]]", "Index.md", "notes/b.md", "archive/b2.md",
			"see [[b2]] and ![[b2#H|x]]", 2},
		{"wiki base not unique gets path", "[[b]]", "Index.md", "notes/b.md", "zzz/one.md",
			"[[zzz/one]]", 1},
		{"wiki path style keeps path and md", "[[notes/b.md|B]]", "Index.md", "notes/b.md", "n2/b.md",
			"[[n2/b.md|B]]", 1},
		{"table pipe kept", `| [[b\|B]] |`, "Index.md", "notes/b.md", "c.md", `| [[c\|B]] |`, 1},
		{"other links untouched", "[[a]] [[b]] [[nope]]", "other/q.md", "notes/b.md", "c.md", "[[a]] [[c]] [[nope]]", 1},
		{"markdown relative", "[t](b.md#Sec \"T\")", "notes/a.md", "notes/b.md", "x/new name.md",
			"[t](../x/new%20name.md#Sec \"T\")", 1},
		{"markdown angle", "[t](<b.md>)", "notes/a.md", "notes/b.md", "notes/new name.md", "[t](<new name.md>)", 1},
		{"markdown root style", "[t](notes/b)", "other/a.md", "notes/b.md", "p/q.md", "[t](p/q)", 1},
		{"markdown absolute", "[t](/notes/b.md)", "other/a.md", "notes/b.md", "p/q.md", "[t](/p/q.md)", 1},
		{"nothing", "no links", "Index.md", "notes/b.md", "c.md", "no links", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := RewriteLinks(tt.content, tt.source, tt.from, tt.to, r)
			if got != tt.want || n != tt.n {
				t.Errorf("got %q, %d; want %q, %d", got, n, tt.want, tt.n)
			}
		})
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{".", "a/b.md", "a/b.md"},
		{"a", "a/b.md", "b.md"},
		{"a/b", "c.md", "../../c.md"},
		{"a/b", "a/c/d.md", "../c/d.md"},
		{"a", "ab/c.md", "../ab/c.md"},
	}
	for _, tt := range tests {
		if got := relPath(tt.dir, tt.target); got != tt.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tt.dir, tt.target, got, tt.want)
		}
	}
}

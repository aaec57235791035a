package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"", "---\n---\n", "---\ntitle: x\ntags: [a, b]\n---\nbody\n", "---\r\na: 1\r\n...\r\nbody",
		"---\na: [\n---\n", "---\n- x\n---\n", "---\n# c\n---\n", "---\na: &x [1]\nb: *x\n---", "no frontmatter",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		yml, body, ok := Split(content)
		if body < 0 || body > len(content) || ok != (body > 0) || !ok && yml != "" {
			t.Fatalf("Split = %q, %d, %v", yml, body, ok)
		}
		if ok && !strings.HasPrefix(content, "---") {
			t.Fatalf("block without opening fence")
		}
		fm, perr := ParseFrontmatter(content)
		if perr != nil && fm.Map != nil {
			t.Fatalf("map returned with error")
		}
		if ok {
			sameAsLibrary(t, yml)
		}
		out, err := UpdateFrontmatter(content, map[string]any{"k": "v", "n": 1.5, "l": []any{"x", nil}}, []string{"tags"})
		if fe := (*FrontmatterError)(nil); errors.As(err, &fe) && fe.Limit || errors.Is(err, ErrDanglingAlias) {
			return // the update would pass the limits, or break an alias
		}
		if err != nil {
			if perr == nil && ok {
				// Only structural problems the decoder accepts may differ.
				if _, _, e := parseYAML(yml); e == nil {
					t.Fatalf("update failed on valid frontmatter: %v", err)
				}
			}
			return
		}
		_, nbody, nok := Split(out)
		if !nok {
			t.Fatalf("no block after update: %q", out)
		}
		if out[nbody:] != content[body:] {
			t.Fatalf("body changed:\n%q\n%q", out[nbody:], content[body:])
		}
		if perr == nil {
			nfm, err := ParseFrontmatter(out)
			if err != nil {
				t.Fatalf("updated frontmatter does not parse: %v\n%q", err, out)
			}
			if nfm.Map["k"] != "v" || nfm.Map["n"] != 1.5 || nfm.Map["tags"] != nil {
				t.Fatalf("values not set: %#v", nfm.Map)
			}
			for key, v := range fm.Map {
				switch key {
				case "k", "n", "l", "tags":
					continue
				}
				if !reflect.DeepEqual(nfm.Map[key], v) && !hasNaN(v) {
					t.Fatalf("key %q changed from %#v to %#v", key, v, nfm.Map[key])
				}
			}
		}
	})
}

// sameAsLibrary checks that the linear decoding of a plain block gives what
// the YAML library's own decoding gives.
func sameAsLibrary(t *testing.T, yml string) {
	root, s, err := parseYAML(yml)
	if err != nil || root == nil || !s.plain {
		return
	}
	got, gerr := decodeMapping(root, s)
	var raw any
	lerr := root.Decode(&raw)
	if (gerr != nil) != (lerr != nil) {
		t.Fatalf("linear decoding error %v, library error %v", gerr, lerr)
	}
	if gerr != nil {
		return
	}
	want, _ := normalize(raw, 0).(map[string]any)
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) && !hasNaN(want) {
		t.Fatalf("linear decoding %#v, library %#v", got, want)
	}
}

func FuzzSections(f *testing.F) {
	f.Add("# A\nx\n## B\ny\n# C\n", "B")
	f.Add("---\n# no\n---\n```\n# no\n```\n## Plan\n", "## Plan")
	f.Add("#\n# #\n#######\n   # x #", "#")
	f.Add("a\nb ^x\n\n- c ^y\n", "x")
	f.Add("A#B\n# A\n## B\n", "A#B")
	f.Fuzz(func(t *testing.T, content, heading string) {
		for _, h := range Headings(content) {
			if h.Start < 0 || h.Start >= len(content) || strings.TrimLeft(content[h.Start:], " ")[0] != '#' || h.Level < 1 || h.Level > 6 {
				t.Fatalf("bad heading %+v", h)
			}
		}
		s, b, e, err := FindSection(content, heading)
		if err == nil && !(0 <= s && s < b && b <= e && e <= len(content)) {
			t.Fatalf("FindSection = %d, %d, %d", s, b, e)
		}
		if s, e, ok := FindBlock(content, heading); ok && !(0 <= s && s < e && e <= len(content) && strings.Contains(content[s:e], "^"+heading)) {
			t.Fatalf("FindBlock = %d, %d", s, e)
		}
	})
}

func FuzzLinks(f *testing.F) {
	for _, s := range []string{
		"[[a]] [[b|c]] ![[d#e|f]] [t](x.md) [u](<a b.md>) [v](p%20q.md#h \"t\")",
		"`[[x]]` ``[[y]]`` [[z\\|w]] \\[[n]]", "---\na: \"[[fm]]\"\n---\n```\n[[c]]\n```\n[[ok]]",
		"[a [b] c](d(e).md) ![i](x.png) [m](mailto:x) [[", "[x](<a>b.md>) [y](a.md 'x) [z](a.md (t))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		links := Links(content)
		var paths []string
		prev := 0
		for _, l := range links {
			if l.Start < prev || l.End <= l.Start || l.End > len(content) {
				t.Fatalf("bad bounds %+v", l)
			}
			prev = l.End
			if c := content[l.Start]; c != '[' && c != '!' {
				t.Fatalf("link starts with %q", c)
			}
			if l.Target == "" {
				t.Fatalf("empty target %+v", l)
			}
			paths = append(paths, strings.TrimSuffix(l.Target, ".md")+".md")
		}
		if len(paths) == 0 {
			return
		}
		r := NewResolver(paths)
		out, n := RewriteLinks(content, "src/note.md", paths[0], "moved/new name.md", r)
		if n == 0 && out != content {
			t.Fatalf("content changed without rewrites")
		}
		if n > len(links) {
			t.Fatalf("rewrote %d of %d links", n, len(links))
		}
	})
}

func FuzzTags(f *testing.F) {
	for _, s := range []string{
		"#a #B/c #2024 #x-1 `#code` a#b http://x#y", "# H #t\n```\n#no\n```\n#yes", "---\ntags: x\n---\n#日本 #café",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		seen := map[string]bool{}
		for _, tag := range InlineTags(content) {
			k := strings.ToLower(tag)
			if tag == "" || strings.HasPrefix(tag, "#") || strings.HasSuffix(tag, "/") || seen[k] {
				t.Fatalf("bad or duplicate tag %q", tag)
			}
			seen[k] = true
			if !strings.Contains(content, "#"+tag) {
				t.Fatalf("tag %q not in content", tag)
			}
		}
		_ = Title(content, "dir/n.md")
		// BodyTitle stops at the first level-1 heading; it must name the
		// one a full list of the headings names.
		want := "n"
		for _, h := range Headings(content) {
			if h.Level == 1 && h.Text != "" {
				want = h.Text
				break
			}
		}
		if got := BodyTitle(content, "dir/n.md"); got != want {
			t.Fatalf("BodyTitle = %q, the first level-1 heading is %q", got, want)
		}
	})
}

// hasNaN reports values that never compare equal to themselves.
func hasNaN(v any) bool { return !reflect.DeepEqual(v, v) }

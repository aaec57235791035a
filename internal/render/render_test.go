package render

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# Title", "<h1>Title</h1>\n"},
		{"###### six ##", "<h6>six</h6>\n"},
		{"####### seven", "<p>####### seven</p>\n"},
		{"a\nb\n\nc", "<p>a<br>\nb</p>\n<p>c</p>\n"},
		{"- [ ] todo\n- [x] done", "<ul>\n<li>☐ todo</li>\n<li>☑ done</li>\n</ul>\n"},
		{"1. one\n2) two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"> quoted\n> more", "<blockquote><p>quoted<br>\nmore</p></blockquote>\n"},
		{"```go\n<b>x</b>\n```", "<pre><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre>\n"},
		{"---", "<hr>\n"},
		{"**bold** and *em* and `co<de>`", "<p><strong>bold</strong> and <em>em</em> and <code>co&lt;de&gt;</code></p>\n"},
		{"[[Projects/Plan#Goals|the plan]]", `<p><a class="wikilink" href="/notes/Projects/Plan">the plan</a></p>` + "\n"},
		{"![[image.png]]", `<p><a class="wikilink" href="/notes/image.png">image.png</a></p>` + "\n"},
		{"[site](https://example.org/a?b=1&c=2)", `<p><a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">site</a></p>` + "\n"},
		{"[x](javascript:alert(1))", "<p>x</p>\n"},
		{"[other](Other%20Note.md)", `<p><a href="/notes/Other%20Note.md">other</a></p>` + "\n"},
		{"see https://example.org.", `<p>see <a href="https://example.org" rel="noopener noreferrer nofollow">https://example.org</a>.</p>` + "\n"},
		{"<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"},
		{"---\ntitle: T\n---\nbody", "<pre class=\"frontmatter\">title: T</pre>\n<p>body</p>\n"},
		{"snake_case_name", "<p>snake_case_name</p>\n"},
		// Tables (GitHub's and Obsidian's pipe tables): a header row, a
		// delimiter row giving the alignment, then rows until a line
		// without a pipe; short rows are filled, long ones cut.
		{"| Name | Qty |\n|:-----|----:|\n| **tea** | 2 |\n| [[Shop\\|shop]] |\n\nafter",
			"<table><thead><tr><th>Name</th><th class=\"r\">Qty</th></tr></thead><tbody>\n" +
				"<tr><td><strong>tea</strong></td><td class=\"r\">2</td></tr>\n" +
				`<tr><td><a class="wikilink" href="/notes/Shop">shop</a></td><td class="r"></td></tr>` + "\n" +
				"</tbody></table>\n<p>after</p>\n"},
		{"intro\na | b\n:-:|---\n1 | 2 | 3\ntext",
			"<p>intro</p>\n<table><thead><tr><th class=\"c\">a</th><th>b</th></tr></thead><tbody>\n" +
				"<tr><td class=\"c\">1</td><td>2</td></tr>\n</tbody></table>\n<p>text</p>\n"},
		// Not a table: the delimiter row's cells do not match the header's.
		{"a | b\n|---|", "<p>a | b<br>\n|---|</p>\n"},
		{"| `a\\|b` |\n|---|", "<table><thead><tr><th><code>a|b</code></th></tr></thead><tbody>\n</tbody></table>\n"},
	} {
		if got := string(Note(c.in)); got != c.want {
			t.Errorf("Note(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// NoteAt links other notes at the site it is given; other links stay as
// they are.
func TestNoteAt(t *testing.T) {
	const site = "https://notes.example/cortex"
	for _, c := range []struct{ in, want string }{
		{"[[Plan B#Goals|plan]]", `<p><a class="wikilink" href="https://notes.example/cortex/notes/Plan%20B">plan</a></p>` + "\n"},
		{"[x](Other.md)", `<p><a href="https://notes.example/cortex/notes/Other.md">x</a></p>` + "\n"},
		{"[x](https://example.org)", `<p><a href="https://example.org" rel="noopener noreferrer nofollow">x</a></p>` + "\n"},
		{"[x](/etc/passwd)", "<p>x</p>\n"},
	} {
		if got := string(NoteAt(c.in, site)); got != c.want {
			t.Errorf("NoteAt(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// tagRE finds every tag the renderer wrote; allowed lists the only ones
// it may write, with the only attributes it may give them.
var (
	tagRE   = regexp.MustCompile(`<[^>]*>`)
	allowed = regexp.MustCompile(`^</?(h[1-6]|p|br|ul|ol|li|blockquote|pre|code|hr|strong|em|a|table|thead|tbody|tr|th|td)( class="(wikilink|frontmatter|c|r)")?( href="(/notes/[^"<>]*|https?://[^"<>]*|mailto:[^"<>]*)")?( rel="noopener noreferrer nofollow")?>$`)
)

func FuzzNote(f *testing.F) {
	for _, s := range []string{"# Plan\n\nSee [[Other]] and [[Other|the other note]].\n\n- first\n- second <script>alert(1)</script>\n", "[a](b)", "**_x_**", "`", "[[", "<script>alert(1)</script>", "[x](javascript:1)", "[x](\" onmouseover=\"a)", "---\na: <b>\n---\n", "| a | b |\n|:-|-:|\n| <i> | [x](javascript:1) |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := string(Note(in))
		for _, tag := range tagRE.FindAllString(out, -1) {
			if !allowed.MatchString(tag) {
				t.Fatalf("Note(%q) wrote the tag %q", in, tag)
			}
		}
		if strings.Contains(strings.ToLower(out), "javascript:") && strings.Contains(out, `href="javascript`) {
			t.Fatalf("Note(%q) linked a script URL", in)
		}
	})
}

func TestNotePathologicalLineIsQuick(t *testing.T) {
	for _, c := range []string{"[", "[[", "**", "`", "*a", "[a]("} {
		in := strings.Repeat(c, 1<<18/len(c))
		start := time.Now()
		if out := Note(in); len(out) == 0 {
			t.Fatalf("%q: nothing rendered", c)
		}
		// Quadratic work would take minutes; linear takes milliseconds.
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%q: took %v", c, d)
		}
	}
}

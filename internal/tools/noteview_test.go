package tools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that offers the extension gets, with a note fetch read, the
// note as the console renders it, with links to other notes at the
// console's address; the text the model reads is as it was, and a client
// that does not offer the extension gets no view.
func TestFetchGivesTheNoteView(t *testing.T) {
	h := newHTTPEnv(t)
	const note = "# Soup\n\nSee [[Recipes/Stock|the stock]].\n\n<script>alert(1)</script>\n"
	ui := h.dial(t, "ui-token", versions[1], true)
	if _, sc := callRaw(t, ui, "create_note", map[string]any{"path": "Soup.md", "content": note}); sc == nil {
		t.Fatal("create_note gave nothing")
	}
	for _, offered := range []bool{true, false} {
		cs := h.dial(t, "ui-token", versions[1], offered)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "Soup.md"}})
		if err != nil || res.IsError {
			t.Fatalf("fetch: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Text string
			View *noteView
		}
		json.Unmarshal(b, &out)
		if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, `"view"`) || out.Text != note {
			t.Errorf("offered %v: the model reads %s", offered, text)
		}
		if !offered {
			if out.View != nil {
				t.Errorf("a client without the extension got a view: %s", b)
			}
			continue
		}
		want := `<p>See <a class="wikilink" href="` + testURL + `/notes/Recipes/Stock">the stock</a>.</p>` + "\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
		if out.View == nil || out.View.HTML != want {
			t.Errorf("the note view got %s\nwant %q", b, want)
		}
	}
}

// noteTag is every tag the note view may be handed, with its only
// attributes: the renderer's own, with note links at the console's
// address (the view is framed far from the console) and outside links to
// http, https and mailto alone.
var (
	anyTag  = regexp.MustCompile(`<[^>]*>`)
	noteTag = regexp.MustCompile(`^</?(h[1-6]|p|br|ul|ol|li|blockquote|pre|code|hr|strong|em|a|table|thead|tbody|tr|th|td)( class="(wikilink|frontmatter|c|r)")?( href="(` +
		regexp.QuoteMeta(testURL) + `/notes/[^"<>]*|https?://[^"<>]*|mailto:[^"<>]*)")?( rel="noopener noreferrer nofollow")?>$`)
)

// No tag or attribute but the renderer's own can come out of a note into
// the note view, and no "<" but those of its tags.
func FuzzNoteView(f *testing.F) {
	for _, s := range []string{"# T\n\ntext", "[[a|b]] [x](y.md) [z](/abs) [j](javascript:1)", "<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>", "---\na: <b>\n---\n# T\n", "| a | b |\n|:-|-:|\n| <i> | [x](\" onmouseover=\"a) |", "```\n</pre><script>\n```", "<", "a < b > c"} {
		f.Add(s, "T")
	}
	s := &server{baseURL: testURL}
	f.Fuzz(func(t *testing.T, text, title string) {
		v, ok := s.noteView(fetchOut{ID: "N.md", Title: title, Text: text})
		if !ok {
			t.Fatal("no view for a note")
		}
		tags := anyTag.FindAllString(v.HTML, -1)
		for _, tag := range tags {
			if !noteTag.MatchString(tag) {
				t.Fatalf("note %q gave the tag %q", text, tag)
			}
		}
		if n := strings.Count(v.HTML, "<"); n != len(tags) {
			t.Fatalf("note %q gave %d '<' for %d tags: %q", text, n, len(tags), v.HTML)
		}
	})
}

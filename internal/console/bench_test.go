package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/render"
)

// benchNote is a 10 KB note of the usual kinds of Markdown.
func benchNote() string {
	var b strings.Builder
	b.WriteString("---\ntags: [bench]\n---\n# Bench\n\n")
	for i := 0; b.Len() < 10<<10; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nSome **bold** and *em* text with `code`, a [[Link %d]] and [a site](https://example.org/%d).\n\n- item one\n- item two\n\n", i, i, i)
	}
	return b.String()
}

func BenchmarkRender(b *testing.B) {
	note := benchNote()
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		render.Note(note)
	}
}

// benchGet measures one signed-in page through the console's handlers.
func benchGet(b *testing.B, path string, setup func(h *harness)) {
	t := &testing.T{}
	h := newHarness(t, map[string]string{"Plan.md": benchNote()})
	if setup != nil {
		setup(h)
	}
	br := h.browser()
	br.signIn()
	req := httptest.NewRequest(http.MethodGet, testPublicURL+path, nil)
	for k, v := range br.Cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d", path, rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}

func BenchmarkNotePage(b *testing.B) { benchGet(b, "/notes/Plan.md", nil) }

func BenchmarkActivityPage(b *testing.B) {
	benchGet(b, "/console/activity", func(h *harness) {
		for i := range 50 {
			h.Call("claude", "append", map[string]any{"id": "Plan.md", "text": fmt.Sprintf("line %d\n", i)})
		}
	})
}

// A 1 MB note created, one word changed and a section rewritten: what
// Activity costs when its diffs are the largest a note can make.
func BenchmarkActivityPageLargeChange(b *testing.B) {
	benchGet(b, "/console/activity", func(h *harness) {
		h.Call("claude", "create_note", map[string]any{"path": "Big.md", "content": bigNote(false)})
		h.Call("claude", "edit_note", map[string]any{"id": "Big.md", "version": h.Version("Big.md"),
			"old_text": "Plant tomatoes in May, line 5000 of part A.", "new_text": "Plant tomatoes in June, line 5000 of part A."})
		h.Call("claude", "replace_section", map[string]any{"id": "Big.md", "version": h.Version("Big.md"),
			"heading": "## Part B", "content": "\nA new plan.\n\n"})
	})
}

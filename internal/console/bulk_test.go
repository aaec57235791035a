package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestBulkUndoPreviewConflictAndRecentSignIn(t *testing.T) {
	h := newHarness(t, map[string]string{"A.md": "alpha\n", "B.md": "beta\n"})
	h.Call("claude", "edit_note", map[string]any{"id": "A.md", "version": h.Version("A.md"), "old_text": "alpha", "new_text": "ALPHA"})
	h.Call("claude", "edit_note", map[string]any{"id": "B.md", "version": h.Version("B.md"), "old_text": "beta", "new_text": "BETA"})
	h.Call("chatgpt", "append", map[string]any{"id": "B.md", "text": "later\n"})
	bAfter := h.Read("B.md")
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity?app=claude")
	want(t, resp, body, http.StatusOK, `id="bulk-link"`)
	resp, body = b.get("/console/undo-app?app=claude")
	want(t, resp, body, http.StatusOK, `data-path="A.md"`, `class="entry conflict" data-path="B.md"`, `name="include" value="B.md"`,
		// The conflict names who changed the note after claude, and when.
		"(by chatgpt, <time", ">"+h.journal()[0].Time.UTC().Format("2006-01-02 15:04")+" UTC</time>)")
	if strings.Contains(body, "bulk-needs-sign-in") {
		t.Error("a fresh sign-in is told to sign in again")
	}
	if h.Read("A.md") != "ALPHA\n" {
		t.Fatal("the preview changed a note")
	}

	// Not recently signed in: refused, nothing changed.
	h.Clock.Advance(RecentSignIn)
	resp, body = b.get("/console/undo-app?app=claude")
	want(t, resp, body, http.StatusOK, `id="bulk-needs-sign-in"`)
	resp, body = b.post("/console/undo-app", url.Values{"app": {"claude"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
	if h.Read("A.md") != "ALPHA\n" || h.Read("B.md") != bAfter {
		t.Fatal("a refused bulk undo changed a note")
	}

	b.signIn()
	b.get("/console/undo-app?app=claude")
	resp, body = b.act("/console/undo-app", url.Values{"app": {"claude"}})
	want(t, resp, body, http.StatusOK, "Partly undone", "skipped")
	if got := h.Read("A.md"); got != "alpha\n" {
		t.Fatalf("A.md = %q after the bulk undo", got)
	}
	if got := h.Read("B.md"); got != bAfter {
		t.Fatalf("the conflict B.md was undone without being chosen: %q", got)
	}

	// Nothing left of claude's but the conflict; choosing it undoes it.
	resp, body = b.act("/console/undo-app", url.Values{"app": {"claude"}, "include": {"B.md"}})
	want(t, resp, body, http.StatusOK)
	if got := h.Read("B.md"); got != "beta\n" {
		t.Fatalf("B.md = %q after choosing it", got)
	}
	for _, bad := range []url.Values{{"app": {""}}, {"app": {"claude"}, "since": {"yesterday-ish"}}} {
		resp, body = b.post("/console/undo-app", bad)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d %s", bad, resp.StatusCode, body)
		}
	}
}

package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/history"
)

const before = "# Plan\n\n## Goals\n\nship it\n\n## Risks\n\nnone\n"

// appEdit has an app edit the note; it returns the journal entry's id.
func appEdit(h *harness) int64 {
	h.Call("claude", "edit_note", map[string]any{"id": "Plan.md", "version": h.Version("Plan.md"), "old_text": "ship it", "new_text": "ship it later"})
	return h.journal()[0].ID
}

func TestActivityShowsDiffAndUndoes(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity?app=claude")
	want(t, resp, body, http.StatusOK, `id="e`+strconv.FormatInt(id, 10)+`"`, "edit_note", "<mark> later</mark>", `class="undo"`)
	resp, body = b.get("/console/activity?app=someone-else")
	want(t, resp, body, http.StatusOK, `id="no-entries"`)
	resp, body = b.get("/console/activity?note=Plan&since=2000-01-01")
	want(t, resp, body, http.StatusOK, "<mark> later</mark>")

	resp, body = b.act("/console/undo", url.Values{"entry": {strconv.FormatInt(id, 10)}})
	want(t, resp, body, http.StatusOK, `id="result-title">Undone`)
	if got := h.Read("Plan.md"); got != before {
		t.Fatalf("after undo the note is %q, want %q", got, before)
	}
	if e := h.journal()[0]; e.App != history.OwnerConsole || e.Tool != "undo" {
		t.Fatalf("undo journaled as %+v", e)
	}
}

func TestRestoreVersionAndConflict(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	seen := h.Version("Plan.md")
	h.Call("chatgpt", "append", map[string]any{"id": "Plan.md", "text": "more\n"})
	after := h.Read("Plan.md")
	b := h.browser()
	b.signIn()
	_, body := b.get("/notes/Plan.md")
	ids := versionIDRE.FindAllStringSubmatch(body, -1)
	oldest := ids[len(ids)-1][1]
	// The owner looked at the note before chatgpt's append: refused, shown.
	resp, body := b.act("/console/restore", url.Values{"path": {"Plan.md"}, "version": {oldest}, "expect": {seen}})
	want(t, resp, body, http.StatusOK, "The note changed", `id="force"`)
	if got := h.Read("Plan.md"); got != after {
		t.Fatalf("a refused restore changed the note: %q", got)
	}
	resp, body = b.post("/console/restore", url.Values{"path": {"Plan.md"}, "version": {oldest}, "expect": {seen}, "force": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("forced restore: %d %s", resp.StatusCode, body)
	}
	if got := h.Read("Plan.md"); got != before {
		t.Fatalf("restored note is %q, want %q", got, before)
	}
	if e := h.journal()[0]; e.App != history.OwnerConsole || e.Tool != "restore" {
		t.Fatalf("restore journaled as %+v", e)
	}
}

func TestConsolePostsRefused(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	edited := h.Read("Plan.md")
	entry := strconv.FormatInt(id, 10)
	signedIn := h.browser()
	signedIn.signIn()
	signedIn.get("/console/activity")
	other := h.browser()
	other.signIn()
	other.get("/console/activity")
	stranger := h.browser()
	stranger.get("/login")

	for _, c := range []struct {
		name   string
		b      *browser
		path   string
		form   url.Values
		status int
		code   string
	}{
		{"missing csrf", signedIn, "/console/undo", url.Values{"entry": {entry}, "csrf": {""}}, http.StatusForbidden, "bad_csrf"},
		{"forged csrf", signedIn, "/console/undo", url.Values{"entry": {entry}, "csrf": {"forged"}}, http.StatusForbidden, "bad_csrf"},
		{"another browser's csrf", signedIn, "/console/undo", url.Values{"entry": {entry}, "csrf": {other.CSRF}}, http.StatusForbidden, "bad_csrf"},
		{"no session", stranger, "/console/undo", url.Values{"entry": {entry}}, http.StatusUnauthorized, "signed_out"},
		{"no session restore", stranger, "/console/restore", url.Values{"path": {"Plan.md"}, "version": {"1"}}, http.StatusUnauthorized, "signed_out"},
		{"unknown change", signedIn, "/console/undo", url.Values{"entry": {"999999"}}, http.StatusNotFound, history.CodeUnknownChange},
		{"bad change", signedIn, "/console/undo", url.Values{"entry": {"x"}}, http.StatusBadRequest, "bad_request"},
		{"unknown version", signedIn, "/console/restore", url.Values{"path": {"Plan.md"}, "version": {"999999"}}, http.StatusNotFound, history.CodeUnknownVersion},
		{"outside the vault", signedIn, "/console/restore", url.Values{"path": {"../etc/passwd"}, "version": {"1"}}, http.StatusBadRequest, "invalid_path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := c.b.post(c.path, c.form)
			want(t, resp, body, c.status, `data-code="`+c.code+`"`)
			if got := h.Read("Plan.md"); got != edited {
				t.Fatalf("the note changed: %q", got)
			}
		})
	}
	if n := len(h.journal()); n != 1 {
		t.Fatalf("journal has %d entries, want only the app's", n)
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	edited := h.Read("Plan.md")
	b := h.browser()
	b.signIn()
	b.get("/console/activity")
	r := newPost(b, "/console/undo", url.Values{"entry": {strconv.FormatInt(id, 10)}, "csrf": {b.CSRF}})
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, body := b.do(r)
	want(t, resp, body, http.StatusForbidden, `data-code="cross_origin"`)
	if h.Read("Plan.md") != edited {
		t.Fatal("the note changed")
	}
}

func TestActivityPages(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	for i := range entriesShown + 3 {
		h.Call("claude", "append", map[string]any{"id": "Plan.md", "text": "line " + strconv.Itoa(i) + "\n"})
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity?app=claude")
	want(t, resp, body, http.StatusOK, `id="older"`)
	if n := strings.Count(body, `class="entry`); n != entriesShown {
		t.Fatalf("first page shows %d entries", n)
	}
	older := regexp.MustCompile(`id="older" href="|href="([^"]+)" id="older"`).FindStringSubmatch(body)
	if older == nil {
		t.Fatal("no link to older changes")
	}
	resp, body = b.get(html.UnescapeString(older[1]))
	want(t, resp, body, http.StatusOK, "line 0", "line 2")
	if n := strings.Count(body, `class="entry`); n != 3 || strings.Contains(body, `id="older"`) {
		t.Fatalf("second page shows %d entries", n)
	}
	resp, body = b.get("/console/activity?before=x")
	want(t, resp, body, http.StatusBadRequest, `data-code="bad_request"`)
}

// A delete and a move are each one card, saying what happened; the
// delete's card shows the text that went, not "no longer in the history".
func TestActivityOneCardPerMoveAndDelete(t *testing.T) {
	h := newHarness(t, map[string]string{"A.md": "alpha\n", "B.md": "beta\n"})
	trashed, _ := h.Call("claude", "delete_note", map[string]any{"id": "A.md", "version": h.Version("A.md")})["trashed_to"].(string)
	h.Call("claude", "move_note", map[string]any{"id": "B.md", "to": "Sub/B.md", "version": h.Version("B.md")})
	if n := len(h.journal()); n != 4 {
		t.Fatalf("the journal holds %d entries; the test expects two per call", n)
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity")
	want(t, resp, body, http.StatusOK, "Deleted: moved to the trash as "+trashed, "Moved from B.md", "The text did not change.", "alpha")
	if n := strings.Count(body, `<section class="entry`); n != 2 {
		t.Errorf("%d cards for one delete and one move, want 2:\n%s", n, body)
	}
	if strings.Contains(body, "no longer in the history") {
		t.Error("a card says its text is no longer in the history")
	}
}

// A move whose card ends a page has both its entries on that page; the
// next page starts after them, so no page shows half of it. The same for
// a delete.
func TestActivityPageEndsAtAChange(t *testing.T) {
	for _, tool := range []string{"move_note", "delete_note"} {
		t.Run(tool, func(t *testing.T) {
			h := newHarness(t, map[string]string{"Plan.md": before, "B.md": "beta\n"})
			h.Call("claude", "append", map[string]any{"id": "Plan.md", "text": "oldest\n"})
			args := map[string]any{"id": "B.md", "version": h.Version("B.md")}
			if tool == "move_note" {
				args["to"] = "Sub/B.md"
			}
			h.Call("claude", tool, args)
			for i := range entriesShown - 1 {
				h.Call("claude", "append", map[string]any{"id": "Plan.md", "text": "line " + strconv.Itoa(i) + "\n"})
			}
			b := h.browser()
			b.signIn()
			_, body := b.get("/console/activity")
			if n := strings.Count(body, `<section class="entry`); n != entriesShown {
				t.Fatalf("first page shows %d cards, want %d", n, entriesShown)
			}
			older := regexp.MustCompile(`href="([^"]+)" id="older"`).FindStringSubmatch(body)
			if older == nil {
				t.Fatal("no link to older changes")
			}
			resp, body := b.get(html.UnescapeString(older[1]))
			want(t, resp, body, http.StatusOK, "oldest")
			if n := strings.Count(body, `<section class="entry`); n != 1 || strings.Contains(body, "B.md") {
				t.Fatalf("second page shows %d cards, want only the oldest append:\n%s", n, body)
			}
		})
	}
}

package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

const planNote = "# Plan\n\nSee [[Other]] and [[Other|the other note]].\n\n- first\n- second <script>alert(1)</script>\n"

func TestNotePageSignedOutGoesToSignInAndBack(t *testing.T) {
	h := newHarness(t, map[string]string{"Projects/Plan B.md": planNote})
	b := h.browser()
	resp, _ := b.get("/notes/Projects/Plan%20B.md")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	if want := "/login?return=" + url.QueryEscape("/notes/Projects/Plan%20B.md"); loc != want {
		t.Fatalf("Location %q, want %q", loc, want)
	}
	// Signing in on that page comes back to the note.
	b.get(loc)
	b.signIn()
	resp, body := b.get("/notes/Projects/Plan%20B.md")
	want(t, resp, body, http.StatusOK, `id="note-title">Plan</h1>`)
}

func TestNotePageRendersSafely(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": planNote, "Other.md": "# Other\n"})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/notes/Plan.md")
	want(t, resp, body, http.StatusOK,
		`<a class="wikilink" href="/notes/Other">Other</a>`,
		`<a class="wikilink" href="/notes/Other">the other note</a>`,
		`<li>second &lt;script&gt;alert(1)&lt;/script&gt;</li>`)
	if strings.Contains(body, "<script>") {
		t.Fatal("the note's script tag reached the page")
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Cache-Control"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	// A wikilink's name finds its note.
	resp, _ = b.get("/notes/Other")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/notes/Other.md" {
		t.Fatalf("wikilink: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The raw view shows the text itself, escaped.
	resp, body = b.get("/notes/Plan.md?raw=1")
	want(t, resp, body, http.StatusOK, `<pre class="raw" id="note-body"># Plan`, "[[Other|the other note]]", "&lt;script&gt;")
}

var versionIDRE = regexp.MustCompile(`id="v(\d+)"`)

func TestNotePageHistoryAndDiff(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": "# Plan\n\nalpha beta\n"})
	h.Call("claude", "edit_note", map[string]any{"id": "Plan.md", "version": h.Version("Plan.md"), "old_text": "beta", "new_text": "gamma"})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/notes/Plan.md")
	want(t, resp, body, http.StatusOK, `id="history"`, "claude", "gamma")
	ids := versionIDRE.FindAllStringSubmatch(body, -1)
	if len(ids) == 0 {
		t.Fatal("no versions listed")
	}
	oldest := ids[len(ids)-1][1]
	resp, body = b.get("/notes/Plan.md?from=" + oldest)
	want(t, resp, body, http.StatusOK, `id="diff-title"`, "<mark>beta</mark>", "<mark>gamma</mark>")
	resp, body = b.get("/notes/Plan.md?v=" + oldest)
	want(t, resp, body, http.StatusOK, `id="viewing"`, "alpha beta")
}

func TestNotePageBadInput(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": "# Plan\n"})
	b := h.browser()
	b.signIn()
	for _, c := range []struct {
		path   string
		status int
		code   string
	}{
		{"/notes/Plan.md?v=999999", http.StatusNotFound, "unknown_version"},
		{"/notes/Plan.md?from=nonsense", http.StatusBadRequest, "unknown_version"},
		{"/notes/Plan.md?from=999999", http.StatusNotFound, "unknown_version"},
		{"/notes/..%2Fsecret.md", http.StatusBadRequest, "invalid_path"},
		{"/notes/Nowhere.md", http.StatusNotFound, "not_found"},
	} {
		resp, body := b.get(c.path)
		want(t, resp, body, c.status, `data-code="`+c.code+`"`)
	}
	if got := h.Read("Plan.md"); got != "# Plan\n" {
		t.Fatalf("note changed: %q", got)
	}
}

func TestNotePageDiffOfSameText(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": "# Plan\n\nalpha beta\n"})
	h.Call("claude", "edit_note", map[string]any{"id": "Plan.md", "version": h.Version("Plan.md"), "old_text": "beta", "new_text": "gamma"})
	b := h.browser()
	b.signIn()
	_, body := b.get("/notes/Plan.md")
	ids := versionIDRE.FindAllStringSubmatch(body, -1)
	resp, body := b.get("/notes/Plan.md?from=" + ids[0][1] + "&to=" + ids[0][1])
	want(t, resp, body, http.StatusOK, `id="diff-same"`)
}

// The history column marks the version the note is now, offers no
// restore of it, and gives each version's size change.
func TestNotePageMarksCurrentVersion(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/notes/Plan.md")
	want(t, resp, body, http.StatusOK, `class="current" aria-current="true"`, `<strong class="current">current</strong>`, "&#43;6 B")
	if n := strings.Count(body, `class="current" aria-current="true"`); n != 1 {
		t.Fatalf("%d versions marked current, want 1", n)
	}
	cur := body[strings.Index(body, `class="current" aria-current="true"`):]
	cur = cur[:strings.Index(cur, "</li>")]
	if strings.Contains(cur, "restore") {
		t.Errorf("the current version offers a restore:\n%s", cur)
	}
	if n := strings.Count(body, `class="link restore"`); n != strings.Count(body, `<li id="v`)-1 {
		t.Errorf("%d restore buttons for %d versions", n, strings.Count(body, `<li id="v`))
	}
}

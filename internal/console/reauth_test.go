package console

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

var pendingRE = regexp.MustCompile(`name="return" value="(/console/pending/[^"]+)"`)

// link returns the first submatch of re in body, unescaped, or fails.
func link(t *testing.T, re *regexp.Regexp, body string) string {
	t.Helper()
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %v in:\n%s", re, body)
	}
	return html.UnescapeString(m[1])
}

// signInAgain signs in with a TOTP code from the inline sign-in page
// body and returns the answer of the login form.
func (b *browser) signInAgain(body string) *http.Response {
	b.h.t.Helper()
	ret := link(b.h.t, pendingRE, body)
	b.h.Clock.Advance(30 * time.Second)
	code := testkit.TOTP(b.h.t, b.h.setup.TOTPSecret, b.h.Clock.Now())
	resp, lb := b.post("/login/totp", url.Values{"code": {code}, "return": {ret}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != ret {
		b.h.t.Fatalf("sign-in again: %d %q %s", resp.StatusCode, resp.Header.Get("Location"), lb)
	}
	return resp
}

// A sensitive action without a recent sign-in shows the sign-in on the
// page itself, in the console's frame; nothing is done until the owner
// signs in, and then it is done once, with the owner's choices.
func TestSignInAgainInline(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	b := h.browser()
	b.signIn()
	h.Clock.Advance(RecentSignIn)

	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/console/tokens", url.Values{"name": {"tablet"}}},
		{"/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan.md"}}},
		{"/console/undo-app", url.Values{"app": {"claude"}, "since": {"2025-01-01"}}},
		{"/console/trash/delete", url.Values{"path": {"Gone.md"}, "confirm": {"yes"}}},
	} {
		b.get("/console/apps")
		resp, body := b.post(tc.path, tc.form)
		want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`, `id="totp-form"`, `id="recovery-form"`,
			`href="/console/activity"`, `id="pending-what"`)
		if strings.Contains(body, "/login?") {
			t.Errorf("%s: the sign-in leaves the page", tc.path)
		}
	}
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 0 {
		t.Fatalf("a token was made without a fresh sign-in: %+v", toks)
	}

	// The token form: sign in on its page, and the token is made, shown once.
	b.get("/console/apps")
	resp, body := b.post("/console/tokens", url.Values{"name": {"tablet"}})
	want(t, resp, body, http.StatusForbidden, `id="pending-form"`, "tablet")
	old := b.Cookies["__Host-cortex-session"]
	resp = b.signInAgain(body)
	if b.Cookies["__Host-cortex-session"] == old {
		t.Fatal("session id not rotated")
	}
	pending := resp.Header.Get("Location")
	// Opening the page after the sign-in shows what waits and a button;
	// it does nothing by itself.
	resp, body = b.get(pending)
	want(t, resp, body, http.StatusOK, `id="pending-do"`, `action="`+pending+`"`, "tablet", `href="/console/apps"`)
	resp, body = b.get(pending)
	want(t, resp, body, http.StatusOK, `id="pending-do"`)
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 0 {
		t.Fatalf("opening the page after the sign-in made a token: %+v", toks)
	}
	resp, body = b.post(pending, url.Values{})
	want(t, resp, body, http.StatusSeeOther)
	result := resp.Header.Get("Location")
	resp, body = b.get(result)
	want(t, resp, body, http.StatusOK, `id="token-secret">ctx_`)
	// Opening the pending form again does nothing new.
	resp, _ = b.get(pending)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, result) {
		t.Fatalf("pending opened again: %d %q", resp.StatusCode, loc)
	}
	// Pressing the button again (back, then press) does nothing new either.
	resp, _ = b.post(pending, url.Values{})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, result) {
		t.Fatalf("pending sent again: %d %q", resp.StatusCode, loc)
	}
	resp, body = b.get(result)
	want(t, resp, body, http.StatusOK, `id="token-secret-gone"`)
	if strings.Contains(body, "ctx_") {
		t.Fatal("the secret is shown twice")
	}
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 1 {
		t.Fatalf("tokens %+v, want only tablet", toks)
	}

	// The old session is gone: a browser still holding it is signed out.
	stale := h.browser()
	stale.Cookies["__Host-cortex-session"] = old
	resp, _ = stale.get("/console/apps")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("old session still opens the console: %d", resp.StatusCode)
	}
	// A pending id nobody kept is a clear page.
	resp, body = b.get("/console/pending/NOSUCHFORM")
	want(t, resp, body, http.StatusNotFound, `data-code="form_gone"`)
	resp, body = b.post("/console/pending/NOSUCHFORM", url.Values{})
	want(t, resp, body, http.StatusNotFound, `data-code="form_gone"`)
}

// The button after the sign-in is a form like the others: without the
// page's CSRF token it does nothing, and once the sign-in is no longer
// recent it asks for the sign-in again instead of acting.
func TestPendingButtonGuarded(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	b := h.browser()
	b.signIn()
	h.Clock.Advance(RecentSignIn)
	b.get("/console/apps")
	resp, body := b.post("/console/tokens", url.Values{"name": {"tablet"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
	pending := b.signInAgain(body).Header.Get("Location")
	resp, body = b.get(pending)
	want(t, resp, body, http.StatusOK, `id="pending-do"`)

	resp, body = b.post(pending, url.Values{"csrf": {"forged"}})
	want(t, resp, body, http.StatusForbidden, `data-code="bad_csrf"`)
	h.Clock.Advance(RecentSignIn)
	resp, body = b.post(pending, url.Values{})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`, "tablet")
	if link(t, pendingRE, body) != pending {
		t.Errorf("the sign-in again waits as another form, not %s", pending)
	}
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 0 {
		t.Fatalf("a token was made: %+v", toks)
	}
}

// The ticks of a bulk undo survive the sign-in: after it, the ticked
// conflict is undone too.
func TestSignInAgainKeepsBulkUndoTicks(t *testing.T) {
	h := newHarness(t, map[string]string{"A.md": "alpha\n", "B.md": "beta\n"})
	h.Call("claude", "edit_note", map[string]any{"id": "A.md", "version": h.Version("A.md"), "old_text": "alpha", "new_text": "ALPHA"})
	h.Call("claude", "edit_note", map[string]any{"id": "B.md", "version": h.Version("B.md"), "old_text": "beta", "new_text": "BETA"})
	h.Call("chatgpt", "append", map[string]any{"id": "B.md", "text": "later\n"})
	b := h.browser()
	b.signIn()
	h.Clock.Advance(RecentSignIn)
	resp, body := b.get("/console/undo-app?app=claude")
	want(t, resp, body, http.StatusOK, `id="bulk-needs-sign-in"`, "Undo these changes (sign in again first)")
	resp, body = b.post("/console/undo-app", url.Values{"app": {"claude"}, "include": {"B.md"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`, "B.md")
	if strings.Contains(body, "B.md\"") || strings.Contains(pendingRE.FindString(body), "B.md") {
		t.Error("the ticks are in the page's URLs")
	}
	if h.Read("A.md") != "ALPHA\n" {
		t.Fatal("the bulk undo ran before the sign-in")
	}
	pending := b.signInAgain(body).Header.Get("Location")
	resp, body = b.get(pending)
	want(t, resp, body, http.StatusOK, `id="pending-do"`, "B.md")
	if h.Read("A.md") != "ALPHA\n" {
		t.Fatal("the bulk undo ran on opening the page after the sign-in")
	}
	resp, body = b.act(pending, url.Values{})
	want(t, resp, body, http.StatusOK, `id="result-title">Undone`)
	if a, bb := h.Read("A.md"), h.Read("B.md"); a != "alpha\n" || bb != "beta\n" {
		t.Fatalf("after signing in again: A.md %q, B.md %q; want both undone", a, bb)
	}
}

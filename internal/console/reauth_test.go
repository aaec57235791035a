package console

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

var (
	problemLinkRE = regexp.MustCompile(`<a href="([^"]+)" id="problem-link">Sign in again</a>`)
	pageReauthRE  = regexp.MustCompile(`<a href="([^"]+)" class="reauth">`)
)

// link returns the first submatch of re in body, unescaped, or fails.
func link(t *testing.T, re *regexp.Regexp, body string) string {
	t.Helper()
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %v in:\n%s", re, body)
	}
	return html.UnescapeString(m[1])
}

// A refusal for lack of a recent sign-in offers "Sign in again", which
// shows the sign-in form to the signed-in owner and brings them back to
// the page the refused form was on, in a new session.
func TestSignInAgainFromARefusal(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	b := h.browser()
	b.signIn()
	h.Clock.Advance(RecentSignIn)

	cases := []struct {
		path string
		form url.Values
		back string
	}{
		{"/console/tokens", url.Values{"name": {"tablet"}}, "/console/apps"},
		{"/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan.md"}}, "/notes/Plan.md"},
		{"/console/undo-app", url.Values{"app": {"claude"}, "since": {"2025-01-01"}}, "/console/undo-app?app=claude&since=2025-01-01"},
		{"/console/trash/delete", url.Values{"path": {"Gone.md"}}, "/console/trash"},
	}
	for _, tc := range cases {
		b.get("/console/apps")
		resp, body := b.post(tc.path, tc.form)
		want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
		if got, wantLoc := link(t, problemLinkRE, body), "/login?reauth=1&return="+url.QueryEscape(tc.back); got != wantLoc {
			t.Errorf("%s: link %q, want %q", tc.path, got, wantLoc)
		}
	}

	// The apps page offers the same, back to itself.
	resp, body := b.get("/console/apps")
	want(t, resp, body, http.StatusOK, `id="token-needs-sign-in"`)
	loc := link(t, pageReauthRE, body)
	if loc != "/login?reauth=1&return=%2Fconsole%2Fapps" {
		t.Fatalf("apps page link %q", loc)
	}
	resp, body = b.get(loc)
	want(t, resp, body, http.StatusOK, `id="reauth"`, `id="totp-form"`, `name="return" value="/console/apps"`)
	old := b.Cookies["__Host-cortex-session"]
	h.Clock.Advance(30 * time.Second)
	code := testkit.TOTP(t, h.setup.TOTPSecret, h.Clock.Now())
	resp, body = b.post("/login/totp", url.Values{"code": {code}, "return": {"/console/apps"}})
	want(t, resp, body, http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != "/console/apps" {
		t.Fatalf("after sign-in: %q", got)
	}
	if b.Cookies["__Host-cortex-session"] == old {
		t.Fatal("session id not rotated")
	}
	resp, body = b.get("/console/apps")
	want(t, resp, body, http.StatusOK)
	if pageReauthRE.MatchString(body) {
		t.Fatal("a fresh sign-in is told to sign in again")
	}
	resp, body = b.post("/console/tokens", url.Values{"name": {"tablet"}})
	want(t, resp, body, http.StatusOK, `id="token-secret">ctx_`)

	// The old session is gone: a browser still holding it is signed out.
	stale := h.browser()
	stale.Cookies["__Host-cortex-session"] = old
	resp, _ = stale.get("/console/apps")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("old session still opens the console: %d", resp.StatusCode)
	}
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 1 {
		t.Fatalf("tokens %+v, want only tablet", toks)
	}
}

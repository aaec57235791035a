package owner

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// A signed-in owner asked to sign in again (an action needs a recent
// sign-in) sees the sign-in forms instead of being sent straight on, and
// afterwards lands back on the page, in a new session that replaced the
// old one.
func TestReauthShowsFormsRotatesSessionAndReturns(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	first := b.Cookies[sessionCookie]
	h.clk.Advance(10 * time.Minute)

	const back = "/console/undo-app?app=claude&since=2025-06-01"
	loc := ReauthURL(back)
	if loc != "/login?reauth=1&return="+url.QueryEscape(back) {
		t.Fatalf("ReauthURL = %q", loc)
	}
	for round, method := range []string{"totp", "recovery"} {
		before := b.Cookies[sessionCookie]
		resp := b.Get(loc)
		wantStatus(t, resp, http.StatusOK)
		body := testkit.Body(resp)
		if !strings.Contains(body, `id="reauth"`) || !strings.Contains(body, `id="totp-form"`) || strings.Contains(body, `id="signed-in"`) {
			t.Fatalf("round %d: reauth page does not offer sign-in:\n%s", round, body)
		}
		if !strings.Contains(body, `name="return" value="/console/undo-app?app=claude&amp;since=2025-06-01"`) {
			t.Fatalf("round %d: return path not carried:\n%s", round, body)
		}
		// The page's forms work with the signed-in browser's CSRF token.
		h.nextStep()
		v := url.Values{"return": {back}}
		if method == "totp" {
			v.Set("code", h.code())
			resp = b.PostForm("/login/totp", v)
		} else {
			v.Set("code", h.setup.RecoveryCodes[0])
			resp = b.PostForm("/login/recovery", v)
		}
		wantStatus(t, resp, http.StatusSeeOther)
		if got := resp.Header.Get("Location"); got != back {
			t.Fatalf("round %d: after sign-in went to %q, want %q", round, got, back)
		}
		now := b.Cookies[sessionCookie]
		if now == "" || now == before || now == first {
			t.Fatalf("round %d: session id not rotated", round)
		}
		s, ok := b.signedIn()
		if !ok || s.Method != method || !s.Created.Equal(h.clk.Now()) {
			t.Fatalf("round %d: new session %+v ok=%v, want fresh by %s", round, s, ok, method)
		}
		// The old session ended: its cookie no longer signs anyone in.
		old := h.browser("198.51.100.7:4000")
		old.Cookies[sessionCookie] = before
		if _, ok := old.signedIn(); ok {
			t.Fatalf("round %d: old session still valid", round)
		}
		wantStatus(t, old.Get("/login?return=%2Fconsole%2Fapps"), http.StatusOK) // not sent on: signed out
		h.clk.Advance(10 * time.Minute)
	}

	// Without reauth=1 a signed-in owner is still sent straight on.
	resp := b.Get("/login?return=" + url.QueryEscape(back))
	wantStatus(t, resp, http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != back {
		t.Fatalf("plain login page sent a signed-in owner to %q", got)
	}
}

// Reauth keeps the return path limited to this server.
func TestReauthRefusesOffSiteReturn(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	for _, bad := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"} {
		if got := ReauthURL(bad); got != "/login?reauth=1" {
			t.Errorf("ReauthURL(%q) = %q", bad, got)
		}
		resp := b.Get("/login?reauth=1&return=" + url.QueryEscape(bad))
		wantStatus(t, resp, http.StatusOK)
		body := testkit.Body(resp)
		if !strings.Contains(body, `id="reauth"`) || strings.Contains(body, "evil.example") {
			t.Fatalf("return %q: page:\n%s", bad, body)
		}
		h.nextStep()
		resp = b.PostForm("/login/totp", url.Values{"code": {h.code()}, "return": {bad}})
		wantStatus(t, resp, http.StatusSeeOther)
		if got := resp.Header.Get("Location"); got != "/login" {
			t.Errorf("return %q led to %q", bad, got)
		}
	}
	// A wrong code on the reauth page changes nothing: the session stays.
	cur := b.Cookies[sessionCookie]
	b.Get("/login?reauth=1")
	h.nextStep()
	resp := b.PostForm("/login/totp", url.Values{"code": {"000000"}})
	if resp.StatusCode == http.StatusSeeOther {
		t.Fatal("wrong code accepted")
	}
	if b.Cookies[sessionCookie] != cur {
		t.Fatal("a refused sign-in replaced the session")
	}
	if _, ok := b.signedIn(); !ok {
		t.Fatal("a refused sign-in ended the session")
	}
}

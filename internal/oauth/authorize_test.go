package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

const claudeCallback = "https://claude.ai/api/mcp/auth_callback"

func TestAuthorizeRules(t *testing.T) {
	h := newHarness(t, nil)
	client := h.dcr("claude.ai", claudeCallback, "http://127.0.0.1:33418/callback")
	p := newPKCE("abc")
	tests := []struct {
		name string
		mod  func(url.Values)
		// page: an error page with this code and no redirect; else a
		// redirect to the client with error (or the consent page when "").
		page, err string
	}{
		{"good request", nil, "", ""},
		{"unknown client", func(q url.Values) { q.Set("client_id", "cx_nobody") }, "unknown_client", ""},
		{"missing client", func(q url.Values) { q.Del("client_id") }, "unknown_client", ""},
		{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "https://claude.ai/other") }, "bad_redirect_uri", ""},
		{"redirect with extra path", func(q url.Values) { q.Set("redirect_uri", claudeCallback+"/x") }, "bad_redirect_uri", ""},
		{"loopback on another port", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:51000/callback") }, "", ""},
		{"loopback on another path", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:51000/other") }, "bad_redirect_uri", ""},
		{"duplicate parameter", func(q url.Values) { q.Add("state", "two") }, "invalid_request", ""},
		{"state too long", func(q url.Values) { q.Set("state", strings.Repeat("s", 2049)) }, "invalid_request", ""},
		{"state at the limit", func(q url.Values) { q.Set("state", strings.Repeat("s", 2048)) }, "", ""},
		{"implicit flow", func(q url.Values) { q.Set("response_type", "token") }, "", "unsupported_response_type"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "", "invalid_request"},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "", "invalid_request"},
		{"PKCE method missing", func(q url.Values) { q.Del("code_challenge_method") }, "", "invalid_request"},
		{"malformed challenge", func(q url.Values) { q.Set("code_challenge", "short") }, "", "invalid_request"},
		{"other resource", func(q url.Values) { q.Set("resource", "https://evil.example/mcp") }, "", "invalid_target"},
		{"resource with slash", func(q url.Values) { q.Set("resource", testPublicURL+"/mcp/") }, "", "invalid_target"},
		// Scheme and host are case-insensitive (RFC 3986 §6.2.2.1; MCP:
		// servers SHOULD accept them in upper case); the path is not.
		{"resource with upper-case scheme and host", func(q url.Values) { q.Set("resource", "HTTPS://Cortex.EXAMPLE/mcp") }, "", ""},
		{"resource with upper-case path", func(q url.Values) { q.Set("resource", testPublicURL+"/MCP") }, "", "invalid_target"},
		// Only ASCII letters fold: "ſ" (long s) is no "s" in a URL.
		{"resource with a long s in its scheme", func(q url.Values) { q.Set("resource", "http\u017f://cortex.example/mcp") }, "", "invalid_target"},
		{"no resource: defaults to /mcp", func(q url.Values) { q.Del("resource") }, "", ""},
		{"no scope: default scope", func(q url.Values) { q.Del("scope") }, "", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := h.browser(fmt.Sprintf("192.0.2.%d:1", i+1))
			resp := b.Get(authURL(client, claudeCallback, p, tt.mod))
			loc := resp.Header.Get("Location")
			switch {
			case tt.page != "":
				if resp.StatusCode < 400 || loc != "" || !strings.Contains(testkit.Body(resp), `data-code="`+tt.page+`"`) {
					t.Fatalf("want error page %s, got %d Location=%q\n%s", tt.page, resp.StatusCode, loc, testkit.Body(resp))
				}
			case tt.err != "":
				u, _ := url.Parse(loc)
				q := u.Query()
				if resp.StatusCode != http.StatusSeeOther || q.Get("error") != tt.err || q.Get("state") != "st-1" ||
					q.Get("iss") != testPublicURL || !strings.HasPrefix(loc, claudeCallback+"?") {
					t.Fatalf("want redirect with error %s, got %d %s", tt.err, resp.StatusCode, loc)
				}
			default:
				if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/authorize/consent?request=") {
					t.Fatalf("want consent, got %d %s %s", resp.StatusCode, loc, testkit.Body(resp))
				}
			}
		})
	}
}

func TestAuthorizeOnlyGET(t *testing.T) {
	h := newHarness(t, nil)
	resp := h.call("192.0.2.1:1", http.MethodPost, "/authorize", "application/x-www-form-urlencoded", "client_id=x", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST /authorize: %d Allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestConsentFlow(t *testing.T) {
	h := newHarness(t, nil)
	loop := "http://127.0.0.1:33418/callback"
	client := h.dcr("Claude Code", loop)
	p := newPKCE("xyz")
	b := h.browser("192.0.2.10:1")

	// Signed out: the consent page sends the browser to sign in and back.
	resp := b.follow(authURL(client, loop, p, func(q url.Values) { q.Del("scope") }))
	if !strings.Contains(testkit.Body(resp), `id="totp-form"`) {
		t.Fatalf("expected the login page, got %d %s", resp.StatusCode, testkit.Body(resp))
	}
	ret := b.Cookies // the login form carries the return path
	_ = ret
	login := b.PostForm("/login/totp", url.Values{"code": {h.code()}, "return": {returnOf(t, testkit.Body(resp))}})
	resp = b.follow(login.Header.Get("Location"))
	page := testkit.Body(resp)
	for _, want := range []string{`id="client-name">Claude Code<`, `id="redirect-host">127.0.0.1:33418<`, `id="loopback-warning"`,
		"<code>notes:read</code>", "<code>notes:write</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %s", want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:33418;") {
		t.Errorf("CSP %q does not let the answer go to the client", csp)
	}

	// Another browser, even signed in, cannot see or answer this request.
	other := h.browser("192.0.2.11:1")
	other.signIn()
	other.request = b.request
	other.Get("/login")
	if r := other.PostForm("/authorize/consent", url.Values{"request": {b.request}, "decision": {"approve"}}); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("another browser answered: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	// A form without the CSRF token is refused.
	if r := b.PostForm("/authorize/consent", url.Values{"request": {b.request}, "decision": {"approve"}, "csrf": {"x"}}); r.StatusCode != http.StatusForbidden {
		t.Fatalf("bad CSRF: %d", r.StatusCode)
	}
	u := b.decide("deny")
	if u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "st-1" || u.Query().Get("iss") != testPublicURL {
		t.Fatalf("deny redirect: %s", u)
	}
	// The request is consumed.
	if r := b.PostForm("/authorize/consent", url.Values{"request": {b.request}, "decision": {"approve"}}); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("second answer: %d", r.StatusCode)
	}

	code := h.approve(b, authURL(client, loop, p, nil))
	st, tok := h.exchange(client, code, loop, p)
	if st != http.StatusOK || str(tok, "token_type") != "Bearer" || tok["expires_in"].(float64) != 3600 ||
		str(tok, "scope") != DefaultScope || !strings.HasPrefix(str(tok, "access_token"), "cxa_") {
		t.Fatalf("exchange: %d %v", st, tok)
	}
}

// returnOf reads the return path from the login page's form.
func returnOf(t *testing.T, page string) string {
	i := strings.Index(page, `name="return" value="`)
	if i < 0 {
		t.Fatal("login page without return path")
	}
	rest := page[i+len(`name="return" value="`):]
	v := rest[:strings.Index(rest, `"`)]
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#61;", "=").Replace(v)
}

func TestSuccessRedirectCarriesEachParameterOnce(t *testing.T) {
	h := newHarness(t, nil)
	cb := "https://chatgpt.com/connector/oauth/abc_DEF-123"
	client := h.dcr("ChatGPT", cb)
	b := h.browser("192.0.2.20:1")
	b.signIn()
	resp := b.follow(authURL(client, cb, newPKCE("q"), nil))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	u := b.decide("approve")
	q := u.Query()
	if len(q["code"]) != 1 || len(q["state"]) != 1 || len(q["iss"]) != 1 || q.Get("iss") != testPublicURL ||
		u.Scheme+"://"+u.Host+u.Path != cb {
		t.Fatalf("success redirect: %s", u)
	}
}

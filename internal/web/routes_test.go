package web

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
)

// withSite adds the owner's pages and the authorization server to the
// harness's routes, over a real state database.
func withSite(t *testing.T) func(*Options) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := owner.Setup(context.Background(), st, config.MustParsePublicURL(testPublicURL), false, nil); err != nil {
		t.Fatal(err)
	}
	own, err := owner.New(owner.Options{Store: st, PublicURL: config.MustParsePublicURL(testPublicURL)})
	if err != nil {
		t.Fatal(err)
	}
	as, err := oauth.New(oauth.Options{Store: st, Owner: own, PublicURL: config.MustParsePublicURL(testPublicURL)})
	if err != nil {
		t.Fatal(err)
	}
	return func(o *Options) { o.Owner, o.OAuth = own, as }
}

// Each route's kind decides which origins may call it and how a refusal
// reads: the cookie-free OAuth endpoints answer any origin, the pages and
// /mcp only their own; a page's refusal is a page, /mcp's a JSON-RPC error,
// the OAuth endpoints' an RFC 6749 error.
func TestRouteKinds(t *testing.T) {
	h := newHarness(t, withSite(t))
	foreign := func(method, path, ctype, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "https://notes.example.com"+path, strings.NewReader(body))
		r.Header.Set("Origin", "https://app.example")
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		return h.do(r)
	}
	for _, tc := range []struct {
		method, path, ctype, body string
		status                    int
		want                      string // in the body
	}{
		{"GET", "/.well-known/oauth-authorization-server", "", "", 200, `"issuer":"https://notes.example.com"`},
		{"GET", "/.well-known/oauth-protected-resource/mcp", "", "", 200, `"resource":"https://notes.example.com/mcp"`},
		{"OPTIONS", "/token", "", "", 204, ""},
		{"POST", "/token", "application/x-www-form-urlencoded", "grant_type=password", 401, `"error":"invalid_client","error_description"`},
		{"POST", "/revoke", "application/x-www-form-urlencoded", "", 401, `"error":"invalid_client"`},
		{"POST", "/login/totp", "application/x-www-form-urlencoded", "code=123456", 403, `data-code="forbidden_origin"`},
		{"GET", "/authorize", "", "", 403, `data-code="forbidden_origin"`},
		{"POST", "/login/passkey/begin", "application/json", "{}", 403, `"error":"forbidden_origin"`},
		{"POST", "/mcp", "application/json", initializeBody, 403, `"data":{"code":"forbidden_origin"}`},
	} {
		w := foreign(tc.method, tc.path, tc.ctype, tc.body)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s %s from another origin: %d, want %d with %s; body %s", tc.method, tc.path, w.Code, tc.status, tc.want, w.Body)
		}
	}
	// Every kind refuses a foreign Host, in its own format.
	for path, want := range map[string]string{"/login": `data-code="forbidden_host"`, "/token": `"error":"forbidden_host"`,
		"/mcp": `"data":{"code":"forbidden_host"}`, "/healthz": `"error":"forbidden_host"`} {
		r := httptest.NewRequest("GET", "http://rebound.evil.example"+path, nil)
		if w := h.do(r); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s for a foreign Host: %d %s, want 403 with %s", path, w.Code, w.Body, want)
		}
	}
	// The owner's pages are reached through the route table.
	if w := h.do(httptest.NewRequest("GET", "https://notes.example.com/login", nil)); w.Code != 200 || !strings.Contains(w.Body.String(), `id="totp-form"`) {
		t.Errorf("/login: %d", w.Code)
	}
	if !strings.Contains(h.log.String(), "code=forbidden_origin") {
		t.Errorf("the refusals' codes are not in the request log:\n%s", h.log.String())
	}
}

// The pages a browser of this site asks for compressed come gzipped, from
// the one middleware stack; /mcp's answers never do.
func TestPagesCompressed(t *testing.T) {
	h := newHarness(t, withSite(t))
	get := func(path, site string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", testPublicURL+path, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		return h.do(r)
	}
	w := get("/login", "none")
	if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("the sign-in page: %d, Content-Encoding %q, Vary %q", w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || !strings.Contains(string(b), "</html>") {
		t.Fatalf("the page unzipped: %v\n%.300s", err, b)
	}
	if w := get("/login", "cross-site"); w.Header().Get("Content-Encoding") != "" || !strings.Contains(w.Body.String(), "</html>") {
		t.Errorf("a page another site asked for: Content-Encoding %q", w.Header().Get("Content-Encoding"))
	}
}

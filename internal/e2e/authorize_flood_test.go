package e2e

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// TestAuthorizeFloodSendsTheOwnerThroughSignIn: while strangers spend the
// /authorize budget of an address, the owner's new browser (no cookies) at
// that address gets the 429 page, and its link leads through sign-in back
// to the same request, which the signed-in owner passes to the consent page.
func TestAuthorizeFloodSendsTheOwnerThroughSignIn(t *testing.T) {
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)
	redirect := "http://127.0.0.1:43119/callback"
	clientID := registerPublicClient(t, in, "e2e flood app", redirect)
	authorize := "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {clientID},
		"redirect_uri": {redirect}, "state": {"st-flood"}, "scope": {"notes:read"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(strings.Repeat("v", 43))}, "code_challenge_method": {"S256"},
		"resource": {in.URL + "/mcp"}}.Encode()

	// Strangers at this address (loopback, like everyone in this test).
	stranger := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	refused := false
	for i := 0; i < 50 && !refused; i++ {
		resp, err := stranger.Get(in.URL + authorize)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		refused = resp.StatusCode == http.StatusTooManyRequests
	}
	if !refused {
		t.Fatal("50 requests without cookies never spent the /authorize budget")
	}

	b := newOwnerBrowser(in.URL)
	resp, err := b.c.Get(in.URL + authorize)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the owner's new browser: %d (Retry-After %q), want 429 while the budget is spent", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	m := regexp.MustCompile(`<a href="([^"]+)" id="problem-link">`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the 429 page has no way to sign in:\n%s", page)
	}
	link := html.UnescapeString(string(m[1]))
	if want := "/login?return=" + url.QueryEscape(authorize); link != want {
		t.Fatalf("the 429 page links to %q, want %q", link, want)
	}

	// Follow the link, sign in, come back: the consent page.
	get, _ := http.NewRequest(http.MethodGet, in.URL+link, nil)
	login, _, _, err := b.visit(get)
	if err != nil {
		t.Fatalf("the login page: %v", err)
	}
	formID, action, code := owner.withTOTP()()
	v, ok := formValues(login, formID)
	if !ok || v.Get("return") != authorize {
		t.Fatalf("the login form does not carry the way back (%v):\n%s", v, login)
	}
	v.Set("code", code)
	consent, away, visited, err := b.visit(b.post(action, v))
	if err != nil || away != nil || !strings.Contains(consent, `id="consent-form"`) {
		t.Fatalf("after sign-in (visited %v, away %v, %v): want the consent page\n%s", visited, away, err, consent)
	}
	if !strings.Contains(in.logs.String(), "path=/authorize status=429") || !strings.Contains(in.logs.String(), "code=rate_limited") {
		t.Errorf("the refusals are not in the request log with their code:\n%s", in.logs.String())
	}
}

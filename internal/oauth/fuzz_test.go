package oauth

import (
	"testing"
)

func FuzzRedirect(f *testing.F) {
	for _, s := range []string{"https://claude.ai/api/mcp/auth_callback", "https://chatgpt.com/connector/oauth/abc",
		"http://127.0.0.1:8080/cb", "http://[::1]/x", "myapp://cb", "javascript:alert(1)", "https://a/%zz", "http://localhost:99999/"} {
		f.Add(s)
	}
	a, err := newAllowlist(DefaultRedirectAllowlist)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		ok := a.permits(uri)
		if ok && !matchRedirect([]string{uri}, uri) {
			t.Fatalf("%q is allowed but does not match itself", uri)
		}
		redirectHost(uri)
		formActionSource(uri)
		ParseRedirectAllowlist(uri)
	})
}

func FuzzParseDocument(f *testing.F) {
	f.Add(claudeDoc)
	f.Add(`{"client_id":"https://example.com/c","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[]}}`)
	f.Add(`{"client_id":1}`)
	f.Add(`[]`)
	h := newHarness(f, nil)
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := h.srv.parseDocument("https://example.com/oauth/mcp-oauth-client-metadata", []byte(doc))
		if err != nil {
			return
		}
		if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirects || SanitizeName(c.Name, "") != c.Name {
			t.Fatalf("accepted document gives %+v", c)
		}
		for _, u := range c.RedirectURIs {
			if !h.srv.allow.permits(u) {
				t.Fatalf("kept redirect %q off the allowlist", u)
			}
		}
	})
}

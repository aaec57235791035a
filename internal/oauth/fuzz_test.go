package oauth

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
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

// FuzzChooseScope: whatever the consent form holds, the choice never
// grants more than asked, an app that asked only to read gets no write
// patterns, and what is stored reads back the same.
func FuzzChooseScope(f *testing.F) {
	f.Add("folders", "Work", "Inbox", "Journal/2026-*.md", "Inbox/**", true, true)
	f.Add("whole", "", "", "", "", false, true)
	f.Add("read", "", "", "", "", true, false)
	f.Add("folders", "[x", "!a", "a/../b", "**/", false, true)
	f.Fuzz(func(t *testing.T, access, readBox, writeBox, readPats, writePats string, private, canWrite bool) {
		asked := ScopeRead
		if canWrite {
			asked = DefaultScope
		}
		form := url.Values{"access": {access}, "read_patterns": {readPats}, "write_patterns": {writePats}}
		if readBox != "" {
			form["read"] = []string{readBox}
		}
		if writeBox != "" {
			form["write"] = []string{writeBox}
		}
		if private {
			form.Set("private", "1")
		}
		granted, vs, err := chooseScope(form, asked)
		if err != nil {
			return
		}
		if _, ok := subsetScope(asked, granted); !ok {
			t.Fatalf("granted %q beyond asked %q", granted, asked)
		}
		if !canWrite && (!vs.Write.Empty() || strings.Contains(granted, ScopeWrite)) {
			t.Fatalf("a read-only app got write: %q, %q", granted, vs.Describe())
		}
		back, err := scope.Decode(vs.Encode())
		if err != nil || back.Describe() != vs.Describe() {
			t.Fatalf("stored %q reads back as %q, %v", vs.Describe(), back.Describe(), err)
		}
	})
}

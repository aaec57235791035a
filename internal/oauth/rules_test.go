package oauth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
)

func TestRedirectAllowlist(t *testing.T) {
	a, err := newAllowlist(DefaultRedirectAllowlist)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		uri  string
		want bool
	}{
		{"https://claude.ai/api/mcp/auth_callback", true},
		{"https://claude.com/api/mcp/auth_callback", true},
		{"https://claude.ai/api/mcp/auth_callback/", false},
		{"https://claude.ai/api/mcp/auth_callback?x=1", false},
		{"https://claude.ai/api/mcp/auth_callback#f", false},
		{"http://claude.ai/api/mcp/auth_callback", false},
		{"https://claude.ai.evil.example/api/mcp/auth_callback", false},
		{"https://chatgpt.com/connector_platform_oauth_redirect", true},
		{"https://chatgpt.com/connector/oauth/abc_DEF-123", true},
		{"https://chatgpt.com/connector/oauth/" + strings.Repeat("a", 64), true},
		{"https://chatgpt.com/connector/oauth/" + strings.Repeat("a", 65), false},
		{"https://chatgpt.com/connector/oauth/", false},
		{"https://chatgpt.com/connector/oauth/a/b", false},
		{"https://chatgpt.com/connector/oauth/a.b", false},
		{"https://chatgpt.com/connector/oauth/..%2Fevil", false},
		{"https://chatgpt.com/connector/oauth/abc?next=evil", false},
		{"https://agent.meta.ai/api/hatch/oauth/callback", true},
		{"http://127.0.0.1:53682/callback", true},
		{"http://127.0.0.1/callback", true},
		{"http://localhost:3000/oauth/callback", true},
		{"http://[::1]:8080/cb", true},
		{"https://127.0.0.1:8080/cb", false},
		{"http://127.0.0.2:8080/cb", false},
		{"http://localhost.evil.example/cb", false},
		{"http://user@127.0.0.1/cb", false},
		{"javascript:alert(1)", false},
		{"https://evil.example/cb", false},
		{"", false},
		{"https://claude.ai/api/mcp/auth_callback\n", false},
	}
	for _, tt := range tests {
		if got := a.permits(tt.uri); got != tt.want {
			t.Errorf("permits(%q) = %v, want %v", tt.uri, got, tt.want)
		}
	}
}

func TestMatchRedirect(t *testing.T) {
	reg := []string{"http://127.0.0.1:4000/callback", "https://claude.ai/api/mcp/auth_callback", "http://localhost/cb?x=1"}
	tests := []struct {
		uri  string
		want bool
	}{
		{"http://127.0.0.1:4000/callback", true},
		{"http://127.0.0.1:59999/callback", true},
		{"http://127.0.0.1/callback", true},
		{"http://127.0.0.1:4000/other", false},
		{"http://[::1]:4000/callback", false},
		{"http://localhost:1234/cb?x=1", true},
		{"http://localhost:1234/cb?x=2", false},
		{"https://claude.ai/api/mcp/auth_callback", true},
		{"https://claude.ai:8443/api/mcp/auth_callback", false},
	}
	for _, tt := range tests {
		if got := matchRedirect(reg, tt.uri); got != tt.want {
			t.Errorf("matchRedirect(%q) = %v, want %v", tt.uri, got, tt.want)
		}
	}
}

func TestParseRedirectAllowlist(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"", len(DefaultRedirectAllowlist), false},
		{"defaults", len(DefaultRedirectAllowlist), false},
		{"defaults, https://app.example/cb", len(DefaultRedirectAllowlist) + 1, false},
		{"https://app.example/cb https://app.example/{id}/cb", 2, false},
		{"myapp://oauth/callback", 1, false},
		{"http://app.example/cb", 0, true},
		{"https://app.example/cb#x", 0, true},
		{"https://app.example/{id}/{id}", 0, true},
		{"relative/path", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseRedirectAllowlist(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && len(got) != tt.want) {
			t.Errorf("ParseRedirectAllowlist(%q) = %d entries, %v", tt.in, len(got), err)
		}
	}
}

func TestScopes(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 DefaultScope,
		"notes:read":                       ScopeRead,
		"notes:write notes:read":           DefaultScope,
		"offline_access openid":            DefaultScope,
		"notes:read offline_access claude": ScopeRead,
	} {
		if got := normalizeScope(in); got != want {
			t.Errorf("normalizeScope(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMetadataAndChallenge(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		var m map[string]any
		resp := h.call("192.0.2.1:1", http.MethodGet, path, "", "", nil)
		json.NewDecoder(resp.Body).Decode(&m)
		if m["resource"] != testPublicURL+"/mcp" || fmt.Sprint(m["authorization_servers"]) != "["+testPublicURL+"]" ||
			fmt.Sprint(m["bearer_methods_supported"]) != "[header]" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %v", path, m)
		}
	}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		var m map[string]any
		json.NewDecoder(h.call("192.0.2.1:1", http.MethodGet, path, "", "", nil).Body).Decode(&m)
		want := map[string]string{
			"issuer": testPublicURL, "authorization_endpoint": testPublicURL + "/authorize",
			"token_endpoint": testPublicURL + "/token", "registration_endpoint": testPublicURL + "/register",
			"revocation_endpoint": testPublicURL + "/revoke", "response_types_supported": "[code]",
			"grant_types_supported": "[authorization_code refresh_token]", "code_challenge_methods_supported": "[S256]",
			"token_endpoint_auth_methods_supported":          "[none client_secret_post client_secret_basic private_key_jwt]",
			"client_id_metadata_document_supported":          "true",
			"authorization_response_iss_parameter_supported": "true",
			"scopes_supported":                               "[notes:read notes:write offline_access]",
		}
		for k, v := range want {
			if got := fmt.Sprint(m[k]); got != v {
				t.Errorf("%s %s = %s, want %s", path, k, got, v)
			}
		}
	}
	if got := h.srv.Challenge(false); got != `Bearer resource_metadata="https://cortex.example/.well-known/oauth-protected-resource/mcp", scope="notes:read notes:write"` {
		t.Errorf("Challenge(false) = %s", got)
	}
	if got := h.srv.Challenge(true); !strings.Contains(got, `error="invalid_token"`) {
		t.Errorf("Challenge(true) = %s", got)
	}
	// The issuer is always the canonical form, however the URL was written:
	// clients compare it as a string.
	s, err := New(Options{Store: h.st, Owner: h.own, PublicURL: config.MustParsePublicURL("HTTPS://Cortex.example:443/")})
	if err != nil {
		t.Fatal(err)
	}
	if s.issuer != "https://cortex.example" || s.resource != "https://cortex.example/mcp" {
		t.Errorf("issuer %q resource %q, want the canonical https://cortex.example", s.issuer, s.resource)
	}
	if _, err := New(Options{Store: h.st, Owner: h.own}); err == nil {
		t.Error("a server without a public URL was built")
	}
}

func TestRegistrationRulesAndCaps(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Limits.MaxUnusedClients = 3
		o.Limits.RegisterPerSource = Rate{Burst: 2, PerMinute: 1}
	})
	reg := func(addr, body string) (int, map[string]any) {
		resp := h.call(addr, http.MethodPost, "/register", "application/json", body, nil)
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	good := `{"client_name":"x","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}`
	for _, tc := range []struct {
		body string
		err  string
	}{
		{`{"redirect_uris":["https://evil.example/cb"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":[]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, "invalid_client_metadata"},
		{`{"redirect_uris":["http://127.0.0.1/cb"],"grant_types":["client_credentials"]}`, "invalid_client_metadata"},
		{`{"redirect_uris":["http://127.0.0.1/cb"],"response_types":["token"]}`, "invalid_client_metadata"},
		{`not json`, "invalid_client_metadata"},
	} {
		if st, m := reg(fmt.Sprintf("203.0.113.%d:1", len(tc.body)%200), tc.body); st != 400 || m["error"] != tc.err {
			t.Errorf("%s: %d %v", tc.body, st, m)
		}
	}
	// RFC 7591 default: client_secret_basic, with a secret.
	if st, m := reg("203.0.113.201:1", `{"redirect_uris":["http://localhost:9/cb"],"client_name":"a\u202eb\ncd"}`); st != 201 ||
		m["token_endpoint_auth_method"] != "client_secret_basic" || m["client_secret"] == nil || m["client_name"] != "ab cd" {
		t.Errorf("default method: %d %v", st, m)
	}
	// Per-source budget, then the cap of never-used clients.
	src := "203.0.113.202:1"
	reg(src, good)
	if st, _ := reg(src, good); st != 201 {
		t.Fatalf("second from one source: %d", st)
	}
	if st, m := reg(src, good); st != 429 || m["error"] != "slow_down" {
		t.Fatalf("third from one source: %d %v", st, m)
	}
	if st, m := reg("203.0.113.203:1", good); st != 503 || m["error"] != "temporarily_unavailable" {
		t.Fatalf("past the cap: %d %v", st, m)
	}
	h.clk.Advance(11 * time.Minute)
	if st, _ := reg("203.0.113.203:1", good); st != 201 {
		t.Fatalf("after the oldest aged: %d", st)
	}
	n, _ := h.st.OAuthRowCounts(t.Context())
	if n["oauth_clients"] != 3 {
		t.Fatalf("clients: %d, want 3", n["oauth_clients"])
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"claude.ai":             "claude.ai",
		"  Chat\tGPT \n":        "Chat GPT",
		"evil\u202egnp.exe":     "evilgnp.exe",
		"\x00\x01":              "fallback",
		strings.Repeat("é", 80): strings.Repeat("é", 64),
	} {
		if got := SanitizeName(in, "fallback"); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// SEP-837: application_type is accepted in DCR, with OpenID Connect's rule
// for the redirect URIs each type may use; omitted, nothing is assumed, so
// clients that predate it keep registering.
func TestRegistrationApplicationType(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.RedirectAllowlist = append(slices.Clone(DefaultRedirectAllowlist), "com.example.app:/oauth")
		o.Limits.RegisterPerSource = Rate{Burst: 100, PerMinute: 100}
	})
	for _, tc := range []struct {
		typ, redirect string
		err           string
	}{
		{"native", "http://127.0.0.1:33418/callback", ""},
		{"native", "http://localhost/cb", ""},
		{"native", "http://[::1]:9/cb", ""},
		{"native", "com.example.app:/oauth", ""},
		{"native", "https://claude.ai/api/mcp/auth_callback", "invalid_redirect_uri"},
		{"web", "https://claude.ai/api/mcp/auth_callback", ""},
		{"web", "http://localhost:9/cb", "invalid_redirect_uri"},
		{"web", "com.example.app:/oauth", "invalid_redirect_uri"},
		{"", "http://localhost:9/cb", ""},
		{"", "https://claude.ai/api/mcp/auth_callback", ""},
		{"desktop", "http://localhost:9/cb", "invalid_client_metadata"},
	} {
		body := map[string]any{"client_name": "x", "redirect_uris": []string{tc.redirect}, "token_endpoint_auth_method": "none"}
		if tc.typ != "" {
			body["application_type"] = tc.typ
		}
		b, _ := json.Marshal(body)
		resp := h.call("203.0.113.9:1", http.MethodPost, "/register", "application/json", string(b), nil)
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		switch {
		case tc.err == "" && (resp.StatusCode != 201 || str(m, "application_type") != tc.typ):
			t.Errorf("%s %s: %d %v; want 201 echoing the type", tc.typ, tc.redirect, resp.StatusCode, m)
		case tc.err != "" && (resp.StatusCode != 400 || m["error"] != tc.err || !strings.Contains(str(m, "error_description"), "application_type")):
			t.Errorf("%s %s: %d %v; want 400 %s naming application_type", tc.typ, tc.redirect, resp.StatusCode, m, tc.err)
		}
	}
}

// SEP-2207: refresh tokens come with every grant; offline_access may be
// asked for (the authorization server lists it) but is never needed, and the
// protected resource does not list it, since refreshing is not about /mcp.
func TestOfflineAccess(t *testing.T) {
	h := newHarness(t, nil)
	meta := func(path string) map[string]any {
		var m map[string]any
		json.NewDecoder(h.call("192.0.2.1:1", http.MethodGet, path, "", "", nil).Body).Decode(&m)
		return m
	}
	if got := fmt.Sprint(meta("/.well-known/oauth-protected-resource/mcp")["scopes_supported"]); got != "[notes:read notes:write]" {
		t.Errorf("protected resource scopes_supported = %s", got)
	}
	if got := fmt.Sprint(meta("/.well-known/oauth-authorization-server")["scopes_supported"]); got != "[notes:read notes:write offline_access]" {
		t.Errorf("authorization server scopes_supported = %s", got)
	}
	client := h.dcr("claude.ai", claudeCallback)
	b := h.browser("192.0.2.30:1")
	b.signIn()
	for i, scope := range []string{"notes:read offline_access", "notes:read", "offline_access"} {
		p := newPKCE(fmt.Sprint("k", i))
		code := h.approve(b, authURL(client, claudeCallback, p, func(v url.Values) { v.Set("scope", scope) }))
		st, tok := h.exchange(client, code, claudeCallback, p)
		want := ScopeRead
		if scope == "offline_access" {
			want = DefaultScope
		}
		if st != 200 || str(tok, "refresh_token") == "" || str(tok, "scope") != want {
			t.Fatalf("scope %q: %d %v; want a refresh token and scope %q", scope, st, tok, want)
		}
		st, next := h.postForm("/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client},
			"refresh_token": {str(tok, "refresh_token")}, "scope": {scope}})
		if st != 200 || str(next, "refresh_token") == "" || str(next, "scope") != want {
			t.Fatalf("refresh asking %q: %d %v", scope, st, next)
		}
	}
}

func TestLimitsDefaults(t *testing.T) {
	if got := (Limits{}).withDefaults(); got != DefaultLimits {
		t.Errorf("zero limits: %+v, want the defaults", got)
	}
	set := Limits{RefreshGrace: time.Hour, TokenPerSource: Rate{Burst: 1, PerMinute: 1}}
	if got := set.withDefaults(); got.RefreshGrace != time.Minute || got.TokenPerSource != set.TokenPerSource || got.CodeTTL != DefaultLimits.CodeTTL {
		t.Errorf("set limits: %+v", got)
	}
}

package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// granted returns a harness with a public client and a fresh code for it.
func granted(t *testing.T) (*harness, string, string, pkce) {
	h := newHarness(t, nil)
	client := h.dcr("claude.ai", claudeCallback)
	p := newPKCE("k1")
	b := h.browser("192.0.2.30:1")
	b.signIn()
	return h, client, h.approve(b, authURL(client, claudeCallback, p, nil)), p
}

func TestCodeExchangeRules(t *testing.T) {
	other := newPKCE("other")
	tests := []struct {
		name    string
		mod     func(v url.Values, client string)
		advance time.Duration
		status  int
		err     string
	}{
		{"good", nil, 0, 200, ""},
		{"wrong verifier", func(v url.Values, _ string) { v.Set("code_verifier", other.verifier) }, 0, 400, "invalid_grant"},
		{"no verifier", func(v url.Values, _ string) { v.Del("code_verifier") }, 0, 400, "invalid_request"},
		{"other redirect", func(v url.Values, _ string) { v.Set("redirect_uri", "https://claude.com/api/mcp/auth_callback") }, 0, 400, "invalid_grant"},
		{"no redirect", func(v url.Values, _ string) { v.Del("redirect_uri") }, 0, 200, ""},
		{"other resource", func(v url.Values, _ string) { v.Set("resource", "https://evil.example/mcp") }, 0, 400, "invalid_target"},
		{"resource with upper-case scheme and host", func(v url.Values, _ string) { v.Set("resource", "HTTPS://CORTEX.example/mcp") }, 0, 200, ""},
		{"resource with upper-case path", func(v url.Values, _ string) { v.Set("resource", testPublicURL+"/Mcp") }, 0, 400, "invalid_target"},
		{"no resource", func(v url.Values, _ string) { v.Del("resource") }, 0, 200, ""},
		{"expired", nil, 61 * time.Second, 400, "invalid_grant"},
		{"at 59 s", nil, 59 * time.Second, 200, ""},
		{"unknown client", func(v url.Values, _ string) { v.Set("client_id", "cx_unknown") }, 0, 401, "invalid_client"},
		{"made-up code", func(v url.Values, _ string) { v.Set("code", newSecret(codePrefix)) }, 0, 400, "invalid_grant"},
		{"unsupported grant", func(v url.Values, _ string) { v.Set("grant_type", "password") }, 0, 400, "unsupported_grant_type"},
		{"duplicate code", func(v url.Values, _ string) { v.Add("code", "x") }, 0, 400, "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, client, code, p := granted(t)
			v := url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
				"redirect_uri": {claudeCallback}, "code_verifier": {p.verifier}, "resource": {testPublicURL + "/mcp"}}
			if tt.mod != nil {
				tt.mod(v, client)
			}
			h.clk.Advance(tt.advance)
			resp := h.call("198.51.100.7:1", http.MethodPost, "/token", "application/x-www-form-urlencoded", v.Encode(), nil)
			var out map[string]any
			json.NewDecoder(resp.Body).Decode(&out)
			if resp.StatusCode != tt.status || str(out, "error") != tt.err {
				t.Fatalf("got %d %v, want %d %s", resp.StatusCode, out, tt.status, tt.err)
			}
			if resp.Header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("headers %v", resp.Header)
			}
			if tt.status == 200 && (str(out, "refresh_token") == "" || str(out, "scope") != DefaultScope) {
				t.Errorf("token response %v", out)
			}
		})
	}
}

func TestCodeReplayRevokesItsTokens(t *testing.T) {
	h, client, code, p := granted(t)
	ctx := context.Background()
	st, tok := h.exchange(client, code, claudeCallback, p)
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	id, err := h.srv.VerifyAccessToken(ctx, str(tok, "access_token"))
	if err != nil || id.App != "claude.ai ("+client+")" || !id.HasScope(ScopeWrite) {
		t.Fatalf("verify: %+v %v", id, err)
	}
	st, out := h.exchange(client, code, claudeCallback, p)
	if st != 400 || str(out, "error") != "invalid_grant" {
		t.Fatalf("replayed code: %d %v", st, out)
	}
	if _, err := h.srv.VerifyAccessToken(ctx, str(tok, "access_token")); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("access token after code replay: %v", err)
	}
	if st, out := h.refresh(client, str(tok, "refresh_token")); st != 400 || str(out, "error") != "invalid_grant" {
		t.Fatalf("refresh after code replay: %d %v", st, out)
	}
}

func TestRefreshRules(t *testing.T) {
	h, client, code, p := granted(t)
	ctx := context.Background()
	_, first := h.exchange(client, code, claudeCallback, p)
	rt1 := str(first, "refresh_token")

	// A refresh without resource keeps the audience; the token rotates.
	st, second := h.refresh(client, rt1)
	if st != 200 || str(second, "refresh_token") == rt1 || str(second, "access_token") == str(first, "access_token") {
		t.Fatalf("rotation: %d %v", st, second)
	}
	// Refreshed twice at once (claude.ai does): the same pair within grace.
	h.clk.Advance(10 * time.Second)
	st, again := h.refresh(client, rt1)
	if st != 200 || str(again, "refresh_token") != str(second, "refresh_token") || str(again, "access_token") != str(second, "access_token") {
		t.Fatalf("within grace: %d %v", st, again)
	}
	if again["expires_in"].(float64) != 3590 {
		t.Errorf("expires_in within grace: %v", again["expires_in"])
	}
	// Another client cannot use it; narrower scope works; wider is refused.
	otherClient := h.dcr("other", claudeCallback)
	if st, out := h.refresh(otherClient, str(second, "refresh_token")); st != 400 || str(out, "error") != "invalid_grant" {
		t.Fatalf("other client: %d %v", st, out)
	}
	st, narrow := h.postForm("/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client},
		"refresh_token": {str(second, "refresh_token")}, "scope": {ScopeRead}, "resource": {testPublicURL + "/mcp"}})
	if st != 200 || str(narrow, "scope") != ScopeRead {
		t.Fatalf("narrower scope: %d %v", st, narrow)
	}
	id, err := h.srv.VerifyAccessToken(ctx, str(narrow, "access_token"))
	if err != nil || id.HasScope(ScopeWrite) {
		t.Fatalf("narrowed token: %+v %v", id, err)
	}
	// After the grace window, the old token revokes the whole family.
	h.clk.Advance(25 * time.Second)
	if st, out := h.refresh(client, rt1); st != 400 || str(out, "error") != "invalid_grant" {
		t.Fatalf("reuse after grace: %d %v", st, out)
	}
	for _, tok := range []string{str(second, "access_token"), str(narrow, "access_token")} {
		if _, err := h.srv.VerifyAccessToken(ctx, tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("token alive after family revoked: %v", err)
		}
	}
	if st, _ := h.refresh(client, str(narrow, "refresh_token")); st != 400 {
		t.Errorf("newest refresh token alive after family revoked")
	}
}

func TestExpiryRevocationAndClientRemoval(t *testing.T) {
	ctx := context.Background()
	h, client, code, p := granted(t)
	_, tok := h.exchange(client, code, claudeCallback, p)
	access := str(tok, "access_token")
	h.clk.Advance(59 * time.Minute)
	if _, err := h.srv.VerifyAccessToken(ctx, access); err != nil {
		t.Fatalf("at 59 min: %v", err)
	}
	h.clk.Advance(time.Minute)
	if _, err := h.srv.VerifyAccessToken(ctx, access); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("at 60 min: %v", err)
	}
	st, next := h.refresh(client, str(tok, "refresh_token"))
	if st != 200 {
		t.Fatalf("refresh after access expiry: %d %v", st, next)
	}
	// /revoke by the client itself ends the grant.
	if st, _ := h.postForm("/revoke", url.Values{"client_id": {client}, "token": {str(next, "refresh_token")}}); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	if _, err := h.srv.VerifyAccessToken(ctx, str(next, "access_token")); !errors.Is(err, ErrInvalidToken) {
		t.Fatal("access token alive after revocation")
	}
	if st, _ := h.postForm("/revoke", url.Values{"client_id": {client}, "token": {"garbage"}}); st != 200 {
		t.Fatalf("revoke of an unknown token: %d", st)
	}
	// Removing the client (cortex admin clients revoke) ends everything at once.
	b := h.browser("192.0.2.31:1")
	b.signIn()
	p2 := newPKCE("k2")
	_, tok2 := h.exchange(client, h.approve(b, authURL(client, claudeCallback, p2, nil)), claudeCallback, p2)
	if _, err := h.srv.VerifyAccessToken(ctx, str(tok2, "access_token")); err != nil {
		t.Fatal(err)
	}
	if err := h.st.DeleteOAuthClient(ctx, client); err != nil {
		t.Fatal(err)
	}
	if _, err := h.srv.VerifyAccessToken(ctx, str(tok2, "access_token")); !errors.Is(err, ErrInvalidToken) {
		t.Fatal("access token alive after its client was removed")
	}
	if st, out := h.refresh(client, str(tok2, "refresh_token")); st != 401 || str(out, "error") != "invalid_client" {
		t.Fatalf("refresh of a removed client: %d %v", st, out)
	}
	for _, bad := range []string{"", "ctx_abc", "cxa_short", "cxa_" + strings.Repeat("!", 43)} {
		if _, err := h.srv.VerifyAccessToken(ctx, bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestConfidentialClients(t *testing.T) {
	h := newHarness(t, nil)
	resp := h.call("203.0.113.9:1", http.MethodPost, "/register", "application/json",
		`{"client_name":"Meta AI","redirect_uris":["https://agent.meta.ai/api/hatch/oauth/callback"],"token_endpoint_auth_method":"client_secret_post"}`, nil)
	var reg map[string]any
	json.NewDecoder(resp.Body).Decode(&reg)
	secret, client := str(reg, "client_secret"), str(reg, "client_id")
	if resp.StatusCode != 201 || !strings.HasPrefix(secret, "cxs_") || reg["client_secret_expires_at"].(float64) != 0 {
		t.Fatalf("register: %d %v", resp.StatusCode, reg)
	}
	c, _ := h.st.OAuthClient(context.Background(), client)
	if strings.Contains(c.SecretHash, secret) || c.SecretHash == "" {
		t.Fatal("secret not stored hashed")
	}
	cb := "https://agent.meta.ai/api/hatch/oauth/callback"
	for _, tc := range []struct {
		name   string
		form   url.Values
		basic  [2]string
		status int
	}{
		{"post", url.Values{"client_secret": {secret}}, [2]string{}, 200},
		{"basic", url.Values{}, [2]string{client, secret}, 200},
		{"wrong secret", url.Values{"client_secret": {secret + "x"}}, [2]string{}, 401},
		{"no secret", url.Values{}, [2]string{}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := h.browser("192.0.2.40:1")
			b.signIn()
			p := newPKCE("m")
			code := h.approve(b, authURL(client, cb, p, nil))
			v := tc.form
			v.Set("grant_type", "authorization_code")
			v.Set("code", code)
			v.Set("code_verifier", p.verifier)
			hdr := http.Header{}
			if tc.basic[0] != "" {
				r, _ := http.NewRequest("POST", "/", nil)
				r.SetBasicAuth(url.QueryEscape(tc.basic[0]), url.QueryEscape(tc.basic[1]))
				hdr.Set("Authorization", r.Header.Get("Authorization"))
			} else {
				v.Set("client_id", client)
			}
			resp := h.call("198.51.100.8:1", http.MethodPost, "/token", "application/x-www-form-urlencoded", v.Encode(), hdr)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d %s", resp.StatusCode, testkit.Body(resp))
			}
		})
	}
}

// A grant is for the /mcp URL it was approved for. Once the public URL
// changed, its refresh token must fail with invalid_grant, so that the client
// authorizes again instead of refreshing into tokens /mcp refuses.
func TestRefreshAfterPublicURLChange(t *testing.T) {
	ctx := context.Background()
	h, client, code, p := granted(t)
	_, tok := h.exchange(client, code, claudeCallback, p)
	h.moveTo("https://notes.example.org")
	if _, err := h.srv.VerifyAccessToken(ctx, str(tok, "access_token")); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("access token for the old URL accepted: %v", err)
	}
	for _, v := range []url.Values{
		{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {str(tok, "refresh_token")}},
		{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {str(tok, "refresh_token")},
			"resource": {"https://notes.example.org/mcp"}},
	} {
		st, out := h.postForm("/token", v)
		if st != 400 || str(out, "error") != "invalid_grant" || !strings.Contains(str(out, "error_description"), "authorize again") {
			t.Fatalf("refresh of a grant for the old URL: %d %v", st, out)
		}
	}
	// Nothing was spent or revoked by the refusal: back at the old URL the
	// refresh token still works.
	h.moveTo(testPublicURL)
	if st, out := h.refresh(client, str(tok, "refresh_token")); st != 200 {
		t.Fatalf("refresh at the original URL: %d %v", st, out)
	}
}

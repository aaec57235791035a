package web

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestUnauthorizedShapes(t *testing.T) {
	tests := []struct {
		name          string
		authorization string
		metadataURL   string
		wantCode      string
		wantChallenge string
	}{
		{"no header", "", "", CodeUnauthorized, "Bearer"},
		{"other scheme", "Basic YTpi", "", CodeUnauthorized, "Bearer"},
		{"bearer without token", "Bearer", "", CodeUnauthorized, "Bearer"},
		{"three fields", "Bearer a b", "", CodeUnauthorized, "Bearer"},
		{"unknown token", "Bearer ctx_nope", "", CodeInvalidToken,
			`Bearer error="invalid_token", error_description="the token is unknown, expired or revoked"`},
		{"lower-case scheme, unknown token", "bearer ctx_nope", "", CodeInvalidToken,
			`Bearer error="invalid_token", error_description="the token is unknown, expired or revoked"`},
		{"no header, with metadata", "", "https://notes.example.com/.well-known/oauth-protected-resource", CodeUnauthorized,
			`Bearer resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource"`},
		{"unknown token, with metadata", "Bearer x", "https://notes.example.com/m", CodeInvalidToken,
			`Bearer resource_metadata="https://notes.example.com/m", error="invalid_token", error_description="the token is unknown, expired or revoked"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.ResourceMetadataURL = tt.metadataURL })
			for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				r := mcpRequest(method, "", "", initializeBody)
				if tt.authorization != "" {
					r.Header.Set("Authorization", tt.authorization)
				}
				w := h.do(r)
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("%s: status %d, want 401; body %s", method, w.Code, w.Body)
				}
				if got := w.Header().Get("WWW-Authenticate"); got != tt.wantChallenge {
					t.Errorf("%s: WWW-Authenticate %q, want %q", method, got, tt.wantChallenge)
				}
				code, msg := rpcError(t, w.Body.Bytes())
				if code != tt.wantCode || msg == "" {
					t.Errorf("%s: code %q message %q, want code %q", method, code, msg, tt.wantCode)
				}
			}
		})
	}
}

func TestToolSeesTokenInfo(t *testing.T) {
	h := newHarness(t, nil)
	ts := h.start(t)
	for _, tc := range []struct{ secret, app string }{{secretA, "app-a"}, {secretB, "app-b"}} {
		cs := mustConnect(t, ts, tc.secret)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
		if err != nil {
			t.Fatalf("whoami: %v", err)
		}
		var got whoami
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &got)
		if want := (whoami{UserID: "token:" + tc.app, App: tc.app}); got != want {
			t.Errorf("whoami = %+v, want %+v", got, want)
		}
	}
}

func TestRevokedTokenRefusedMidSession(t *testing.T) {
	h := newHarness(t, nil)
	ts := h.start(t)
	cs := mustConnect(t, ts, secretA)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"}); err != nil {
		t.Fatalf("whoami before revoke: %v", err)
	}

	h.tokens.revoke(secretA)

	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("whoami after revoke: err %v, want Unauthorized", err)
	}
	// The same refusal, seen on the wire, for every method.
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		w := h.do(mcpRequest(method, secretA, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s after revoke: status %d, WWW-Authenticate %q", method, w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}
}

func TestAuthFailureBudgetPerSource(t *testing.T) {
	h := newHarness(t, nil)
	h.proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	bad := func(remote, xff string) *http.Request {
		r := mcpRequest(http.MethodGet, "ctx_guess", "", "")
		r.RemoteAddr = remote
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		return r
	}
	for i := range authFailBurst {
		if w := h.do(bad("192.0.2.7:1000", "")); w.Code != http.StatusUnauthorized {
			t.Fatalf("bad try %d: status %d, want 401", i, w.Code)
		}
	}
	w := h.do(bad("192.0.2.7:1001", ""))
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("over budget: status %d Retry-After %q, want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	if code, _ := rpcError(t, w.Body.Bytes()); code != CodeRateLimited {
		t.Errorf("over budget: code %q", code)
	}
	// A valid token still passes: others behind the same address (a NAT, a
	// shared egress) must not be locked out by a guesser.
	good := mcpRequest(http.MethodGet, secretA, "", "")
	good.RemoteAddr = "192.0.2.7:1002"
	if w := h.do(good); w.Code == http.StatusTooManyRequests || w.Code == http.StatusUnauthorized {
		t.Errorf("good token from a spent address: status %d", w.Code)
	}
	// Other sources have their own budget, including clients behind a
	// local reverse proxy.
	if w := h.do(bad("192.0.2.8:1000", "")); w.Code != http.StatusUnauthorized {
		t.Errorf("other address: status %d, want 401", w.Code)
	}
	if w := h.do(bad("127.0.0.1:5000", "198.51.100.1, 192.0.2.7")); w.Code != http.StatusTooManyRequests {
		t.Errorf("spent address via proxy: status %d, want 429", w.Code)
	}
	if w := h.do(bad("127.0.0.1:5000", "192.0.2.7, 198.51.100.1")); w.Code != http.StatusUnauthorized {
		t.Errorf("fresh address via proxy: status %d, want 401", w.Code)
	}
	// A second later one more try is allowed (60 per minute).
	h.clock.Advance(1e9)
	if w := h.do(bad("192.0.2.7:1003", "")); w.Code != http.StatusUnauthorized {
		t.Errorf("after refill: status %d, want 401", w.Code)
	}
	if w := h.do(bad("192.0.2.7:1004", "")); w.Code != http.StatusTooManyRequests {
		t.Errorf("after refill spent: status %d, want 429", w.Code)
	}
}

func TestBindTokenInfoWithoutVerifiedToken(t *testing.T) {
	// bindTokenInfo never lets a request through that authenticate did not
	// pass, even if it were wired wrongly.
	reached := false
	h := bindTokenInfo(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	h.ServeHTTP(discard{}, mcpRequest(http.MethodPost, secretA, "", initializeBody))
	if reached {
		t.Fatal("request without verified TokenInfo reached the SDK")
	}
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

package web

import (
	"context"
	"net/http"
	"testing"
)

// SEP-2350: a 403 insufficient_scope names every scope the request needs in
// one challenge, not only the one missing, so that a client stepping up
// without adding up scopes itself still gets a token that does it all.
func TestInsufficientScopeNamesEveryScopeNeeded(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.ResourceMetadataURL = testPublicURL + "/.well-known/oauth-protected-resource/mcp"
		o.ChallengeScope = "notes:read notes:write"
		o.WriteScope = "notes:write"
		o.IsWriteTool = func(name string) bool { return name == "block" }
		o.Verify = func(_ context.Context, secret string) (Identity, error) {
			if secret != secretA {
				return Identity{}, ErrUnknownToken
			}
			return Identity{Subject: "oauth:1", App: "reader", Scopes: []string{"notes:read"}}, nil
		}
	})
	w := h.do(mcpRequest(http.MethodPost, secretA, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`))
	want := `Bearer resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/mcp", ` +
		`error="insufficient_scope", scope="notes:read notes:write"`
	if w.Code != http.StatusForbidden || w.Header().Get("WWW-Authenticate") != want {
		t.Fatalf("write call with notes:read: %d %q; want 403 %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
	if code, _ := rpcError(t, w.Body.Bytes()); code != CodeInsufficientScope {
		t.Errorf("code %q", code)
	}
	w = h.do(mcpRequest(http.MethodPost, secretA, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
	if w.Code != http.StatusOK {
		t.Errorf("read call with notes:read: %d %s", w.Code, w.Body)
	}
}

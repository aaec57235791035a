package web

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
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

// The scope check reads the body as the SDK will: a key the SDK does not
// take (another case, a second params, text after the message) must not
// make a write call look like another to the check while the SDK runs it.
func TestScopeCheckSeesTheCallTheSDKRuns(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.WriteScope = "notes:write"
		// whoami stands for a write tool here: the SDK answers it, so a
		// call that got past the check shows in the reply.
		o.IsWriteTool = func(name string) bool { return name == "whoami" }
		o.Verify = func(_ context.Context, secret string) (Identity, error) {
			if secret != secretA {
				return Identity{}, ErrUnknownToken
			}
			return Identity{Subject: "oauth:1", App: "reader", Scopes: []string{"notes:read"}}, nil
		}
	})
	ts := h.start(t)
	call := `"method":"tools/call","params":{"name":"whoami","arguments":{}}`
	for name, body := range map[string]string{
		"plain":                   `{"jsonrpc":"2.0","id":1,` + call + `}`,
		"name in another case":    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","Name":"other","arguments":{}}}`,
		"method in another case":  `{"jsonrpc":"2.0","id":1,` + call + `,"Method":"ping"}`,
		"params in another case":  `{"jsonrpc":"2.0","id":1,` + call + `,"Params":{"name":"other"}}`,
		"text after the message":  `{"jsonrpc":"2.0","id":1,` + call + `} x`,
		"a second name":           `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other","name":"whoami","arguments":{}}}`,
		"escaped name in another": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","N\u0061me":"other","arguments":{}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := mcpRequest(http.MethodPost, secretA, "2025-11-25", body)
			r.RequestURI = ""
			r.URL, _ = url.Parse(ts.URL + "/mcp")
			res, err := ts.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusForbidden || strings.Contains(string(got), `"app"`) {
				t.Errorf("a read-only token's call of a write tool: %d %s; want 403 insufficient_scope", res.StatusCode, got)
			}
		})
	}
}

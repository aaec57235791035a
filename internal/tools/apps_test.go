package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/appview"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// versions are the MCP versions the app tests run at: the last with an
// initialize handshake, and the first without sessions.
var versions = []string{"2025-11-25", "2026-07-28"}

// httpEnv serves an env's tools over real HTTP on loopback, statelessly
// as /mcp does, behind bearer tokens: "ui-token" and "plain-token" name
// two apps.
type httpEnv struct {
	*env
	url string
}

func newHTTPEnv(t *testing.T) *httpEnv {
	t.Helper()
	var d Deps
	e := newHistoryEnvDeps(t, func(x *Deps) { d = *x })
	servers := NewServers(d)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return servers.For("Keep notes short.") },
		&mcp.StreamableHTTPOptions{Stateless: true})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		app, ok := map[string]string{"ui-token": "phone", "plain-token": "script", "other-token": "laptop", "owner-token": "owner"}[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "sub-" + app, Extra: map[string]any{"app": app}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	// The owner's token sees private notes; the others, as a credential
	// without a scope, do not.
	owner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer owner-token" {
			r = r.WithContext(scope.NewContext(r.Context(), scope.All))
		}
		h.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(auth.RequireBearerToken(verify, nil)(owner))
	t.Cleanup(srv.Close)
	return &httpEnv{env: e, url: srv.URL}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// dial connects a real SDK client at version, offering the UI extension
// or not.
func (h *httpEnv) dial(t *testing.T, token, version string, ui bool) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	if ui {
		caps.AddExtension(uiExtension, map[string]any{"mimeTypes": []string{appview.MIMEType}})
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: h.url,
		HTTPClient: &http.Client{Transport: bearer{token}}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A client that does not offer the extension gets the tool list it got
// before the extension existed, byte for byte, and no resources.
func TestPlainClientSeesNoApp(t *testing.T) {
	h := newHTTPEnv(t)
	want, err := os.ReadFile(filepath.Join("testdata", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		// The same credential offered the extension before: what a
		// client offers now is what counts.
		h.dial(t, "plain-token", v, true)
		cs := h.dial(t, "plain-token", v, false)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.MarshalIndent(res.Tools, "", "  ")
		if !bytes.Equal(append(got, '\n'), want) {
			t.Errorf("%s: tools/list differs from testdata/tools.json", v)
		}
		if c := cs.InitializeResult().Capabilities; c.Resources != nil || c.Extensions != nil {
			t.Errorf("%s: capabilities %+v declare resources or extensions", v, c)
		}
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "undo_change", Arguments: map[string]any{}}); err == nil ||
			!strings.Contains(err.Error(), `unknown tool "undo_change"; cortex's tools are search,`) {
			t.Errorf("%s: undo_change from a plain client: %v, want unknown tool", v, err)
		}
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: appview.ChangeURI}); err == nil {
			t.Errorf("%s: a plain client read the change view", v)
		}
	}
}

// A client that offers the extension gets the views named on the tools
// that change notes and on fetch, the undo tool for the views only, and
// the views themselves.
func TestUIClientGetsViews(t *testing.T) {
	h := newHTTPEnv(t)
	for _, v := range versions {
		cs := h.dial(t, "ui-token", v, true)
		if c := cs.InitializeResult().Capabilities; c.Resources == nil || c.Extensions[uiExtension] == nil {
			t.Errorf("%s: capabilities %+v; want resources and the extension", v, c)
		}
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var model []string
		uris := map[string]string{}
		for _, tool := range res.Tools {
			ui, _ := tool.Meta["ui"].(map[string]any)
			if vis, _ := ui["visibility"].([]any); len(vis) == 1 && vis[0] == "app" {
				if tool.Name != "undo_change" {
					t.Errorf("%s: %s is app-only", v, tool.Name)
				}
			} else {
				model = append(model, tool.Name)
			}
			if u, ok := ui["resourceUri"].(string); ok {
				uris[tool.Name] = u
			}
		}
		if len(model) != 12 || slices.Contains(model, "undo_change") {
			t.Errorf("%s: the model is shown %d tools: %v", v, len(model), model)
		}
		for _, name := range []string{"create_note", "edit_note", "replace_section", "append", "update_frontmatter", "move_note", "delete_note", "undo_change"} {
			if uris[name] != appview.ChangeURI {
				t.Errorf("%s: %s names view %q", v, name, uris[name])
			}
		}
		if uris["fetch"] != appview.NoteURI || len(uris) != 9 {
			t.Errorf("%s: views %v", v, uris)
		}
		for _, uri := range []string{appview.ChangeURI, appview.NoteURI} {
			rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: read %s: %v", v, uri, err)
			}
			c := rr.Contents[0]
			csp, _ := json.Marshal(c.Meta["ui"])
			if c.MIMEType != appview.MIMEType || !strings.HasPrefix(c.Text, "<!DOCTYPE html>") ||
				string(csp) != `{"csp":{"baseUriDomains":[],"connectDomains":[],"frameDomains":[],"resourceDomains":[]},"prefersBorder":true}` {
				t.Errorf("%s: %s: type %q, meta %s", v, uri, c.MIMEType, csp)
			}
		}
		rl, err := cs.ListResources(t.Context(), nil)
		if err != nil || len(rl.Resources) != 2 {
			t.Errorf("%s: resources/list: %v %v", v, rl, err)
		}
	}
}

package tools

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bodies records the body of each response, by the request's Mcp-Method
// (or "legacy" before 2026-07-28, whose requests do not name it).
type bodies struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[r.Header.Get("Mcp-Method")] = body
	return resp, err
}

// The server's icon (a data URI) and description are sent once: in the
// answer to initialize, or to server/discover for a 2026-07-28 client, and
// not again in the serverInfo of every later result's _meta, which names
// the server only. Checked with the SDK client over HTTP at both versions.
func TestServerIconSentOnce(t *testing.T) {
	e := newEnv(t)
	e.write("Garden.md", "# Garden\n\nTomatoes in May.\n")
	srv := NewServer(Deps{Vault: e.v, Version: "test"}, "")
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(ts.Close)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			rec := &bodies{m: map[string][]byte{}}
			c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: rec},
				MaxRetries: -1, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if si := cs.InitializeResult().ServerInfo; si == nil || len(si.Icons) != 1 || si.Description == "" {
				t.Errorf("server info at connection = %+v; want the icon and the description", si)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "Garden"}})
			if err != nil || res.IsError {
				t.Fatalf("fetch: %v %+v", err, res)
			}
			meta, _ := json.Marshal(res.Meta)
			rec.mu.Lock()
			call := rec.m[map[string]string{"2025-11-25": "", "2026-07-28": "tools/call"}[v]]
			rec.mu.Unlock()
			t.Logf("tools/call answer: %d bytes, _meta %s", len(call), meta)
			if strings.Contains(string(call), "data:image") || strings.Contains(string(call), "Markdown notes") {
				t.Errorf("the fetch answer repeats the icon or description: %s", call)
			}
			if want := map[string]string{"2025-11-25": "null",
				"2026-07-28": `{"io.modelcontextprotocol/serverInfo":{"name":"cortex","title":"cortex notes","version":"test"}}`}[v]; string(meta) != want {
				t.Errorf("_meta = %s, want %s", meta, want)
			}
		})
	}
}

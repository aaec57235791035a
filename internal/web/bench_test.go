package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/web"
)

// stack is the real request path of cortex over loopback HTTP: web.Server in
// front of the tools, a real vault and a real state database, with a bearer
// token from the store. It exists so that the server's cost per call can be
// profiled (go test -bench MCP -cpuprofile) without the bench harness.
type stack struct {
	url, secret string
	http        *http.Client
	session     string
}

func newStack(tb testing.TB, notes int) *stack {
	tb.Helper()
	dir := tb.TempDir()
	for i := range notes {
		p := filepath.Join(dir, fmt.Sprintf("folder-%d", i%10), fmt.Sprintf("note-%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		body := fmt.Sprintf("---\ntags: [garden, plan]\n---\n# Note %d\n\n%s", i, strings.Repeat("Some words about the garden and the plan for the week.\n", 60))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tb.TempDir(), "state"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	secret, _, err := st.CreateToken(ctx, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	v, err := vault.Open(vault.Options{Dir: dir, MinFree: 1, Index: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String()
	deps := tools.Deps{Vault: v, Journal: tools.CacheJournal(st), PublicURL: url}
	srv, err := web.New(web.Options{
		PublicURL:     url,
		Tokens:        st,
		RatePerMinute: 1 << 30, RateBurst: 1 << 30,
		NewMCPServer: func(*http.Request) *mcp.Server { return tools.NewServer(deps, "") },
		IsWriteTool:  tools.IsWriteTool,
	})
	if err != nil {
		tb.Fatal(err)
	}
	hs.Config.Handler = srv.Handler()
	hs.Start()
	tb.Cleanup(hs.Close)
	s := &stack{url: url + "/mcp", secret: secret, http: hs.Client()}
	s.rpc(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	s.rpc(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// rpc posts one message and returns the response body (JSON or SSE).
func (s *stack) rpc(tb testing.TB, body string) []byte {
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("%s: %s", resp.Status, b)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		s.session = sid
	}
	return b
}

// BenchmarkMCPFetch is one fetch over HTTP through the whole server: token
// check, session, JSON-RPC, the tool and its journal lookup, vault.Read.
func BenchmarkMCPFetch(b *testing.B) {
	s := newStack(b, 100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		body := s.rpc(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"folder-%d/note-%d.md"}}}`, i+1, i%10, i%100))
		if !bytes.Contains(body, []byte(`"last_writer"`)) || bytes.Contains(body, []byte(`"isError":true`)) {
			b.Fatalf("bad result: %.300s", body)
		}
		i++
	}
}

// TestMCPFetchOverHTTP checks the stack the benchmark uses answers a fetch.
func TestMCPFetchOverHTTP(t *testing.T) {
	s := newStack(t, 3)
	body := s.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"folder-1/note-1.md"}}}`)
	i := bytes.IndexByte(body, '{')
	var r struct {
		Result struct {
			StructuredContent struct {
				ID       string `json:"id"`
				Metadata struct {
					LastWriter string `json:"last_writer"`
				} `json:"metadata"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if i < 0 {
		t.Fatalf("no JSON in %q", body)
	}
	if err := json.NewDecoder(bytes.NewReader(body[i:])).Decode(&r); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	if got := r.Result.StructuredContent; got.ID != "folder-1/note-1.md" || got.Metadata.LastWriter != "external" {
		t.Errorf("fetch = %+v", got)
	}
}

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

	"github.com/cortex-mcp/cortex/internal/config"
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
	version     string // the MCP protocol version of every request
}

func newStack(tb testing.TB, notes int, version string) *stack {
	tb.Helper()
	dir := writeNotes(tb, notes)
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
	url := config.MustParsePublicURL("http://" + hs.Listener.Addr().String())
	deps := tools.Deps{Vault: v, Journal: tools.CacheJournal(st), PublicURL: url}
	servers := tools.NewServers(deps)
	srv, err := web.New(web.Options{
		PublicURL:     url,
		Verify:        web.StoreVerifier(st),
		RatePerMinute: 1 << 30, RateBurst: 1 << 30,
		NewMCPServer: func(r *http.Request) *mcp.Server {
			instructions, _ := v.Instructions(r.Context())
			return servers.For(instructions)
		},
		IsWriteTool: tools.IsWriteTool,
	})
	if err != nil {
		tb.Fatal(err)
	}
	hs.Config.Handler = srv.Handler()
	hs.Start()
	tb.Cleanup(hs.Close)
	s := &stack{url: url.String() + "/mcp", secret: secret, http: hs.Client(), version: version}
	if version < "2026-07-28" {
		s.rpc(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		s.rpc(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return s
}

// writeNotes writes n notes of about 3 KB into a new folder.
func writeNotes(tb testing.TB, n int) string {
	dir := tb.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("folder-%d", i%10), fmt.Sprintf("note-%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		body := fmt.Sprintf("---\ntags: [garden, plan]\n---\n# Note %d\n\n%s", i, strings.Repeat("Some words about the garden and the plan for the week.\n", 60))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// call is a tools/call of tool with args as a client of s.version sends it.
func (s *stack) call(tb testing.TB, id int, tool, args string) []byte {
	meta := ""
	if s.version >= "2026-07-28" {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}`
	}
	return s.rpcAs(tb, "tools/call", tool, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta))
}

// rpc posts one message and returns the response body (JSON or SSE).
func (s *stack) rpc(tb testing.TB, body string) []byte { return s.rpcAs(tb, "", "", body) }

func (s *stack) rpcAs(tb testing.TB, method, name, body string) []byte {
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", s.version)
	if method != "" {
		req.Header.Set("Mcp-Method", method)
	}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
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
	return b
}

// BenchmarkMCPFetch is one fetch over HTTP through the whole server: token
// check, the instructions file, JSON-RPC, the tool and its journal lookup,
// vault.Read; for a client of each protocol version.
func BenchmarkMCPFetch(b *testing.B) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(v, func(b *testing.B) { benchFetch(b, v) })
	}
}

func benchFetch(b *testing.B, version string) {
	s := newStack(b, 100, version)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		body := s.call(b, i+1, "fetch", fmt.Sprintf(`{"id":"folder-%d/note-%d.md"}`, i%10, i%100))
		if !bytes.Contains(body, []byte(`"last_writer"`)) || bytes.Contains(body, []byte(`"isError":true`)) {
			b.Fatalf("bad result: %.300s", body)
		}
		i++
	}
}

// TestMCPFetchOverHTTP checks the stack the benchmark uses answers a fetch,
// for each protocol version.
func TestMCPFetchOverHTTP(t *testing.T) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) { testFetch(t, v) })
	}
}

func testFetch(t *testing.T, version string) {
	s := newStack(t, 3, version)
	body := s.call(t, 1, "fetch", `{"id":"folder-1/note-1.md"}`)
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

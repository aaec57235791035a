package web_test

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newNaiveStack is the floor BenchmarkMCPFetch is measured against: the
// same notes and client, but the least a server on the same go-sdk does to
// answer fetch with a bearer token (the SDK's stateless handler and bearer
// middleware, a typed tool that reads the file). Its allocations per call
// beside cortex's are cortex's own, independent of the machine's load.
func newNaiveStack(tb testing.TB, notes int, version string) *stack {
	tb.Helper()
	dir := writeNotes(tb, notes)
	root, err := os.OpenRoot(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { root.Close() })
	type in struct {
		ID string `json:"id" jsonschema:"the note's path"`
	}
	type out struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "naive", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fetch", Description: "Read a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, out, error) {
			b, err := root.ReadFile(in.ID)
			if err != nil {
				return nil, out{}, err
			}
			return nil, out{ID: in.ID, Title: in.ID, Text: string(b)}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	const secret = "naive-secret"
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(secret)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "bench"}, nil
	}
	hs := httptest.NewServer(auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h))
	tb.Cleanup(hs.Close)
	s := &stack{url: hs.URL, secret: secret, http: hs.Client(), version: version}
	if version < "2026-07-28" {
		s.rpc(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		s.rpc(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return s
}

// BenchmarkNaiveFetch is BenchmarkMCPFetch's calls on the naive server.
func BenchmarkNaiveFetch(b *testing.B) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(v, func(b *testing.B) {
			s := newNaiveStack(b, 100, v)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				body := s.call(b, i+1, "fetch", fmt.Sprintf(`{"id":"folder-%d/note-%d.md"}`, i%10, i%100))
				if !strings.Contains(string(body), `"structuredContent"`) || strings.Contains(string(body), `"isError":true`) {
					b.Fatalf("bad result: %.300s", body)
				}
				i++
			}
		})
	}
}

package bench

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The naive reference server: what a plain server on the same go-sdk does
// to answer a model's reads over HTTP with a bearer token, as a person
// would write one: the SDK's stateless handler with JSON answers (cortex's
// transport, so that the two differ only in the work behind the tools),
// the SDK's bearer middleware with one fixed token, and two tools that
// answer as text. fetch returns the note as read; search scans every note,
// held lowercased in memory from the start, for the query as a substring
// and lists the paths found. No output schema and no structured content:
// a typed tool (the output marshalled, unmarshalled and validated against
// its schema, marshalled again and copied into a text block) costs about
// as much as cortex's whole fetch, so a reference with that shape hides
// what cortex adds. No journal, no limits, no index, no log. `make bench`
// runs it beside cortex on the same vault with the same client, so the
// cost of cortex's own work per call is measured in one run. It is this
// test binary started again with the variables below set.
// CORTEX_BENCH_NAIVE_SESSIONS=1 gives it the SDK's default transport
// instead (sessions, answers as event streams; 2025-11-25 clients only):
// at 1 in flight the two cost the same within the noise of this machine.
const (
	naiveVaultEnv = "CORTEX_BENCH_NAIVE_VAULT"
	naiveTokenEnv = "CORTEX_BENCH_NAIVE_TOKEN"
)

func TestMain(m *testing.M) {
	if vault := os.Getenv(naiveVaultEnv); vault != "" {
		if err := serveNaive(vault, os.Getenv(naiveTokenEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type naiveFetchIn struct {
	ID string `json:"id" jsonschema:"the note's path"`
}

type naiveSearchIn struct {
	Query string `json:"query" jsonschema:"text to find, ignoring case"`
}

func naiveText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func serveNaive(vault, token string) error {
	root, err := os.OpenRoot(vault)
	if err != nil {
		return err
	}
	lowered := map[string][]byte{} // note path → its text, lowercased
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, err := root.ReadFile(p)
			if err != nil {
				return err
			}
			lowered[p] = bytes.ToLower(b)
		}
		return err
	})
	if err != nil {
		return err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "naive", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fetch", Description: "Read a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, in naiveFetchIn) (*mcp.CallToolResult, any, error) {
			b, err := root.ReadFile(in.ID)
			if err != nil {
				return nil, nil, err
			}
			return naiveText(string(b)), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "Find the notes holding a text, ignoring case."},
		func(_ context.Context, _ *mcp.CallToolRequest, in naiveSearchIn) (*mcp.CallToolResult, any, error) {
			q := bytes.ToLower([]byte(in.Query))
			var hits []string
			for p, b := range lowered {
				if bytes.Contains(b, q) {
					hits = append(hits, p)
				}
			}
			slices.Sort(hits)
			return naiveText(strings.Join(hits, "\n")), nil, nil
		})
	opts := &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}
	if os.Getenv("CORTEX_BENCH_NAIVE_SESSIONS") == "1" {
		opts = nil
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "bench"}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "listening on http://%s\n", ln.Addr())
	return http.Serve(ln, mux) // #nosec G114 -- a test-only server on loopback for the length of one measurement
}

// startNaive starts the reference server on vault: this test binary again,
// which TestMain turns into the server (it ignores the serve arguments).
func startNaive(t *testing.T, vault string) *server {
	t.Helper()
	token := "naive-bench-token"
	s := &server{token: token}
	s.Server = testkit.StartServer(t, testkit.ServerOptions{Bin: os.Args[0],
		Env: append(os.Environ(), naiveVaultEnv+"="+vault, naiveTokenEnv+"="+token)})
	return s
}

// TestNaiveServerAnswers checks the reference server with the harness's
// own client, at each protocol version: fetch answers the note as text and
// nothing else, search lists the notes holding the text whatever its case
// (and not those under a dot-folder), and a wrong token is refused.
func TestNaiveServerAnswers(t *testing.T) {
	vault := t.TempDir()
	for name, text := range map[string]string{"note.md": "# A note\n\nbody Señal\n", "sub/other.md": "señal here\n", ".trash/old.md": "señal\n", "plain.md": "nothing\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(vault, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startNaive(t, vault)
	defer s.Stop()
	ctx := context.Background()
	for _, v := range []string{version2025, version2026} {
		c := newClient(s.URL, s.token, 1, v)
		if err := c.initialize(ctx); err != nil {
			t.Fatalf("%s: initialize: %v", v, err)
		}
		res, err := c.call(ctx, "fetch", map[string]any{"id": "note.md"})
		if err != nil {
			t.Fatalf("%s: fetch: %v", v, err)
		}
		if len(res.Content) != 1 || res.Content[0].Text != "# A note\n\nbody Señal\n" || res.StructuredContent != nil {
			t.Errorf("%s: fetch = %+v, want the note as one text block", v, res)
		}
		got, err := c.toolText(ctx, "search", map[string]any{"query": "SEÑAL"})
		if err != nil || got != "note.md\nsub/other.md" {
			t.Errorf("%s: search = %q, %v", v, got, err)
		}
	}
	bad := newClient(s.URL, "wrong", 1, version2026)
	if err := bad.initialize(ctx); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v, want 401", err)
	}
}

package bench

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The naive reference server: the least a server on the same go-sdk does to
// answer fetch over HTTP with a bearer token — the SDK's stateless handler,
// the SDK's bearer middleware with one fixed token, and a typed tool that
// reads the note from the vault folder. No journal, no limits, no index, no
// log. `make bench` runs it beside cortex on the same vault with the same
// client, so the cost of cortex's own work per call is measured in one run.
// It is this test binary started again with the variables below set.
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

type naiveFetchOut struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func serveNaive(vault, token string) error {
	root, err := os.OpenRoot(vault)
	if err != nil {
		return err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "naive", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fetch", Description: "Read a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, in naiveFetchIn) (*mcp.CallToolResult, naiveFetchOut, error) {
			b, err := root.ReadFile(in.ID)
			if err != nil {
				return nil, naiveFetchOut{}, err
			}
			title := in.ID
			if line, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(line, "# ") {
				title = strings.TrimPrefix(line, "# ")
			}
			return nil, naiveFetchOut{ID: in.ID, Title: title, Text: string(b)}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
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

// TestNaiveServerAnswersFetch checks the reference server with the harness's
// own client, at each protocol version, and that it refuses a wrong token.
func TestNaiveServerAnswersFetch(t *testing.T) {
	vault := t.TempDir()
	if err := os.WriteFile(vault+"/note.md", []byte("# A note\n\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startNaive(t, vault)
	defer s.Stop()
	ctx := context.Background()
	for _, v := range []string{version2025, version2026} {
		c := newClient(s.URL, s.token, 1, v)
		if err := c.initialize(ctx); err != nil {
			t.Fatalf("%s: initialize: %v", v, err)
		}
		var out naiveFetchOut
		if err := c.tool(ctx, "fetch", map[string]any{"id": "note.md"}, &out); err != nil {
			t.Fatalf("%s: fetch: %v", v, err)
		}
		if out.Title != "A note" || !strings.Contains(out.Text, "body") {
			t.Errorf("%s: fetch = %+v", v, out)
		}
	}
	bad := newClient(s.URL, "wrong", 1, version2026)
	if err := bad.initialize(ctx); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v, want 401", err)
	}
}

package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// fakeTokens is a TokenVerifier over an in-memory table; revoke removes a
// secret as the store's revoke does.
type fakeTokens struct {
	mu sync.Mutex
	m  map[string]store.Token
}

func (f *fakeTokens) VerifyToken(_ context.Context, secret string) (store.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.m[secret]
	if !ok {
		return store.Token{}, store.ErrTokenNotFound
	}
	return t, nil
}

func (f *fakeTokens) revoke(secret string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, secret)
}

const (
	secretA = "ctx_secret-of-app-a-0123456789"
	secretB = "ctx_secret-of-app-b-0123456789"
)

// harness is a Server under test with what tests poke at.
type harness struct {
	// proxies, when set, are trusted by the serve path in front (see
	// httpx.TrustForwarded), as in proxy mode.
	proxies []netip.Prefix
	srv     *Server
	tokens  *fakeTokens
	clock   *testkit.Clock
	log     *testkit.Buffer
	// release unblocks calls of the "block" tool; entered receives one value
	// per call that reached it.
	release chan struct{}
	entered chan struct{}
}

const testPublicURL = "https://notes.example.com"

// newHarness builds a Server with two tokens (app-a, app-b) and a test MCP
// server whose tools are "whoami" (returns UserID and app) and "block"
// (waits for h.release). edit may change the options first.
func newHarness(t *testing.T, edit func(*Options)) *harness {
	t.Helper()
	h := &harness{
		tokens: &fakeTokens{m: map[string]store.Token{
			secretA: {ID: 1, Name: "app-a"},
			secretB: {ID: 2, Name: "app-b"},
		}},
		clock:   testkit.NewClock(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)),
		log:     new(testkit.Buffer),
		release: make(chan struct{}),
		entered: make(chan struct{}, 16),
	}
	o := Options{
		PublicURL:    config.MustParsePublicURL(testPublicURL),
		Verify:       StoreVerifier(h.tokens),
		NewMCPServer: func(*http.Request) *mcp.Server { return h.newMCPServer() },
		Logger:       slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:          h.clock.Now,
	}
	if edit != nil {
		edit(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.srv = srv
	return h
}

type whoami struct {
	UserID string `json:"user_id"`
	App    string `json:"app"`
}

// seenScope is what the "scope" tool reports of the scope its call carries.
type seenScope struct {
	Carried  bool   `json:"carried"`
	Describe string `json:"describe"`
}

func (h *harness) newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cortex-test", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoami, error) {
		ti := req.Extra.TokenInfo
		if ti == nil {
			return nil, whoami{}, nil
		}
		app, _ := ti.Extra[ExtraApp].(string)
		return nil, whoami{UserID: ti.UserID, App: app}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "scope"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, seenScope, error) {
		sc, ok := scope.FromContext(ctx)
		return nil, seenScope{Carried: ok, Describe: sc.Describe()}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
		h.entered <- struct{}{}
		<-h.release
		return nil, struct{}{}, nil
	})
	return s
}

// start serves the harness on a loopback httptest server.
func (h *harness) start(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h.srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// connect opens an MCP session to ts with secret, through the SDK client.
func connect(t *testing.T, ts *httptest.Server, secret string) (*mcp.ClientSession, error) {
	return connectRT(t, ts, testkit.Bearer{Token: secret, Base: ts.Client().Transport})
}

func connectRT(t *testing.T, ts *httptest.Server, rt http.RoundTripper) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
	return c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:             ts.URL + "/mcp",
		HTTPClient:           &http.Client{Transport: rt},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}, nil)
}

func mustConnect(t *testing.T, ts *httptest.Server, secret string) *mcp.ClientSession {
	t.Helper()
	cs, err := connect(t, ts, secret)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// mcpRequest builds a request to /mcp as an MCP client would send it. A
// version, when given, goes in the Mcp-Protocol-Version header; from
// 2026-07-28 on, Mcp-Method and Mcp-Name are taken from the body as a
// client sets them.
func mcpRequest(method, secret, version, body string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, "http://127.0.0.1:8080/mcp", rd)
	r.RemoteAddr = "192.0.2.10:40000"
	r.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		r.Header.Set("Authorization", "Bearer "+secret)
	}
	if version != "" {
		r.Header.Set("Mcp-Protocol-Version", version)
	}
	if version >= "2026-07-28" {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal([]byte(body), &m)
		r.Header.Set("Mcp-Method", m.Method)
		if m.Params.Name != "" {
			r.Header.Set("Mcp-Name", m.Params.Name)
		}
	}
	return r
}

// meta2026 is the _meta every 2026-07-28 request carries.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

// do serves r in memory and returns the response.
func (h *harness) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	var handler http.Handler = h.srv.Handler()
	if h.proxies != nil {
		handler = httpx.TrustForwarded(h.proxies, handler)
	}
	handler.ServeHTTP(w, r)
	return w
}

// rpcError decodes the cortex code and message of a JSON-RPC error body.
func rpcError(t *testing.T, body []byte) (code, message string) {
	t.Helper()
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("error body %q is not JSON: %v", body, err)
	}
	if resp.JSONRPC != "2.0" || resp.ID != nil || resp.Error.Code != httpx.JSONRPCRefusal {
		t.Fatalf("error body %q is not a JSON-RPC error", body)
	}
	return resp.Error.Data.Code, resp.Error.Message
}

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// /mcp keeps no sessions. MCP 2026-07-28 has none (every request carries
// its version and the client's capabilities), and the SDK's stateless mode
// answers older clients too: initialize is answered, but no Mcp-Session-Id
// is handed out, so each of their requests stands alone as well.
//
// Measured with BenchmarkMCPFetch (internal/web/bench_test.go) before and
// after: a fetch by a 2025-11-25 client allocated 283 kB in 401 allocations
// within a session and 389 kB in 475 without; a 2026-07-28 fetch, which can
// only be stateless, 565 kB in 720. The time per call did not differ beyond
// the noise of the shared machine (0.5 to 1.1 ms either way). What it buys is
// one code path for every version and no session table that a token could
// fill and whose entries had to be capped, evicted and timed out.

// serveMCP guards the SDK's streamable HTTP handler: token, per-token rate,
// scope and protocol version, in that order, for every request.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) error {
	id, err := s.authenticate(r)
	if err != nil {
		return err
	}
	httpx.SetApp(r, id.App)
	if ok, retry := s.tokenRate.Take(id.Subject); !ok {
		return errRateLimited("for this token", retry)
	}
	if r.Method != http.MethodPost {
		return &httpx.Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Allow: http.MethodPost,
			Message: "/mcp keeps no sessions, so it has no stream to GET and nothing to DELETE; send requests with POST"}
	}
	if err := s.checkScope(r, id); err != nil {
		return err
	}
	if v := r.Header.Get(protocolVersionHeader); v != "" && !slices.Contains(s.versions, v) {
		s.refuseVersion(w, r, v)
		return nil
	}
	ctx := context.WithValue(r.Context(), tokenInfoKey{}, tokenInfo(id))
	ctx = context.WithValue(ctx, serverMemoKey{}, new(serverMemo))
	s.mcp.ServeHTTP(w, r.WithContext(ctx))
	return nil
}

const protocolVersionHeader = "Mcp-Protocol-Version"

// codeUnsupportedVersion is the JSON-RPC code of UnsupportedProtocolVersionError
// (MCP 2026-07-28, basic/index: -32022).
const codeUnsupportedVersion = -32022

// refuseVersion answers a request for a protocol version cortex does not
// serve with 400 and the spec's error, which lists the versions it does, so
// that the client can pick one. The id is the request's when its body says.
func (s *Server) refuseVersion(w http.ResponseWriter, r *http.Request, asked string) {
	id := json.RawMessage("null")
	if body, err := io.ReadAll(r.Body); err == nil {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(bytes.TrimSpace(body), &m) == nil && len(m.ID) > 0 {
			id = m.ID
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    codeUnsupportedVersion,
		"message": "protocol version " + asked + " is not supported; use one of those listed",
		"data":    mcp.UnsupportedProtocolVersionData{Supported: s.versions, Requested: asked},
	}})
}

// serverMemo carries, through one request, the *mcp.Server made for it: the
// SDK asks for one more than once per request, and it is built once.
type serverMemo struct {
	srv *mcp.Server
}

type serverMemoKey struct{}

// getServer is the SDK's getServer callback: Options.NewMCPServer once per
// request, so that each request sees the instructions as they are now.
func (s *Server) getServer(r *http.Request) *mcp.Server {
	memo, _ := r.Context().Value(serverMemoKey{}).(*serverMemo)
	if memo == nil {
		return s.newMCPServer(r)
	}
	if memo.srv == nil {
		memo.srv = s.newMCPServer(r)
	}
	return memo.srv
}

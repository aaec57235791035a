package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
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
	if name := repeatedHeader(r.Header); name == protocolVersionHeader {
		// Taken together, as HTTP folds repeated lines, the values name no
		// version at all.
		v := strings.Join(r.Header.Values(name), ", ")
		refuseRPC(w, r, codeUnsupportedVersion, "the MCP-Protocol-Version header comes more than once ("+v+"); send it once, with one of the versions listed",
			mcp.UnsupportedProtocolVersionData{Supported: s.versions, Requested: v})
		return nil
	} else if name != "" {
		refuseRPC(w, r, codeHeaderMismatch, "the "+name+" header comes more than once; send it once, with the value the body holds", nil)
		return nil
	}
	v := r.Header.Get(protocolVersionHeader)
	if v != "" && !slices.Contains(s.versions, v) {
		refuseRPC(w, r, codeUnsupportedVersion, "protocol version "+v+" is not supported; use one of those listed",
			mcp.UnsupportedProtocolVersionData{Supported: s.versions, Requested: v})
		return nil
	}
	// The body is read once here, for the batch check and Quick, and
	// handed on as read; the SDK meets the same error (a body over the
	// limit) where reading it failed.
	body, readErr := io.ReadAll(r.Body)
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), errReader{readErr}), r.Body}
	if v >= firstBatchlessVersion && isBatch(body) {
		refuseRPC(w, r, codeInvalidRequest, "a JSON-RPC batch (an array) is not part of MCP "+v+"; send each request in a POST of its own", nil)
		return nil
	}
	if v >= firstStatelessVersion {
		if err := plainName(r.Header); err != nil {
			refuseRPC(w, r, codeHeaderMismatch, err.Error(), nil)
			return nil
		}
	}
	// Every tool call of this request sees the vault through the
	// credential's scope.
	ctx := scope.NewContext(r.Context(), id.Scope)
	ti := tokenInfo(id)
	ctx = context.WithValue(ctx, tokenInfoKey{}, ti)
	if s.opts.Quick != nil && readErr == nil {
		answer, _ := s.answers.Get().(*bytes.Buffer)
		if answer == nil {
			answer = new(bytes.Buffer)
		}
		ok := s.opts.Quick(ctx, ti, r.Header, body, answer)
		if ok {
			// The headers the SDK sets on a JSON answer.
			w.Header().Set("Cache-Control", "no-cache, no-transform")
			w.Header().Set("Content-Type", "application/json")
			w.Write(answer.Bytes())
		}
		// Write has copied the answer (into the connection's buffer, or
		// Compress's) or sent it before it returned: none of the writers
		// on the way keeps the slice, so the buffer is free again.
		s.putAnswer(answer)
		if ok {
			return nil
		}
	}
	ctx = context.WithValue(ctx, serverMemoKey{}, new(serverMemo))
	s.mcp.ServeHTTP(w, r.WithContext(ctx))
	return nil
}

// maxPooledAnswer is the largest answer buffer kept for the next quick
// answer: a fetch of the default 20,000 characters, which carries the note
// twice, fits; the buffer of a rare larger answer is left to the collector
// rather than held for good.
const maxPooledAnswer = 128 << 10

// putAnswer keeps answer for the next quick answer, unless it grew large.
func (s *Server) putAnswer(answer *bytes.Buffer) {
	if answer.Cap() > maxPooledAnswer {
		return
	}
	answer.Reset()
	s.answers.Put(answer)
}

// errReader returns err, or io.EOF when err is nil.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

const (
	protocolVersionHeader = "Mcp-Protocol-Version"
	methodHeader          = "Mcp-Method"
	nameHeader            = "Mcp-Name"
	// firstBatchlessVersion is the first MCP version without JSON-RPC
	// batches; a request without a version header is taken as 2025-03-26,
	// which has them.
	firstBatchlessVersion = "2025-06-18"
	// firstStatelessVersion is the first MCP version whose requests carry
	// Mcp-Method and Mcp-Name, checked against the body.
	firstStatelessVersion = "2026-07-28"
)

// JSON-RPC codes: JSON-RPC's own, then MCP 2026-07-28's (basic/index,
// "Error Codes").
const (
	codeInvalidRequest     = -32600
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// plainName checks the Mcp-Name header of a 2026-07-28 request and leaves
// it plain for the SDK, which compares it with the body but does not decode
// the Base64 form (=?base64?…?=) that the spec lets every client use and
// that a name outside visible ASCII must use.
func plainName(h http.Header) error {
	v := h.Get(nameHeader)
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			name, err := base64.StdEncoding.DecodeString(enc)
			if err != nil || !utf8.Valid(name) {
				return errors.New("the Mcp-Name header is not Base64 of UTF-8 text; encode the name as =?base64?…?= or send it as it is")
			}
			h.Set(nameHeader, string(name))
			return nil
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return errors.New("the Mcp-Name header holds characters outside visible ASCII; send such a name Base64-encoded, as =?base64?…?=")
		}
	}
	return nil
}

// repeatedHeader names the first header mirrored from the body that comes
// on more than one line, or returns "". Go reads the first line and a proxy
// may read the last, so one request could look like two different calls.
func repeatedHeader(h http.Header) string {
	for _, name := range []string{protocolVersionHeader, methodHeader, nameHeader} {
		if len(h.Values(name)) > 1 {
			return name
		}
	}
	return ""
}

// isBatch reports whether the body (or as much of it as could be read)
// is a JSON array, which the SDK would refuse in plain text.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// refuseRPC answers an MCP request with 400 and a JSON-RPC error that the
// SDK would not give (an unsupported version, listing the versions served so
// that the client can pick one; a header the SDK does not check). The id is
// the request's when its body has one, and left out otherwise.
func refuseRPC(w http.ResponseWriter, r *http.Request, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	resp := map[string]any{"jsonrpc": "2.0", "error": e}
	if body, err := io.ReadAll(r.Body); err == nil {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(bytes.TrimSpace(body), &m) == nil && len(m.ID) > 0 && string(m.ID) != "null" {
			resp["id"] = m.ID
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusBadRequest, resp)
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

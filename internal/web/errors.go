package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// Error codes. They are stable: clients, tests and log searches rely on them.
const (
	CodeUnauthorized      = "unauthorized"
	CodeInvalidToken      = "invalid_token"
	CodeRateLimited       = "rate_limited"
	CodeTooManySessions   = "too_many_sessions"
	CodeSessionNotFound   = "session_not_found"
	CodeForbiddenHost     = "forbidden_host"
	CodeForbiddenOrigin   = "forbidden_origin"
	CodeBodyTooLarge      = "body_too_large"
	CodeInsufficientScope = "insufficient_scope"
	CodeNotFound          = "not_found"
	CodeMethodNotAllowed  = "method_not_allowed"
	CodeInternal          = httpx.CodeInternal
)

// render answers a refusal as a JSON-RPC error on /mcp and as a small JSON
// object elsewhere.
func render(w http.ResponseWriter, r *http.Request, e *httpx.Error) {
	if r.URL.Path == mcpPath || strings.HasPrefix(r.URL.Path, mcpPath+"/") {
		httpx.JSONRPC(w, r, e)
		return
	}
	httpx.JSON(w, r, e)
}

// handle adapts h to an http.Handler whose refusals render as above.
func (s *Server) handle(h httpx.HandlerFunc) http.Handler { return httpx.Handle(render, h) }

func errRateLimited(what string, retry time.Duration) *httpx.Error {
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: retry,
		Message: fmt.Sprintf("too many requests %s; wait %d seconds and try again", what, httpx.RetrySeconds(retry))}
}

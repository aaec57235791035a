package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// Error codes. They are stable: clients, tests and log searches rely on them.
const (
	CodeUnauthorized      = "unauthorized"
	CodeInvalidToken      = "invalid_token"
	CodeRateLimited       = "rate_limited"
	CodeForbiddenHost     = "forbidden_host"
	CodeForbiddenOrigin   = "forbidden_origin"
	CodeBodyTooLarge      = "body_too_large"
	CodeInvalidJSON       = "invalid_json"
	CodeInsufficientScope = "insufficient_scope"
	CodeNotFound          = "not_found"
	CodeMethodNotAllowed  = httpx.CodeMethodNotAllowed
	CodeInternal          = httpx.CodeInternal
)

func errRateLimited(what string, retry time.Duration) *httpx.Error {
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: retry,
		Message: fmt.Sprintf("too many requests %s; wait %d seconds and try again", what, httpx.RetrySeconds(retry))}
}

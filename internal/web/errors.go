package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error codes. They are stable: clients, tests and log searches rely on them.
const (
	CodeUnauthorized      = "unauthorized"
	CodeInvalidToken      = "invalid_token"
	CodeRateLimited       = "rate_limited"
	CodeForbiddenHost     = "forbidden_host"
	CodeForbiddenOrigin   = "forbidden_origin"
	CodeBodyTooLarge      = "body_too_large"
	CodeInsufficientScope = "insufficient_scope"
	CodeNotFound          = "not_found"
	CodeMethodNotAllowed  = "method_not_allowed"
	CodeInternal          = "internal"
)

// jsonrpcServerError is the JSON-RPC code carried by every error that the HTTP
// layer answers on /mcp; the stable cortex code is in the error's data.
const jsonrpcServerError = -32000

// Error is what a handler returns to have a request refused. The client sees
// Status, Code and Message (one sentence saying what to do); Err goes to the
// log only.
type Error struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, when positive, is sent as a Retry-After header in whole
	// seconds (rounded up).
	RetryAfter time.Duration
	// Challenge, when set, is sent as the WWW-Authenticate header.
	Challenge string
	// Allow, when set, is sent as the Allow header.
	Allow string
	Err   error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// handlerFunc is a handler that returns its failure instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts h to an http.Handler: the one place where errors become
// responses.
func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// writeError answers err to the client. Anything that is not an *Error is an
// internal failure: the client learns only that, the log learns the detail.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Status: http.StatusInternalServerError, Code: CodeInternal,
			Message: "the server failed to handle this request; try again later", Err: err}
	}
	if li := logInfoFrom(r.Context()); li != nil {
		li.code = e.Code
		li.err = e.Err
	}
	h := w.Header()
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retrySeconds(e.RetryAfter)))
	}
	if e.Challenge != "" {
		h.Set("WWW-Authenticate", e.Challenge)
	}
	if e.Allow != "" {
		h.Set("Allow", e.Allow)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	w.Write(errorBody(r, e))
}

// errorBody is a JSON-RPC error response on /mcp (with a null id, as JSON-RPC
// asks when the request's id is unknown), and a small JSON object elsewhere.
func errorBody(r *http.Request, e *Error) []byte {
	if r.URL.Path == mcpPath || strings.HasPrefix(r.URL.Path, mcpPath+"/") {
		// The id is null: the body of a refused request is never read.
		b, _ := json.Marshal(rpcErrorResponse{JSONRPC: "2.0", Error: wireError{
			Code: jsonrpcServerError, Message: e.Message, Data: rpcErrorData{e.Code}}})
		return append(b, '\n')
	}
	b, _ := json.Marshal(struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{e.Code, e.Message})
	return append(b, '\n')
}

type rpcErrorResponse struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      *int      `json:"id"` // always null
	Error   wireError `json:"error"`
}

type wireError struct {
	Code    int          `json:"code"`
	Message string       `json:"message"`
	Data    rpcErrorData `json:"data"`
}

type rpcErrorData struct {
	Code string `json:"code"`
}

// retrySeconds rounds d up to whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

func errRateLimited(what string, retry time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: retry,
		Message: fmt.Sprintf("too many requests %s; wait %d seconds and try again", what, retrySeconds(retry))}
}

package httpx

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Error is what a handler returns to have a request refused, in the shape
// of tsweb's HTTPError. The client sees Status, Code (stable: clients, tests
// and log searches rely on it) and Message (one sentence saying what to
// do); Err is the detail kept for the log.
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

// With returns a copy of e that logs err as its detail: for the fixed
// refusals a package declares once as variables.
func (e *Error) With(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

// CodeInternal is the code of every failure that is not an *Error.
const CodeInternal = "internal"

// Internal is what the client learns of a failure that is not an *Error:
// only that it happened; err goes to the log.
func Internal(err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal,
		Message: "Something went wrong on the server. Try again in a moment.", Err: err}
}

// RetrySeconds rounds d up to whole seconds, at least 1: what Retry-After
// headers and messages say.
func RetrySeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}

// Renderer writes the status and body of a refusal in one format; the
// headers every refusal carries are set before it runs.
type Renderer func(w http.ResponseWriter, r *http.Request, e *Error)

// HandlerFunc is a handler that returns its failure instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Handle adapts h to an http.Handler whose failures render with render.
func Handle(render Renderer, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err, render)
		}
	})
}

// WriteError answers err with render: the one place where errors become
// responses. It hands the code and the detail to the request's log line;
// anything that is not an *Error is an internal failure.
func WriteError(w http.ResponseWriter, r *http.Request, err error, render Renderer) {
	var e *Error
	if !errors.As(err, &e) {
		e = Internal(err)
	}
	if rec := recordOf(r); rec != nil {
		rec.code = e.Code
		rec.err = e.Err
	}
	h := w.Header()
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(RetrySeconds(e.RetryAfter)))
	}
	if e.Challenge != "" {
		h.Set("WWW-Authenticate", e.Challenge)
	}
	if e.Allow != "" {
		h.Set("Allow", e.Allow)
	}
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	render(w, r, e)
}

// JSON renders {"error": code, "message": sentence}.
func JSON(w http.ResponseWriter, _ *http.Request, e *Error) {
	WriteJSON(w, e.Status, struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{e.Code, e.Message})
}

// OAuthJSON renders an RFC 6749 §5.2 error, {"error", "error_description"};
// an internal failure is "server_error" there.
func OAuthJSON(w http.ResponseWriter, _ *http.Request, e *Error) {
	code := e.Code
	if code == CodeInternal {
		code = "server_error"
	}
	WriteJSON(w, e.Status, struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}{code, e.Message})
}

// JSONRPCRefusal is the JSON-RPC code of every refusal the HTTP layer
// answers to an MCP request; the stable cortex code is in the error's data.
// It lies outside JSON-RPC's reserved range (-32768 to -32000), where MCP
// 2026-07-28 wants codes it does not define: -32000 to -32019 are legacy
// there, and -32020 on are the specification's.
const JSONRPCRefusal = -31000

// JSONRPC renders a JSON-RPC error response without an id: the body of a
// refused request is never read, and MCP (2025-11-25 and 2026-07-28) leaves
// out an id it does not know, where plain JSON-RPC would send null, which
// its schemas do not take as a request id.
func JSONRPC(w http.ResponseWriter, _ *http.Request, e *Error) {
	type data struct {
		Code string `json:"code"`
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    data   `json:"data"`
	}
	WriteJSON(w, e.Status, struct {
		JSONRPC string    `json:"jsonrpc"`
		Error   wireError `json:"error"`
	}{"2.0", wireError{JSONRPCRefusal, e.Message, data{e.Code}}})
}

// WriteJSON writes v as the JSON body of a response with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

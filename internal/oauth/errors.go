package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// ErrInvalidToken is returned by VerifyAccessToken for a token that is
// malformed, unknown, expired, revoked, or meant for another resource.
var ErrInvalidToken = errors.New("invalid access token")

// ErrBadConfig is returned by New and ParseRedirectAllowlist for unusable
// settings.
var ErrBadConfig = errors.New("invalid oauth configuration")

// oauthError is an RFC 6749 error response of a JSON endpoint: the client
// gets code and desc, the log gets err.
type oauthError struct {
	status int
	code   string
	desc   string
	retry  time.Duration // 429 and 503: Retry-After
	basic  bool          // 401 after HTTP Basic: send a Basic challenge
	err    error
}

func (e *oauthError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%s: %s: %v", e.code, e.desc, e.err)
	}
	return e.code + ": " + e.desc
}

func (e *oauthError) Unwrap() error { return e.err }

func errInvalidRequest(desc string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_request", desc: desc}
}

func errInvalidGrant(desc string, cause error) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_grant", desc: desc, err: cause}
}

func errInvalidClient(desc string, cause error) *oauthError {
	return &oauthError{status: http.StatusUnauthorized, code: "invalid_client", desc: desc, err: cause}
}

func errSlowDown(wait time.Duration) *oauthError {
	return &oauthError{status: http.StatusTooManyRequests, code: "slow_down", retry: wait,
		desc: fmt.Sprintf("too many requests from this address; wait %d seconds and try again", seconds(wait))}
}

func seconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// api adapts a JSON endpoint: CORS for browser-based clients (no cookies
// are involved, so any origin may call), no caching, and RFC 6749 errors.
func (s *Server) api(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", "*")
		hd.Set("Cache-Control", "no-store")
		hd.Set("Pragma", "no-cache")
		hd.Set("X-Content-Type-Options", "nosniff")
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *oauthError
	if !errors.As(err, &oe) {
		s.log.Error("oauth request failed", "path", r.URL.Path, "err", err)
		oe = &oauthError{status: http.StatusInternalServerError, code: "server_error",
			desc: "something went wrong on the server; try again in a moment"}
	} else if oe.err != nil || oe.status >= 500 {
		s.log.Info("oauth request refused", "path", r.URL.Path, "code", oe.code, "err", oe.err)
	}
	if oe.retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(seconds(oe.retry)))
	}
	if oe.basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="cortex"`)
	}
	writeJSON(w, oe.status, map[string]string{"error": oe.code, "error_description": oe.desc})
}

// preflight answers CORS preflight requests of the JSON endpoints.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
	h.Set("Access-Control-Max-Age", "3600")
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// pageError is what a person in a browser is told: a stable code, a title
// and one sentence. err is for the log only.
type pageError struct {
	status int
	code   string
	msg    string
	retry  time.Duration
	err    error
}

func (e *pageError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%s: %v", e.code, e.err)
	}
	return e.code
}

func (e *pageError) Unwrap() error { return e.err }

func badAuthorize(code, msg string, cause error) *pageError {
	return &pageError{status: http.StatusBadRequest, code: code, msg: msg, err: cause}
}

var errPageCSRF = &pageError{status: http.StatusForbidden, code: "bad_csrf",
	msg: "This page had expired or was opened in another browser. Start connecting the app again."}

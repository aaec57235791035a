package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
)

// ErrInvalidToken is returned by VerifyAccessToken for a token that is
// malformed, unknown, expired, revoked, or meant for another resource.
var ErrInvalidToken = errors.New("invalid access token")

// ErrBadConfig is returned by New and ParseRedirectAllowlist for unusable
// settings.
var ErrBadConfig = errors.New("invalid oauth configuration")

// The JSON endpoints answer RFC 6749 errors: the client gets the code and
// the description (the *httpx.Error's Message), the log gets Err.

func errInvalidRequest(desc string) *httpx.Error {
	return &httpx.Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: desc}
}

func errInvalidGrant(desc string, cause error) *httpx.Error {
	return &httpx.Error{Status: http.StatusBadRequest, Code: "invalid_grant", Message: desc, Err: cause}
}

func errInvalidClient(desc string, cause error) *httpx.Error {
	return &httpx.Error{Status: http.StatusUnauthorized, Code: "invalid_client", Message: desc, Err: cause}
}

// basicChallenge answers a 401 after HTTP Basic client authentication.
const basicChallenge = `Basic realm="cortex"`

func errSlowDown(wait time.Duration) *httpx.Error {
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: "slow_down", RetryAfter: wait,
		Message: fmt.Sprintf("too many requests from this address; wait %d seconds and try again", httpx.RetrySeconds(wait))}
}

// api adapts a JSON endpoint: CORS for browser-based clients (no cookies
// are involved, so any origin may call), no caching, and RFC 6749 errors.
func (s *Server) api(h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", "*")
		hd.Set("Cache-Control", "no-store")
		hd.Set("Pragma", "no-cache")
		hd.Set("X-Content-Type-Options", "nosniff")
		r.Body = http.MaxBytesReader(w, r.Body, httpx.MaxFormBody)
		if err := h(w, r); err != nil {
			httpx.WriteError(w, r, err, httpx.OAuthJSON)
		}
	})
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

// What a person in a browser is told: a stable code and one sentence on a
// page; the detail goes to the log.

func badAuthorize(code, msg string, cause error) *httpx.Error {
	return &httpx.Error{Status: http.StatusBadRequest, Code: code, Message: msg, Err: cause}
}

var (
	errPageCSRF = &httpx.Error{Status: http.StatusForbidden, Code: "bad_csrf",
		Message: "This page had expired or was opened in another browser. Start connecting the app again."}
	errCrossOrigin = &httpx.Error{Status: http.StatusForbidden, Code: "cross_origin",
		Message: "This form was sent from another site. Start connecting the app again."}
	errAuthorizeMethod = &httpx.Error{Status: http.StatusMethodNotAllowed, Code: httpx.CodeMethodNotAllowed, Allow: "GET, HEAD",
		Message: "The authorization endpoint takes only GET requests."}
)

// describeProblem titles the error pages.
func describeProblem(_ *http.Request, e *httpx.Error) httpx.Problem {
	if e.Status == http.StatusTooManyRequests {
		return httpx.Problem{Title: "Slow down"}
	}
	return httpx.Problem{Title: "Cannot connect the app"}
}

// describeAuthorizeProblem is describeProblem for /authorize, where a 429
// (a flood that spent the shared budget) sends the owner to sign in first
// and come back to the same request: the signed-in owner spends no budget
// there.
func describeAuthorizeProblem(r *http.Request, e *httpx.Error) httpx.Problem {
	p := describeProblem(r, e)
	if e.Status == http.StatusTooManyRequests {
		p.Link, p.LinkText = owner.LoginURL(r.URL.RequestURI()), "Sign in as the owner, then come back here"
	}
	return p
}

// page adapts an HTML page: no script at all, and failures render the
// error page.
func (s *Server) page(h httpx.HandlerFunc) http.Handler { return s.pageWith(s.problem, h) }

func (s *Server) pageWith(render httpx.Renderer, h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.PageHeaders(w, httpx.PagePolicy{})
		if err := h(w, r); err != nil {
			httpx.WriteError(w, r, err, render)
		}
	})
}

// form adapts a page's form: the form guard (POST only, same origin, a
// bounded body, the page's CSRF token) runs before h.
func (s *Server) form(h httpx.HandlerFunc) http.Handler {
	return s.page(s.guard.Guard(s.checkCSRF, h))
}

// checkCSRF is the owner's CSRF check with the consent page's refusal.
func (s *Server) checkCSRF(r *http.Request) error {
	if !s.own.CheckCSRF(r) {
		return errPageCSRF
	}
	return nil
}

// challengeIf is the Basic challenge when the client authenticated with
// HTTP Basic, and none otherwise.
func challengeIf(basic bool) string {
	if basic {
		return basicChallenge
	}
	return ""
}

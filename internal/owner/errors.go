package owner

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// What a visitor is told when a request fails: a stable code and one
// sentence; the detail, if any, goes to the request's log line.
var (
	errCrossOrigin = &httpx.Error{Status: http.StatusForbidden, Code: "cross_origin",
		Message: "This form was sent from another site. Open the sign-in page on this server and try again."}
	errCSRF = &httpx.Error{Status: http.StatusForbidden, Code: "bad_csrf",
		Message: "The page had expired. Reload it and try again."}
	errNoOwner = &httpx.Error{Status: http.StatusServiceUnavailable, Code: "no_owner",
		Message: "cortex has no owner yet. On the server, run: cortex admin setup"}
	errBadCode = &httpx.Error{Status: http.StatusUnauthorized, Code: "wrong_code",
		Message: "That code was not accepted. Wait for the next code in your app and try again."}
	errBadRecovery = &httpx.Error{Status: http.StatusUnauthorized, Code: "wrong_recovery_code",
		Message: "That recovery code was not accepted. Each code works once; try another from your list."}
	errTOTPLocked = &httpx.Error{Status: http.StatusForbidden, Code: "totp_locked",
		Message: "Codes from your authenticator app are locked after too many wrong ones. Sign in with a passkey or a recovery code, or run `cortex admin unlock-totp` on the server."}
	errNoPasskeys = &httpx.Error{Status: http.StatusNotFound, Code: "passkeys_off",
		Message: "Passkeys are off because cortex is reached by an IP address. Sign in with a code."}
	errCeremony = &httpx.Error{Status: http.StatusBadRequest, Code: "ceremony_expired",
		Message: "The passkey request expired or was already used. Try again."}
	errPasskey = &httpx.Error{Status: http.StatusUnauthorized, Code: "passkey_refused",
		Message: "That passkey was not accepted. Try again, or sign in with a code."}
	errBadLink = &httpx.Error{Status: http.StatusForbidden, Code: "bad_enrol_link",
		Message: "This enrolment link is unknown, used or expired. On the server, run: cortex admin passkey add"}
	errBadRequest = &httpx.Error{Status: http.StatusBadRequest, Code: "bad_request",
		Message: "The request was not understood. Reload the page and try again."}
	errSignedOut = &httpx.Error{Status: http.StatusUnauthorized, Code: "signed_out",
		Message: "You are not signed in any more. Sign in again and repeat what you were doing."}
)

func rateLimited(wait time.Duration) *httpx.Error {
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: wait,
		Message: fmt.Sprintf("Too many attempts. Please wait %s and try again.", humanWait(wait))}
}

func humanWait(d time.Duration) string {
	s := httpx.RetrySeconds(d)
	switch {
	case s <= 1:
		return "a second"
	case s < 90:
		return strconv.Itoa(s) + " seconds"
	default:
		return strconv.Itoa((s+59)/60) + " minutes"
	}
}

// describeProblem is what the owner's problem page shows beyond the
// refusal itself: a title, and the way back to sign-in.
func describeProblem(_ *http.Request, e *httpx.Error) httpx.Problem {
	return httpx.Problem{Title: problemTitle(e.Status), Link: "/login", LinkText: "Back to sign-in"}
}

func problemTitle(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "Slow down"
	case http.StatusForbidden:
		return "Not allowed"
	default:
		return "Sign-in problem"
	}
}

// page adapts an HTML page: failures render the problem page.
func (o *Owner) page(h httpx.HandlerFunc) http.Handler {
	return pageHeaders(httpx.Handle(o.problem, h))
}

// api adapts a JSON endpoint the page scripts post to: failures answer
// {"error": code, "message": sentence}.
func (o *Owner) api(h httpx.HandlerFunc) http.Handler { return o.post(httpx.JSON, h) }

// form adapts a sign-in form: a refusal shows the login page again with its
// message, except a 429, which gets the problem page (the form would only
// invite another attempt).
func (o *Owner) form(h httpx.HandlerFunc) http.Handler {
	return o.post(func(w http.ResponseWriter, r *http.Request, e *httpx.Error) {
		if e.Status == http.StatusTooManyRequests {
			o.problem(w, r, e)
			return
		}
		o.renderLogin(w, r, e.Status, e.Message)
	}, h)
}

// post guards a state-changing route with the form guard (POST only, same
// origin, a bounded body, the page's CSRF token) before h runs; failures
// render with render.
func (o *Owner) post(render httpx.Renderer, h httpx.HandlerFunc) http.Handler {
	return pageHeaders(httpx.Handle(render, o.guard.Guard(o.checkCSRF, h)))
}

// checkCSRF is CheckCSRF with the sign-in pages' refusal.
func (o *Owner) checkCSRF(r *http.Request) error {
	if !o.CheckCSRF(r) {
		return errCSRF
	}
	return nil
}

// fail answers err with the problem page, for code that answers outside
// the adapters.
func (o *Owner) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpx.WriteError(w, r, err, o.problem)
}

// pageHeaders: this origin's scripts only, no framing, no referrer, nothing
// cached.
func pageHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.PageHeaders(w, httpx.PagePolicy{Scripts: true})
		h.ServeHTTP(w, r)
	})
}

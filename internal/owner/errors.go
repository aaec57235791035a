package owner

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

// problem is what a visitor is told when a request fails: a stable code and
// one sentence. err, if set, is the detail for the log only.
type problem struct {
	status int
	code   string
	msg    string
	retry  time.Duration // for 429: when to try again
	err    error
}

func (p *problem) Error() string {
	if p.err != nil {
		return fmt.Sprintf("%s: %v", p.code, p.err)
	}
	return p.code
}

func (p *problem) Unwrap() error { return p.err }

var (
	errCrossOrigin = &problem{status: http.StatusForbidden, code: "cross_origin",
		msg: "This form was sent from another site. Open the sign-in page on this server and try again."}
	errCSRF = &problem{status: http.StatusForbidden, code: "bad_csrf",
		msg: "The page had expired. Reload it and try again."}
	errNoOwner = &problem{status: http.StatusServiceUnavailable, code: "no_owner",
		msg: "cortex has no owner yet. On the server, run: cortex admin setup"}
	errBadCode = &problem{status: http.StatusUnauthorized, code: "wrong_code",
		msg: "That code was not accepted. Wait for the next code in your app and try again."}
	errBadRecovery = &problem{status: http.StatusUnauthorized, code: "wrong_recovery_code",
		msg: "That recovery code was not accepted. Each code works once; try another from your list."}
	errTOTPLocked = &problem{status: http.StatusForbidden, code: "totp_locked",
		msg: "Codes from your authenticator app are locked after too many wrong ones. Sign in with a passkey or a recovery code, or run `cortex admin unlock-totp` on the server."}
	errNoPasskeys = &problem{status: http.StatusNotFound, code: "passkeys_off",
		msg: "Passkeys are off because cortex is reached by an IP address. Sign in with a code."}
	errCeremony = &problem{status: http.StatusBadRequest, code: "ceremony_expired",
		msg: "The passkey request expired or was already used. Try again."}
	errPasskey = &problem{status: http.StatusUnauthorized, code: "passkey_refused",
		msg: "That passkey was not accepted. Try again, or sign in with a code."}
	errBadLink = &problem{status: http.StatusForbidden, code: "bad_enrol_link",
		msg: "This enrolment link is unknown, used or expired. On the server, run: cortex admin passkey add"}
	errBadRequest = &problem{status: http.StatusBadRequest, code: "bad_request",
		msg: "The request was not understood. Reload the page and try again."}
)

func withErr(p *problem, err error) *problem {
	q := *p
	q.err = err
	return &q
}

func rateLimited(wait time.Duration) *problem {
	return &problem{status: http.StatusTooManyRequests, code: "rate_limited", retry: wait,
		msg: fmt.Sprintf("Too many attempts. Please wait %s and try again.", humanWait(wait))}
}

func humanWait(d time.Duration) string {
	s := int(math.Ceil(d.Seconds()))
	switch {
	case s <= 1:
		return "a second"
	case s < 90:
		return strconv.Itoa(s) + " seconds"
	default:
		return strconv.Itoa((s+59)/60) + " minutes"
	}
}

// asProblem turns any error into what the visitor sees; unexpected errors
// become a plain 500 and are logged.
func (o *Owner) asProblem(r *http.Request, err error) *problem {
	var p *problem
	if errors.As(err, &p) {
		if p.err != nil {
			o.log.Info("owner request refused", "path", r.URL.Path, "code", p.code, "err", p.err)
		}
		return p
	}
	o.log.Error("owner request failed", "path", r.URL.Path, "err", err)
	return &problem{status: http.StatusInternalServerError, code: "internal",
		msg: "Something went wrong on the server. Try again in a moment."}
}

func setRetryAfter(w http.ResponseWriter, p *problem) {
	if p.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(p.retry.Seconds())))))
	}
}

// api adapts a JSON handler: failures answer {"error": code, "message": sentence}.
func (o *Owner) api(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w)
		if err := h(w, r); err != nil {
			o.fail(w, r, err)
		}
	})
}

// page adapts an HTML handler: failures render a page a person understands.
func (o *Owner) page(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w)
		if err := h(w, r); err != nil {
			o.fail(w, r, err)
		}
	})
}

// fail renders err: on a login form the login page again with the message,
// elsewhere a small problem page.
func (o *Owner) fail(w http.ResponseWriter, r *http.Request, err error) {
	setSecurityHeaders(w)
	p := o.asProblem(r, err)
	setRetryAfter(w, p)
	if isAPI(r) {
		writeJSON(w, p.status, map[string]string{"error": p.code, "message": p.msg})
		return
	}
	if r.Method == http.MethodPost && (r.URL.Path == "/login/totp" || r.URL.Path == "/login/recovery") && p.status != http.StatusTooManyRequests {
		o.renderLogin(w, r, p.status, p.msg)
		return
	}
	o.pages.render(w, p.status, "problem.html", problemData{Title: problemTitle(p), Message: p.msg})
}

// isAPI reports whether r is one of the JSON routes the page scripts call.
func isAPI(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/passkey/begin") || strings.HasSuffix(r.URL.Path, "/passkey/finish")
}

func problemTitle(p *problem) string {
	switch p.status {
	case http.StatusTooManyRequests:
		return "Slow down"
	case http.StatusForbidden:
		return "Not allowed"
	default:
		return "Sign-in problem"
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// setSecurityHeaders: no inline script, no framing, no referrer, nothing cached.
func setSecurityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

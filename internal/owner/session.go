package owner

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Cookie names. The __Host- prefix makes the browser insist on Secure,
// Path=/ and no Domain, so no other host can plant or read them.
const (
	sessionCookie = "__Host-cortex-session"
	// bindCookie ties anonymous forms (the login page) to this browser: the
	// CSRF token of a page is an HMAC of it. It carries no server state.
	bindCookie = "__Host-cortex-bind"
	// csrfField and csrfHeader carry the token in forms and script requests.
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
	// touchEvery is how stale a session's last-seen time may get before a
	// request rewrites it.
	touchEvery = time.Minute
)

// SessionInfo describes the signed-in owner's browser session.
type SessionInfo struct {
	Method   string // how the owner signed in: passkey, totp or recovery
	Created  time.Time
	LastSeen time.Time
	Expires  time.Time // the earlier of the idle and the absolute expiry
}

// Session reports whether r comes from a browser where the owner is signed
// in. Expired sessions are deleted on sight.
func (o *Owner) Session(r *http.Request) (SessionInfo, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || len(c.Value) != 43 {
		return SessionInfo{}, false
	}
	hash := hashToken("session:" + c.Value)
	s, err := o.st.LookupOwnerSession(r.Context(), hash)
	if err != nil {
		if !errors.Is(err, store.ErrSessionNotFound) {
			o.log.Error("look up login session", "err", err)
		}
		return SessionInfo{}, false
	}
	now := o.now()
	if now.Sub(s.LastSeen) >= o.idle || now.Sub(s.Created) >= o.max {
		if err := o.st.DeleteOwnerSession(r.Context(), hash); err != nil {
			o.log.Error("delete expired login session", "err", err)
		}
		return SessionInfo{}, false
	}
	if now.Sub(s.LastSeen) >= touchEvery {
		if err := o.st.TouchOwnerSession(r.Context(), hash, now); err != nil {
			o.log.Warn("touch login session", "err", err)
		} else {
			s.LastSeen = now
		}
	}
	return o.info(s), true
}

func (o *Owner) info(s store.OwnerSession) SessionInfo {
	return SessionInfo{Method: s.Method, Created: s.Created, LastSeen: s.LastSeen,
		Expires: minTime(s.LastSeen.Add(o.idle), s.Created.Add(o.max))}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// RequireOwner returns the session when the owner is signed in. Otherwise it
// answers the request itself, sending a GET to the login page that comes
// back to this very URL afterwards, and returns false. The OAuth consent
// page starts with it.
func (o *Owner) RequireOwner(w http.ResponseWriter, r *http.Request) (SessionInfo, bool) {
	if s, ok := o.Session(r); ok {
		return s, true
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		http.Redirect(w, r, LoginURL(r.URL.RequestURI()), http.StatusSeeOther) // #nosec G710 -- LoginURL always starts with /login; the return path is checked and query-escaped
		return SessionInfo{}, false
	}
	o.fail(w, r, errSignedOut)
	return SessionInfo{}, false
}

// startSession signs the browser in: a new cookie (256 random bits, stored
// only as a hash), replacing the browser's previous session if it had one.
func (o *Owner) startSession(w http.ResponseWriter, r *http.Request, method string) error {
	var old string
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 43 {
		old = hashToken("session:" + c.Value)
	}
	now := o.now()
	if _, err := o.st.PruneOwnerSessions(r.Context(), now.Add(-o.idle), now.Add(-o.max)); err != nil {
		o.log.Warn("prune login sessions", "err", err)
	}
	secret := randomToken()
	if _, err := o.st.CreateOwnerSession(r.Context(), hashToken("session:"+secret), method, old); err != nil {
		if errors.Is(err, store.ErrNoOwner) {
			return errNoOwner
		}
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: secret, Path: "/", MaxAge: int(o.max / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
	o.markDevice(w, r)
	o.log.Info("owner signed in", "method", method, "source", httpx.SourceKey(r).String())
	return nil
}

func (o *Owner) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := o.st.DeleteOwnerSession(r.Context(), hashToken("session:"+c.Value)); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// binding returns this browser's binding cookie, setting a new one if it
// has none. Nothing is stored on the server.
func (o *Owner) binding(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(bindCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	c := &http.Cookie{Name: bindCookie, Value: randomToken(), Path: "/", Secure: true, HttpOnly: true,
		SameSite: http.SameSiteLaxMode}
	http.SetCookie(w, c)
	// Later code in this request reads it as if the browser had sent it
	// (a request carries only the name and value).
	r.AddCookie(c)
	return c.Value
}

// CSRFToken returns the token a form on a page served to r must carry (in a
// field named "csrf" or a header X-CSRF-Token). It is an HMAC of the
// browser's session cookie, or of its binding cookie before sign-in, so it
// is useless in any other browser. Pass w so a binding cookie can be set.
func (o *Owner) CSRFToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 43 {
		if _, ok := o.Session(r); ok {
			return mac(o.csrfKey, "session", c.Value)
		}
	}
	return mac(o.csrfKey, "bind", o.binding(w, r))
}

// CheckCSRF reports whether r carries a CSRF token made by CSRFToken for
// this browser. Every state-changing request checks it, behind an
// httpx.FormGuard (the owner's own routes through post).
func (o *Owner) CheckCSRF(r *http.Request) bool {
	got := r.Header.Get(csrfHeader)
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	if got == "" {
		return false
	}
	var want []string
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 43 {
		want = append(want, mac(o.csrfKey, "session", c.Value))
	}
	if c, err := r.Cookie(bindCookie); err == nil && len(c.Value) == 43 {
		want = append(want, mac(o.csrfKey, "bind", c.Value))
	}
	for _, w := range want {
		if subtle.ConstantTimeCompare([]byte(w), []byte(got)) == 1 {
			return true
		}
	}
	return false
}

// SignedInForm checks a form the owner posted from a page of this server,
// for the owner-only forms of other packages (the console's): a live
// session, then the page's CSRF token. Its refusals are signed_out and
// bad_csrf, in the words of the sign-in pages. It is the check the caller
// hands its httpx.FormGuard, which runs the method, origin and body checks
// first.
func (o *Owner) SignedInForm(r *http.Request) (SessionInfo, error) {
	s, ok := o.Session(r)
	if !ok {
		return SessionInfo{}, errSignedOut
	}
	if !o.CheckCSRF(r) {
		return SessionInfo{}, errCSRF
	}
	return s, nil
}

// BadForm is the refusal of a form or query that cannot be understood
// (bad_request); err is the detail for the log, and may be nil.
func BadForm(err error) *httpx.Error { return errBadRequest.With(err) }

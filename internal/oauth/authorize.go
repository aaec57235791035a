package oauth

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

const (
	// bindingCookie ties a pending request to the browser that started it.
	bindingCookie = "__Host-cortex-oauth"
	maxState      = 2048
	maxQuery      = 16 << 10
)

var singleParams = []string{"client_id", "redirect_uri", "response_type", "state", "code_challenge",
	"code_challenge_method", "scope", "resource"}

// authorizeStart is GET /authorize. Until the client and its redirect URI
// are known good, every problem is an error page (never a redirect to a URI
// that was not checked); after that, errors go back to the client with
// error, state and iss. A good request is stored as pending, bound to this
// browser, and the browser goes on to the consent page (through sign-in if
// needed).
func (s *Server) authorizeStart(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if len(r.URL.RawQuery) > maxQuery {
		return badAuthorize("request_too_large", "This authorization request is too large.", nil)
	}
	src := httpx.SourceKey(r)
	// The owner's own browser (signed in, or carrying the device cookie of
	// an earlier sign-in) spends no budget here: strangers exhausting the
	// global one must not keep the owner from approving an app.
	_, signedIn := s.own.Session(r)
	if !signedIn && !s.own.KnownDevice(r) {
		if ok, wait := s.authorize.Take(src); !ok {
			return &httpx.Error{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: wait,
				Message: "Too many sign-in requests. Wait a minute and start connecting the app again."}
		}
	}
	s.maybePrune(ctx)
	q := r.URL.Query()
	for _, k := range singleParams {
		if len(q[k]) > 1 {
			return badAuthorize("invalid_request", "The app sent the parameter "+k+" twice. Start connecting it again.", nil)
		}
	}
	c, err := s.client(ctx, q.Get("client_id"), src)
	if errors.Is(err, errUnknownClient) {
		return badAuthorize("unknown_client", "This app is not known to cortex. Remove the connector in the app and add it again.", err)
	}
	if err != nil {
		return err
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !matchRedirect(c.RedirectURIs, redirect) || (c.Kind != store.ClientAdmin && !s.allow.permits(redirect)) {
		return badAuthorize("bad_redirect_uri", "This app asked to be answered at an address it did not register or that this server does not allow.", nil)
	}
	state := q.Get("state")
	if len(state) > maxState {
		return badAuthorize("invalid_request", "The app's state parameter is longer than 2048 bytes.", nil)
	}
	back := func(code, desc string) error {
		http.Redirect(w, r, withParams(redirect, url.Values{"error": {code}, "error_description": {desc}, // #nosec G710 -- redirect matched a registered URI and, for clients the owner did not register, the allowlist (above)
			"state": {state}, "iss": {s.issuer}}), http.StatusSeeOther)
		return nil
	}
	switch {
	case q.Get("response_type") != "code":
		return back("unsupported_response_type", "response_type must be code")
	case q.Get("code_challenge") == "":
		return back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method S256")
	case q.Get("code_challenge_method") != "S256":
		return back("invalid_request", "code_challenge_method must be S256")
	case !validChallenge(q.Get("code_challenge")):
		return back("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
	case q.Has("resource") && !s.isResource(q.Get("resource")):
		return back("invalid_target", "the only resource here is "+s.resource)
	}
	id := newSecret("")
	bind := s.bindBrowser(w, r)
	p := store.OAuthPending{
		IDHash:      hashSecret("request", id),
		Source:      src.String(),
		Owner:       signedIn,
		BrowserHash: hashSecret("browser", bind),
		ClientID:    c.ID,
		RedirectURI: redirect,
		Scope:       normalizeScope(q.Get("scope")),
		State:       state,
		Challenge:   q.Get("code_challenge"),
		Resource:    s.resource,
		Expires:     s.now().Add(s.lim.PendingTTL),
	}
	if err := s.st.AddOAuthPending(ctx, p, s.lim.pending()); err != nil {
		return err
	}
	http.Redirect(w, r, "/authorize/consent?request="+id, http.StatusSeeOther)
	return nil
}

// validChallenge: an S256 challenge is 43 base64url characters.
func validChallenge(c string) bool { return wellFormed(c, "") }

// bindBrowser returns this browser's binding cookie, setting one if it has
// none. Pending requests store only its hash.
func (s *Server) bindBrowser(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(bindingCookie); err == nil && wellFormed(c.Value, "") {
		return c.Value
	}
	v := newSecret("")
	http.SetCookie(w, &http.Cookie{Name: bindingCookie, Value: v, Path: "/", Secure: true, HttpOnly: true,
		SameSite: http.SameSiteLaxMode})
	return v
}

// browserHash is the hash of r's binding cookie, or "" when it has none.
func browserHash(r *http.Request) string {
	c, err := r.Cookie(bindingCookie)
	if err != nil || !wellFormed(c.Value, "") {
		return ""
	}
	return hashSecret("browser", c.Value)
}

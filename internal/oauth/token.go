package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

var tokenParams = []string{"grant_type", "code", "code_verifier", "redirect_uri", "refresh_token", "resource",
	"scope", "client_id", "client_secret", "client_assertion", "client_assertion_type", "token", "token_type_hint"}

// parseTokenForm reads the body of /token or /revoke: form-encoded, each
// parameter at most once (RFC 6749 §3.2), bounded by the api adapter.
func parseTokenForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return errInvalidRequest("the body must be application/x-www-form-urlencoded and at most 64 KiB")
	}
	for _, k := range tokenParams {
		if len(r.PostForm[k]) > 1 {
			return errInvalidRequest("the parameter " + k + " was sent more than once")
		}
	}
	return nil
}

// token is POST /token: the authorization_code and refresh_token grants.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	src := httpx.SourceKey(r)
	if ok, wait := s.tokens.Take(src); !ok {
		return errSlowDown(wait)
	}
	if err := parseTokenForm(r); err != nil {
		return err
	}
	s.maybePrune(r.Context())
	c, err := s.authenticateClient(r, src)
	if err != nil {
		return err
	}
	if r.PostForm.Has("resource") && !s.isResource(r.PostForm.Get("resource")) {
		return &httpx.Error{Status: http.StatusBadRequest, Code: "invalid_target", Message: "the only resource here is " + s.resource}
	}
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		return s.redeemCode(w, r, c)
	case "refresh_token":
		return s.refresh(w, r, c)
	case "":
		return errInvalidRequest("grant_type is missing")
	default:
		return &httpx.Error{Status: http.StatusBadRequest, Code: "unsupported_grant_type",
			Message: "grant_type must be authorization_code or refresh_token"}
	}
}

// issue makes a new access and refresh token pair.
func (s *Server) issue() (access, refresh string, t store.IssuedTokens) {
	now := s.now()
	access, refresh = newSecret(accessPrefix), newSecret(refreshPrefix)
	return access, refresh, store.IssuedTokens{
		AccessHash:     hashSecret("access", access),
		AccessExpires:  now.Add(s.lim.AccessTTL),
		RefreshHash:    hashSecret("refresh", refresh),
		RefreshExpires: now.Add(s.lim.RefreshTTL),
	}
}

func (s *Server) redeemCode(w http.ResponseWriter, r *http.Request, c store.OAuthClient) error {
	f := r.PostForm
	code, verifier, redirect := f.Get("code"), f.Get("code_verifier"), f.Get("redirect_uri")
	if !wellFormed(code, codePrefix) {
		return errInvalidGrant("the authorization code is unknown or expired", nil)
	}
	if !validVerifier(verifier) {
		return errInvalidRequest("code_verifier is missing or not 43 to 128 unreserved characters")
	}
	access, refresh, t := s.issue()
	check := func(code store.OAuthCode) error {
		switch {
		case code.ClientID != c.ID:
			return errInvalidGrant("the authorization code was issued to another client", nil)
		case redirect != "" && redirect != code.RedirectURI:
			return errInvalidGrant("redirect_uri differs from the one of the authorization request", nil)
		case !pkceMatches(verifier, code.Challenge):
			return errInvalidGrant("code_verifier does not match the code_challenge", nil)
		case code.Resource != s.resource:
			return errInvalidGrant("the authorization code is for another resource", nil)
		}
		return nil
	}
	g, err := s.st.RedeemOAuthCode(r.Context(), hashSecret("code", code), check, t)
	switch {
	case errors.Is(err, store.ErrCodeReused):
		return errInvalidGrant("the authorization code was already used; every token issued from it is revoked", err)
	case errors.Is(err, store.ErrCodeInvalid):
		return errInvalidGrant("the authorization code is unknown or expired", nil)
	case err != nil:
		return err
	}
	s.log.Info("oauth tokens issued", "client", c.ID, "grant", g.ID)
	return s.writeTokens(w, access, refresh, t.AccessExpires, g.Scope)
}

func (s *Server) refresh(w http.ResponseWriter, r *http.Request, c store.OAuthClient) error {
	old := r.PostForm.Get("refresh_token")
	if !wellFormed(old, refreshPrefix) {
		return errInvalidGrant("the refresh token is unknown, expired or revoked", nil)
	}
	asked := r.PostForm.Get("scope")
	check := func(g store.OAuthGrant) (string, error) {
		if g.ClientID != c.ID {
			return "", errInvalidGrant("the refresh token was issued to another client", nil)
		}
		// A grant is for the /mcp URL it was approved for: after the public
		// URL changed, /mcp refuses its tokens, so the client must authorize
		// again rather than refresh into tokens nobody accepts.
		if g.Resource != s.resource {
			return "", errInvalidGrant("the refresh token is for "+g.Resource+", no longer served here; authorize again", nil)
		}
		sc, ok := subsetScope(g.Scope, asked)
		if !ok {
			return "", &httpx.Error{Status: http.StatusBadRequest, Code: "invalid_scope", Message: "a refresh cannot widen the scope"}
		}
		return sc, nil
	}
	access, refresh, t := s.issue()
	sealed := sealSuccessor(old, access, refresh, t.AccessExpires)
	res, err := s.st.RotateOAuthRefresh(r.Context(), hashSecret("refresh", old), s.lim.RefreshGrace, check, t, sealed)
	switch {
	case errors.Is(err, store.ErrRefreshReused):
		return errInvalidGrant("the refresh token was already used; every token of this grant is revoked", err)
	case errors.Is(err, store.ErrRefreshInvalid):
		return errInvalidGrant("the refresh token is unknown, expired or revoked", nil)
	case err != nil:
		return err
	}
	if res.Replayed {
		a, rt, exp, err := openSuccessor(old, res.Successor)
		if err != nil {
			return err
		}
		return s.writeTokens(w, a, rt, exp, res.Scope)
	}
	return s.writeTokens(w, access, refresh, t.AccessExpires, res.Scope)
}

func (s *Server) writeTokens(w http.ResponseWriter, access, refresh string, exp time.Time, scope string) error {
	httpx.WriteJSON(w, http.StatusOK, map[string]any{
		"access_token":  access,
		"token_type":    "Bearer",
		"expires_in":    max(1, int(exp.Sub(s.now()).Seconds())),
		"refresh_token": refresh,
		"scope":         scope,
	})
	return nil
}

// validVerifier: RFC 7636 §4.1, 43 to 128 unreserved characters.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// revoke is POST /revoke (RFC 7009): the client's own token ends its whole
// grant. Unknown tokens are answered 200 too.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) error {
	src := httpx.SourceKey(r)
	if ok, wait := s.tokens.Take(src); !ok {
		return errSlowDown(wait)
	}
	if err := parseTokenForm(r); err != nil {
		return err
	}
	c, err := s.authenticateClient(r, src)
	if err != nil {
		return err
	}
	tok := r.PostForm.Get("token")
	if tok == "" {
		return errInvalidRequest("token is missing")
	}
	var hash string
	switch {
	case wellFormed(tok, accessPrefix):
		hash = hashSecret("access", tok)
	case wellFormed(tok, refreshPrefix):
		hash = hashSecret("refresh", tok)
	}
	if hash != "" {
		ok, err := s.st.RevokeOAuthToken(r.Context(), hash, c.ID)
		if err != nil {
			return err
		}
		if ok {
			s.log.Info("oauth grant revoked by its client", "client", c.ID)
		}
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

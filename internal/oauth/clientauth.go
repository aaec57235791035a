package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// authenticateClient identifies the client of a /token or /revoke request
// by the method it registered: none (client_id alone), a secret in the
// body or in HTTP Basic, or a private_key_jwt assertion.
func (s *Server) authenticateClient(r *http.Request, src netip.Prefix) (store.OAuthClient, error) {
	ctx := r.Context()
	form := r.PostForm
	basicID, basicSecret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 §2.3.1: both parts are form-encoded first.
		var err1, err2 error
		basicID, err1 = url.QueryUnescape(basicID)
		basicSecret, err2 = url.QueryUnescape(basicSecret)
		if err1 != nil || err2 != nil {
			return store.OAuthClient{}, &httpx.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
				Message: "the Basic credentials are not form-encoded", Challenge: basicChallenge}
		}
	}
	id := form.Get("client_id")
	if basic {
		if id != "" && id != basicID {
			return store.OAuthClient{}, errInvalidRequest("client_id differs from the Basic credentials")
		}
		id = basicID
	}
	assertion := form.Get("client_assertion")
	if form.Get("client_assertion_type") != "" || assertion != "" {
		if form.Get("client_assertion_type") != assertionType {
			return store.OAuthClient{}, errInvalidRequest("client_assertion_type must be " + assertionType)
		}
		if id == "" {
			id = unverifiedIssuer(assertion)
		}
	}
	if id == "" {
		return store.OAuthClient{}, errInvalidClient("the request names no client; send client_id", nil)
	}
	c, err := s.st.OAuthClient(ctx, id)
	if errors.Is(err, store.ErrClientNotFound) {
		return store.OAuthClient{}, &httpx.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
			Message: "this client is not registered here; register again", Challenge: challengeIf(basic)}
	}
	if err != nil {
		return store.OAuthClient{}, err
	}
	switch c.AuthMethod {
	case "none":
		return c, nil
	case "client_secret_post", "client_secret_basic":
		secret := form.Get("client_secret")
		if basic {
			secret = basicSecret
		}
		if secret == "" || !secretMatches(c.SecretHash, secret) {
			return store.OAuthClient{}, &httpx.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
				Message: "the client secret is missing or wrong", Challenge: challengeIf(basic)}
		}
		return c, nil
	case "private_key_jwt":
		if assertion == "" {
			return store.OAuthClient{}, errInvalidClient("this client authenticates with a private_key_jwt client_assertion", nil)
		}
		if err := s.checkAssertion(ctx, c, assertion, src); err != nil {
			return store.OAuthClient{}, err
		}
		return c, nil
	}
	return store.OAuthClient{}, errInvalidClient("this client's authentication method is not supported", nil)
}

// checkAssertion verifies a private_key_jwt assertion of c with its current
// keys; if they do not verify it and they are more than a minute old, the
// key set is fetched again once (the client may have rotated its keys).
func (s *Server) checkAssertion(ctx context.Context, c store.OAuthClient, token string, src netip.Prefix) error {
	auds := []string{s.issuer + "/token", s.issuer, s.issuer + "/"}
	now := s.now()
	var a assertion
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var keys []publicKey
		var fetched time.Time
		keys, fetched, err = s.clientKeys(ctx, c, src, attempt > 0)
		if err != nil {
			return errInvalidClient("the client's keys could not be had", err)
		}
		a, err = verifyAssertion(token, keys, c.ID, auds, now)
		if err == nil || c.JWKSURI == "" || now.Sub(fetched) < time.Minute {
			break
		}
	}
	if err != nil {
		return errInvalidClient("the client assertion was not accepted", err)
	}
	fresh, room := s.jti.Use(c.ID+"\x00"+a.jti, a.exp, now)
	if !room {
		return &httpx.Error{Status: http.StatusServiceUnavailable, Code: "temporarily_unavailable",
			Message: "too many client assertions at once; try again in a minute", RetryAfter: time.Minute}
	}
	if !fresh {
		return errInvalidClient("this client assertion was already used", nil)
	}
	return nil
}

// clientKeys returns c's key set: inline, cached while fresh, or fetched
// from its jwks_uri under the same rules as metadata documents. When the
// fetch fails the stored copy serves up to DocStale.
func (s *Server) clientKeys(ctx context.Context, c store.OAuthClient, src netip.Prefix, refetch bool) ([]publicKey, time.Time, error) {
	now := s.now()
	if c.JWKSURI == "" {
		keys, err := parseJWKS([]byte(c.JWKS))
		return keys, now, err
	}
	cacheID := "jwks " + c.JWKSURI
	cached, ok := s.cimd.Get(cacheID)
	if ok && !refetch && now.Sub(cached.Fetched) < s.lim.DocTTL {
		keys, err := parseJWKS([]byte(cached.JWKS))
		return keys, cached.Fetched, err
	}
	fallback := func(cause error) ([]publicKey, time.Time, error) {
		if c.JWKS != "" && now.Sub(c.Fetched) < s.lim.DocStale {
			keys, err := parseJWKS([]byte(c.JWKS))
			return keys, now, err
		}
		return nil, now, cause
	}
	if ok, _ := s.fetches.Take(src); !ok {
		return fallback(errors.New("fetch budget spent"))
	}
	body, err := s.fetch.get(ctx, c.JWKSURI)
	if err != nil {
		return fallback(err)
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return fallback(err)
	}
	s.cimd.Put(cacheID, store.OAuthClient{ID: cacheID, JWKS: string(body), Fetched: now})
	if err := s.st.SetOAuthClientJWKS(ctx, c.ID, string(body)); err != nil {
		s.log.Warn("store client keys", "client", c.ID, "err", err)
	}
	return keys, now, nil
}

// unverifiedIssuer reads iss from an assertion before it is verified, only
// to know which client's keys to verify it with.
func unverifiedIssuer(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(token) > maxAssertionLen {
		return ""
	}
	var cl struct {
		Iss string `json:"iss"`
	}
	if decodePart(parts[1], &cl) != nil {
		return ""
	}
	return cl.Iss
}

// hashSecret is how every secret of this package is stored.
func hashSecret(kind, secret string) string {
	sum := sha256.Sum256([]byte(kind + ":" + secret))
	return hex.EncodeToString(sum[:])
}

func secretMatches(hash, secret string) bool {
	got := hashSecret("client-secret", secret)
	return hash != "" && subtle.ConstantTimeCompare([]byte(got), []byte(hash)) == 1
}

package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/cortex-mcp/cortex/internal/store"
)

// TokenVerifier checks a bearer token's secret. It returns
// store.ErrTokenNotFound for a secret that is unknown or revoked.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, secret string) (store.Token, error)
}

// ExtraApp is the key of auth.TokenInfo.Extra holding the name of the token
// (the app) that made an MCP request.
const ExtraApp = "app"

// UserIDPrefix starts the auth.TokenInfo.UserID of a bearer token; the SDK
// binds each session to the UserID that opened it.
const UserIDPrefix = "token:"

// tokenInfo is what tools see of the token behind a request.
func tokenInfo(t store.Token) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: UserIDPrefix + t.Name, Extra: map[string]any{ExtraApp: t.Name}}
}

// bearerSecret extracts the token from an "Authorization: Bearer <token>"
// header, by the same rule as the SDK's auth.RequireBearerToken.
func bearerSecret(r *http.Request) (string, bool) {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return "", false
	}
	return f[1], true
}

// authenticate verifies the bearer token of r, on every request, so that a
// revoked token stops working at once, also within open sessions. Failures
// spend the source's unauthenticated budget; a source that spent it all is
// refused before any verification, so that guessing tokens stays cheap for
// cortex and slow for the guesser.
func (s *Server) authenticate(r *http.Request) (store.Token, error) {
	now := s.now()
	src := s.sourceKey(r)
	if ok, retry := s.authFails.ready(src, now); !ok {
		return store.Token{}, errRateLimited("with missing or bad tokens from this address", retry)
	}
	secret, ok := bearerSecret(r)
	if !ok {
		s.authFails.take(src, now)
		return store.Token{}, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
			Challenge: s.challenge(""),
			Message:   "this endpoint needs an \"Authorization: Bearer <token>\" header; create a token with \"cortex admin tokens create\""}
	}
	tok, err := s.tokens.VerifyToken(r.Context(), secret)
	if errors.Is(err, store.ErrTokenNotFound) {
		s.authFails.take(src, now)
		return store.Token{}, &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken,
			Challenge: s.challenge(`error="invalid_token", error_description="the token is unknown or revoked"`),
			Message:   "the bearer token is unknown or revoked; ask the owner for a new one"}
	}
	if err != nil {
		return store.Token{}, fmt.Errorf("verify token: %w", err)
	}
	return tok, nil
}

// challenge builds a WWW-Authenticate value (RFC 6750 §3), pointing at the
// protected resource metadata (RFC 9728) when there is one.
func (s *Server) challenge(params string) string {
	var p []string
	if s.opts.ResourceMetadataURL != "" {
		p = append(p, fmt.Sprintf("resource_metadata=%q", s.opts.ResourceMetadataURL))
	}
	if params != "" {
		p = append(p, params)
	}
	if len(p) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(p, ", ")
}

type tokenInfoKey struct{}

// bindTokenInfo hands the TokenInfo that authenticate produced to the SDK.
// The SDK reads it from a context key only its own middleware can set, so
// that middleware runs here with a verifier that returns the already
// verified token; every refusal has been answered before, by cortex.
func bindTokenInfo(next http.Handler) http.Handler {
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		ti, _ := ctx.Value(tokenInfoKey{}).(*auth.TokenInfo)
		if ti == nil {
			return nil, auth.ErrInvalidToken
		}
		return ti, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

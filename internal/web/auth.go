package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// TokenVerifier checks a bearer token's secret. It returns
// store.ErrTokenNotFound for a secret that is unknown or revoked.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, secret string) (store.Token, error)
}

// Identity is who a verified bearer credential belongs to.
type Identity struct {
	// Subject keys the per-credential budget: "token:NAME"
	// for a bearer token, "oauth:GRANT" for an OAuth grant (stable across
	// token rotation).
	Subject string
	// App names the writer in the journal and the logs.
	App string
	// Scopes are the credential's scopes; nil means every scope.
	Scopes []string
	// Expires is when the credential stops working; zero for never.
	Expires time.Time
	// Scope is the part of the vault the credential may use, put on the
	// context of every MCP request so that the vault enforces it.
	Scope scope.Scope
}

// ErrUnknownToken is what a Verifier returns for a credential that is
// unknown, expired or revoked; any other error is a server failure.
var ErrUnknownToken = errors.New("unknown, expired or revoked token")

// Verifier checks one bearer credential.
type Verifier func(ctx context.Context, secret string) (Identity, error)

// StoreVerifier verifies cortex's own bearer tokens.
func StoreVerifier(tv TokenVerifier) Verifier {
	return func(ctx context.Context, secret string) (Identity, error) {
		t, err := tv.VerifyToken(ctx, secret)
		if errors.Is(err, store.ErrTokenNotFound) {
			return Identity{}, ErrUnknownToken
		}
		if err != nil {
			return Identity{}, err
		}
		// A stored scope that cannot be read fails the request (a server
		// error, logged) rather than fall back to the whole vault.
		sc, err := scope.Decode(t.VaultScope)
		if err != nil {
			return Identity{}, fmt.Errorf("token %q: %w", t.Name, err)
		}
		return Identity{Subject: UserIDPrefix + t.Name, App: t.Name, Scope: sc}, nil
	}
}

// ExtraApp is the key of auth.TokenInfo.Extra holding the name of the app
// that made an MCP request.
const ExtraApp = "app"

// UserIDPrefix starts the Subject of a bearer token, the UserID tools see.
const UserIDPrefix = "token:"

// tokenInfo is what tools see of the credential behind a request.
func tokenInfo(id Identity) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: id.Subject, Scopes: id.Scopes, Expiration: id.Expires, Extra: map[string]any{ExtraApp: id.App}}
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

// authenticate verifies the bearer credential of r, on every request, so that
// a revoked one stops working at its next request. A valid
// credential always passes; failures spend the source's unauthenticated
// budget, and a source that spent it all is answered 429, so guessing stays
// slow for the guesser without locking out good clients behind the same
// address.
func (s *Server) authenticate(r *http.Request) (Identity, error) {
	secret, sent := bearerSecret(r)
	if sent {
		// The address goes with the credential's bookkeeping write, so
		// the owner sees where each app or token was last used from.
		id, err := s.verify(store.WithUseAddr(r.Context(), useAddr(r)), secret)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, ErrUnknownToken) {
			return Identity{}, fmt.Errorf("verify token: %w", err)
		}
	}
	if ok, retry := s.authFails.Take(httpx.SourceKey(r)); !ok {
		return Identity{}, errRateLimited("with missing or bad tokens from this address", retry)
	}
	if !sent {
		return Identity{}, &httpx.Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
			Challenge: s.challenge(""),
			Message:   "this endpoint needs an \"Authorization: Bearer <token>\" header; create a token with \"cortex admin token create NAME\" or connect through OAuth"}
	}
	return Identity{}, &httpx.Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken,
		Challenge: s.challenge(`error="invalid_token", error_description="the token is unknown, expired or revoked"`),
		Message:   "the bearer token is unknown, expired or revoked; ask the owner for a new one or sign in again"}
}

// useAddr is the client address the listener resolved for r (RemoteAddr,
// already the client behind a trusted proxy), or "" if it is unparsable.
func useAddr(r *http.Request) string {
	a := httpx.ParseAddr(r.RemoteAddr) // unmapped, never zoned
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// hasScope reports whether id may use scope.
func (id Identity) hasScope(scope string) bool {
	return id.Scopes == nil || slices.Contains(id.Scopes, scope)
}

// challenge builds a WWW-Authenticate value (RFC 6750 §3), pointing at the
// protected resource metadata (RFC 9728) when there is one.
func (s *Server) challenge(params string) string {
	var p []string
	if s.opts.ResourceMetadataURL != "" {
		p = append(p, fmt.Sprintf("resource_metadata=%q", s.opts.ResourceMetadataURL))
	}
	if s.opts.ChallengeScope != "" && !strings.Contains(params, "scope=") {
		p = append(p, fmt.Sprintf("scope=%q", s.opts.ChallengeScope))
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

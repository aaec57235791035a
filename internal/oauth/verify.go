package oauth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// Identity is what an access token stands for on /mcp.
type Identity struct {
	// App names the client for the journal and `recent`: its sanitised name
	// with its id, e.g. "claude.ai (https://claude.ai/oauth/mcp-oauth-client-metadata)".
	App      string
	ClientID string
	// Subject is stable for the life of the grant across token rotation,
	// "oauth:<grant id>"; MCP sessions can be bound to it.
	Subject string
	Scopes  []string
	Expires time.Time
	// VaultScope is the part of the vault the owner gave the grant.
	VaultScope scope.Scope
}

// HasScope reports whether the token allows scope.
func (id Identity) HasScope(scope string) bool { return slices.Contains(id.Scopes, scope) }

// IsAccessToken reports whether secret has the shape of an access token
// issued here (they start with "cxa_"; console bearer tokens with "ctx_").
func IsAccessToken(secret string) bool { return strings.HasPrefix(secret, accessPrefix) }

// VerifyAccessToken checks an access token on every /mcp request: one
// indexed lookup, so a revoked client or grant stops working at once. Any
// failure is ErrInvalidToken (wrapped); other errors are the database's.
func (s *Server) VerifyAccessToken(ctx context.Context, secret string) (Identity, error) {
	if !wellFormed(secret, accessPrefix) {
		return Identity{}, ErrInvalidToken
	}
	a, err := s.st.VerifyOAuthAccess(ctx, hashSecret("access", secret))
	if errors.Is(err, store.ErrAccessInvalid) {
		return Identity{}, ErrInvalidToken
	}
	if err != nil {
		return Identity{}, err
	}
	if a.Resource != s.resource {
		return Identity{}, ErrInvalidToken
	}
	// A stored scope that cannot be read fails the request (a server
	// error) rather than fall back to the whole vault.
	vs, err := scope.Decode(a.VaultScope)
	if err != nil {
		return Identity{}, fmt.Errorf("grant %d: %w", a.GrantID, err)
	}
	s.touch(ctx, a.GrantID)
	return Identity{
		App:        AppName(a.ClientName, a.ClientID),
		ClientID:   a.ClientID,
		Subject:    "oauth:" + strconv.FormatInt(a.GrantID, 10),
		Scopes:     strings.Fields(a.Scope),
		Expires:    a.Expires,
		VaultScope: vs,
	}, nil
}

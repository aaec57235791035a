package oauth

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cortex-mcp/cortex/internal/store"
)

// ErrBadClient means the owner's input for a new client (from
// `cortex admin clients add`) was refused.
var ErrBadClient = errors.New("invalid client")

// AdminClient is a client the owner added with `cortex admin clients add`,
// for apps that can neither register themselves nor publish a metadata
// document.
type AdminClient struct {
	ID     string
	Name   string
	Secret string // empty for a public client; shown once, stored hashed
}

// AddAdminClient registers a client for `cortex admin clients add`. Its
// redirect URIs are the owner's own decision, so they need not be on the
// allowlist, but each must be an absolute URI without fragment, and plain
// http only on loopback. With secret the client authenticates with
// client_secret_post (or Basic); otherwise it is public and uses PKCE alone.
func AddAdminClient(ctx context.Context, st *store.Store, name string, redirectURIs []string, secret bool) (AdminClient, error) {
	if SanitizeName(name, "") == "" {
		return AdminClient{}, fmt.Errorf("%w: give the app a name", ErrBadClient)
	}
	if len(redirectURIs) == 0 || len(redirectURIs) > maxRedirects {
		return AdminClient{}, fmt.Errorf("%w: give 1 to %d redirect URIs", ErrBadClient, maxRedirects)
	}
	for _, u := range redirectURIs {
		pu, err := parseRedirect(u)
		if err != nil {
			return AdminClient{}, fmt.Errorf("%w: redirect URI %q: %v", ErrBadClient, u, err)
		}
		if pu.Scheme == "http" && !isLoopback(pu) {
			return AdminClient{}, fmt.Errorf("%w: redirect URI %q: plain http is allowed only for 127.0.0.1, localhost or [::1]", ErrBadClient, u)
		}
	}
	c := store.OAuthClient{
		ID:           newClientID(),
		Kind:         store.ClientAdmin,
		Name:         SanitizeName(name, ""),
		RedirectURIs: slices.Clone(redirectURIs),
		AuthMethod:   "none",
	}
	out := AdminClient{ID: c.ID, Name: c.Name}
	if secret {
		out.Secret = newSecret(secretPrefix)
		c.AuthMethod = "client_secret_post"
		c.SecretHash = hashSecret("client-secret", out.Secret)
	}
	if _, err := st.RegisterOAuthClient(ctx, c, 0, c.Created); err != nil {
		return AdminClient{}, err
	}
	return out, nil
}

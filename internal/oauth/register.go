package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// registration is the part of an RFC 7591 request cortex reads.
type registration struct {
	RedirectURIs  []string `json:"redirect_uris"`
	ClientName    string   `json:"client_name"`
	AuthMethod    *string  `json:"token_endpoint_auth_method"`
	GrantTypes    []string `json:"grant_types"`
	ResponseTypes []string `json:"response_types"`
	Scope         string   `json:"scope"`
	// AppType is OpenID Connect's application_type (SEP-837): "native"
	// or "web"; empty when the client did not say.
	AppType string `json:"application_type"`
}

func errRegistration(code, desc string) *httpx.Error {
	return &httpx.Error{Status: http.StatusBadRequest, Code: code, Message: desc}
}

// registerClient is dynamic client registration (RFC 7591). Anyone may
// call it, so it spends a per-source then a global budget, and clients that
// were never approved are capped (the oldest one past the minimum age makes
// room; otherwise 503).
func (s *Server) registerClient(w http.ResponseWriter, r *http.Request) error {
	if ok, wait := s.register.Take(httpx.SourceKey(r)); !ok {
		return errSlowDown(wait)
	}
	var reg registration
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&reg); err != nil {
		return errRegistration("invalid_client_metadata", "the body must be a JSON object of client metadata")
	}
	c, err := s.newRegisteredClient(reg, store.ClientDCR)
	if err != nil {
		return err
	}
	var secret string
	if c.AuthMethod != "none" {
		secret = newSecret(secretPrefix)
		c.SecretHash = hashSecret("client-secret", secret)
	}
	c, err = s.st.RegisterOAuthClient(r.Context(), c, s.lim.MaxUnusedClients, s.now().Add(-s.lim.UnusedClientMinAge))
	if errors.Is(err, store.ErrClientCapFull) {
		return &httpx.Error{Status: http.StatusServiceUnavailable, Code: "temporarily_unavailable", RetryAfter: 10 * time.Minute,
			Message: "too many clients registered recently and never used; try again in ten minutes"}
	}
	if err != nil {
		return err
	}
	s.log.Info("oauth client registered", "client", c.ID, "name", c.Name, "auth", c.AuthMethod)
	resp := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                grantTypes(reg.GrantTypes),
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": c.AuthMethod,
		"scope":                      normalizeScope(reg.Scope),
	}
	if reg.AppType != "" {
		resp["application_type"] = reg.AppType
	}
	if secret != "" {
		resp["client_secret"] = secret
		resp["client_secret_expires_at"] = 0
	}
	httpx.WriteJSON(w, http.StatusCreated, resp)
	return nil
}

// grantTypes is what a client may use: refresh tokens come with every code
// grant, so a client that named no types is told it has both.
func grantTypes(asked []string) []string {
	if len(asked) == 0 {
		return []string{"authorization_code", "refresh_token"}
	}
	return asked
}

// newRegisteredClient checks registration metadata, whether it comes from
// /register or from `cortex admin clients add`. The secret is left to the caller.
func (s *Server) newRegisteredClient(reg registration, kind string) (store.OAuthClient, error) {
	if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirects {
		return store.OAuthClient{}, errRegistration("invalid_redirect_uri", fmt.Sprintf("give 1 to %d redirect_uris", maxRedirects))
	}
	for _, u := range reg.RedirectURIs {
		if !s.allow.permits(u) {
			return store.OAuthClient{}, errRegistration("invalid_redirect_uri",
				fmt.Sprintf("redirect URI %.200q is not on this server's allowlist; the owner can add it with CORTEX_REDIRECT_ALLOWLIST", u))
		}
	}
	if err := checkAppType(reg.AppType, reg.RedirectURIs); err != nil {
		return store.OAuthClient{}, err
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return store.OAuthClient{}, errRegistration("invalid_client_metadata", "grant_types may hold only authorization_code and refresh_token")
		}
	}
	for _, rt := range reg.ResponseTypes {
		if rt != "code" {
			return store.OAuthClient{}, errRegistration("invalid_client_metadata", "response_types may hold only code")
		}
	}
	method := "client_secret_basic" // RFC 7591 §2: the default
	if reg.AuthMethod != nil {
		method = *reg.AuthMethod
	}
	if !slices.Contains([]string{"none", "client_secret_post", "client_secret_basic"}, method) {
		return store.OAuthClient{}, errRegistration("invalid_client_metadata",
			"token_endpoint_auth_method must be none, client_secret_post or client_secret_basic (private_key_jwt is for metadata document clients)")
	}
	return store.OAuthClient{
		ID:           newClientID(),
		Kind:         kind,
		Name:         SanitizeName(reg.ClientName, "unnamed app"),
		RedirectURIs: slices.Clone(reg.RedirectURIs),
		AuthMethod:   method,
	}, nil
}

// checkAppType applies OpenID Connect Registration's rule for the redirect
// URIs of each application_type (SEP-837): a native app receives the code on
// loopback http or its own private-use scheme, a web app on https at a
// public host. A client that names no type is held to neither, as before
// the rule: the allowlist alone decides.
func checkAppType(typ string, redirects []string) error {
	if typ == "" {
		return nil
	}
	if typ != "native" && typ != "web" {
		return errRegistration("invalid_client_metadata", "application_type must be native or web")
	}
	for _, r := range redirects {
		u, err := parseRedirect(r)
		if err != nil {
			continue // the allowlist refuses it with its own message
		}
		scheme := strings.ToLower(u.Scheme)
		native := isLoopback(u) || (scheme != "http" && scheme != "https")
		if typ == "native" && !native {
			return errRegistration("invalid_redirect_uri",
				fmt.Sprintf("application_type native takes loopback http or private-use scheme redirect URIs, not %.200q; register as web", r))
		}
		if typ == "web" && (scheme != "https" || loopbackHosts[u.Hostname()]) {
			return errRegistration("invalid_redirect_uri",
				fmt.Sprintf("application_type web takes https redirect URIs at a public host, not %.200q; register as native", r))
		}
	}
	return nil
}

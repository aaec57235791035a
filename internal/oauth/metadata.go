package oauth

import (
	"net/http"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// Scopes. Tokens carry one or both; a request without scope gets both.
const (
	ScopeRead  = "notes:read"
	ScopeWrite = "notes:write"
)

// Scopes is every scope cortex knows, in the order it lists them.
var Scopes = []string{ScopeRead, ScopeWrite}

// ScopeOffline is OpenID Connect's request for a refresh token (SEP-2207).
// cortex issues one with every grant, so asking for it changes nothing; the
// authorization server lists it so that clients may ask, the protected
// resource does not, since refreshing is no requirement of /mcp.
const ScopeOffline = "offline_access"

// DefaultScope is granted when a client asks for none (ChatGPT omits scope
// when it reconnects) or only for scopes cortex does not know.
const DefaultScope = ScopeRead + " " + ScopeWrite

// authMethods are the token endpoint client authentications cortex takes.
var authMethods = []string{"none", "client_secret_post", "client_secret_basic", "private_key_jwt"}

// normalizeScope keeps the known scopes of a space-separated request, in
// canonical order; unknown ones (offline_access, openid, ...) are dropped,
// as RFC 6749 §3.3 lets a server grant less than asked. Nothing known left
// means the default.
func normalizeScope(s string) string {
	asked := strings.Fields(s)
	var out []string
	for _, sc := range Scopes {
		if slices.Contains(asked, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return DefaultScope
	}
	return strings.Join(out, " ")
}

// subsetScope narrows granted to what a refresh asks for; asking for more
// than was granted is refused.
func subsetScope(granted, asked string) (string, bool) {
	if strings.TrimSpace(asked) == "" {
		return granted, true
	}
	have := strings.Fields(granted)
	var out []string
	for _, sc := range Scopes {
		if slices.Contains(strings.Fields(asked), sc) {
			if !slices.Contains(have, sc) {
				return "", false
			}
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return granted, true
	}
	return strings.Join(out, " "), true
}

// ResourceURL is the MCP endpoint, the audience of every token.
func (s *Server) ResourceURL() string { return s.resource }

// isResource reports whether v, a resource parameter (RFC 8707), names
// /mcp. Scheme and host are compared without regard to case, as RFC 3986
// §6.2.2.1 has them and MCP asks servers to accept; the rest must match.
func (s *Server) isResource(v string) bool {
	scheme, rest, _ := strings.Cut(v, "://")
	host, path, _ := strings.Cut(rest, "/")
	wantScheme, wantRest, _ := strings.Cut(s.resource, "://")
	wantHost, wantPath, _ := strings.Cut(wantRest, "/")
	return asciiEqualFold(scheme, wantScheme) && asciiEqualFold(host, wantHost) && path == wantPath
}

// asciiEqualFold is strings.EqualFold for ASCII letters alone: RFC 3986
// folds only those, where EqualFold also takes "ſ" for "s" and the Kelvin
// sign for "k".
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// ResourceMetadataURL is the protected resource metadata of /mcp (RFC 9728,
// path-inserted), as announced in challenges.
func (s *Server) ResourceMetadataURL() string {
	return s.issuer + "/.well-known/oauth-protected-resource/mcp"
}

// Challenge is the WWW-Authenticate value of a 401 from /mcp. tokenSent
// says whether the request carried a bearer token that was refused.
func (s *Server) Challenge(tokenSent bool) string {
	c := `Bearer resource_metadata="` + s.ResourceMetadataURL() + `", scope="` + DefaultScope + `"`
	if tokenSent {
		c += `, error="invalid_token", error_description="the access token is unknown, expired or revoked"`
	}
	return c
}

// InsufficientScope is the WWW-Authenticate value of a 403 from /mcp when
// the token lacks a scope the request needs.
func (s *Server) InsufficientScope(needed ...string) string {
	return `Bearer resource_metadata="` + s.ResourceMetadataURL() + `", scope="` + strings.Join(needed, " ") +
		`", error="insufficient_scope", error_description="the access token does not allow this"`
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	publicJSON(w, map[string]any{
		"resource":                 s.resource,
		"authorization_servers":    []string{s.issuer},
		"scopes_supported":         Scopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "cortex",
	})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	publicJSON(w, map[string]any{
		"issuer":                                           s.issuer,
		"authorization_endpoint":                           s.issuer + "/authorize",
		"token_endpoint":                                   s.issuer + "/token",
		"registration_endpoint":                            s.issuer + "/register",
		"revocation_endpoint":                              s.issuer + "/revoke",
		"scopes_supported":                                 append(slices.Clone(Scopes), ScopeOffline),
		"response_types_supported":                         []string{"code"},
		"response_modes_supported":                         []string{"query"},
		"grant_types_supported":                            []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":                 []string{"S256"},
		"token_endpoint_auth_methods_supported":            authMethods,
		"token_endpoint_auth_signing_alg_values_supported": signingAlgs,
		"revocation_endpoint_auth_methods_supported":       authMethods,
		"client_id_metadata_document_supported":            true,
		"authorization_response_iss_parameter_supported":   true,
	})
}

// publicJSON serves a metadata document: public, cacheable for a while,
// readable from any origin (RFC 9728 §3.1).
func publicJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.WriteJSON(w, http.StatusOK, v)
}

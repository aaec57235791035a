package oauth

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultRedirectAllowlist are the redirect URIs of the apps cortex knows:
// claude.ai and the Claude apps, ChatGPT (both its shared callback and its
// per-connector one), Meta AI, and loopback for native apps such as Claude
// Code and mcp-remote (RFC 8252: any port).
var DefaultRedirectAllowlist = []string{
	"https://claude.ai/api/mcp/auth_callback",
	"https://claude.com/api/mcp/auth_callback",
	"https://chatgpt.com/connector_platform_oauth_redirect",
	"https://chatgpt.com/connector/oauth/{id}",
	"https://agent.meta.ai/api/hatch/oauth/callback",
	"http://127.0.0.1",
	"http://localhost",
	"http://[::1]",
}

// maxRedirectURI bounds one redirect URI.
const maxRedirectURI = 2048

// loopbackHosts are the hosts of native-app redirects (RFC 8252 §7.3).
var loopbackHosts = map[string]bool{"127.0.0.1": true, "localhost": true, "::1": true}

// ParseRedirectAllowlist reads a setting such as CORTEX_REDIRECT_ALLOWLIST:
// entries separated by commas or spaces. "defaults" stands for
// DefaultRedirectAllowlist; an empty setting means the defaults alone. An
// entry is a redirect URI matched exactly, except that "{id}" once in it
// matches 1 to 64 of [A-Za-z0-9_-], and that a bare loopback origin
// (http://127.0.0.1, http://localhost, http://[::1]) admits any port and path
// on that host.
func ParseRedirectAllowlist(s string) ([]string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return DefaultRedirectAllowlist, nil
	}
	var out []string
	for _, f := range fields {
		if f == "defaults" {
			out = append(out, DefaultRedirectAllowlist...)
			continue
		}
		out = append(out, f)
	}
	if _, err := newAllowlist(out); err != nil {
		return nil, err
	}
	return out, nil
}

type allowlist struct {
	exact    map[string]bool
	patterns [][2]string // prefix, suffix around {id}
	loopback map[string]bool
}

func newAllowlist(entries []string) (*allowlist, error) {
	a := &allowlist{exact: map[string]bool{}, loopback: map[string]bool{}}
	for _, e := range entries {
		check := strings.Replace(e, "{id}", "x", 1)
		u, err := parseRedirect(check)
		if err != nil || strings.Contains(check, "{id}") {
			return nil, fmt.Errorf("%w: redirect allowlist entry %q: want an absolute URI without fragment, with {id} at most once", ErrBadConfig, e)
		}
		switch {
		case isLoopback(u) && (u.Path == "" || u.Path == "/") && u.Port() == "" && u.RawQuery == "":
			a.loopback[u.Hostname()] = true
		case u.Scheme == "http" && !isLoopback(u):
			return nil, fmt.Errorf("%w: redirect allowlist entry %q: plain http is allowed only for loopback", ErrBadConfig, e)
		case strings.Contains(e, "{id}"):
			pre, suf, _ := strings.Cut(e, "{id}")
			a.patterns = append(a.patterns, [2]string{pre, suf})
		default:
			a.exact[e] = true
		}
	}
	return a, nil
}

// permits reports whether uri may be used as a redirect URI at all.
func (a *allowlist) permits(uri string) bool {
	u, err := parseRedirect(uri)
	if err != nil {
		return false
	}
	if isLoopback(u) {
		return a.loopback[u.Hostname()] || a.exact[uri]
	}
	if a.exact[uri] {
		return true
	}
	for _, p := range a.patterns {
		if len(uri) > len(p[0])+len(p[1]) && strings.HasPrefix(uri, p[0]) && strings.HasSuffix(uri, p[1]) &&
			validID(uri[len(p[0]):len(uri)-len(p[1])]) {
			return true
		}
	}
	return false
}

func validID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// parseRedirect accepts an absolute URI with a scheme, no fragment, no user
// information, no control characters or spaces, at most maxRedirectURI long.
func parseRedirect(s string) (*url.URL, error) {
	if s == "" || len(s) > maxRedirectURI {
		return nil, fmt.Errorf("redirect URI must be 1 to %d bytes", maxRedirectURI)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] == 0x7f || s[i] == '\\' {
			return nil, fmt.Errorf("redirect URI holds a forbidden character")
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "" || u.Fragment != "" || strings.Contains(s, "#") || u.User != nil || u.Opaque != "" {
		return nil, fmt.Errorf("redirect URI must be absolute, without fragment or user information")
	}
	switch strings.ToLower(u.Scheme) {
	case "javascript", "data", "file", "vbscript", "blob", "about":
		return nil, fmt.Errorf("redirect URI scheme %q is not allowed", u.Scheme)
	case "http", "https":
		if u.Host == "" {
			return nil, fmt.Errorf("redirect URI needs a host")
		}
	}
	return u, nil
}

func isLoopback(u *url.URL) bool {
	return u.Scheme == "http" && loopbackHosts[u.Hostname()]
}

// matchRedirect reports whether uri is one of the client's registered
// redirect URIs. A loopback URI matches a registered one on the same host
// and path whatever the port, since native apps get a port from the system
// at each start (RFC 8252 §7.3).
func matchRedirect(registered []string, uri string) bool {
	q, err := parseRedirect(uri)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == uri {
			return true
		}
		if !isLoopback(q) {
			continue
		}
		ru, err := parseRedirect(r)
		if err == nil && isLoopback(ru) && ru.Hostname() == q.Hostname() && ru.EscapedPath() == q.EscapedPath() &&
			ru.RawQuery == q.RawQuery {
			return true
		}
	}
	return false
}

// redirectHost is what the consent page shows prominently.
func redirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

// formActionSource is the CSP source that lets the consent form's answer
// redirect to uri.
func formActionSource(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

// withParams adds query parameters to a redirect URI, keeping its own.
func withParams(uri string, params url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			if v != "" {
				q.Set(k, v)
			}
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

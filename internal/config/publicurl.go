package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// PublicURL is the origin people and apps use to reach cortex, parsed and
// checked once: http or https, a host, an optional port, nothing else. Every
// package that compares against it (Host and Origin checks, the OAuth
// issuer, the passkey relying party, the certificate name) reads its parts
// here instead of parsing a string again. The zero value means "not known
// yet" (listening on port 0 before the port is chosen).
type PublicURL struct {
	scheme string // "http" or "https"
	host   string // lowercase, IPv6 without brackets
	port   string // "" for the scheme's default port
}

// ParsePublicURL checks raw and returns it parsed. Upper-case letters, a
// default port and one trailing slash are accepted and dropped; a path,
// query, fragment or user info is refused, as is a scheme other than http
// or https.
func ParsePublicURL(raw string) (PublicURL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return PublicURL{}, fmt.Errorf("%q is not a URL", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return PublicURL{}, fmt.Errorf("%q must start with https:// (or http:// on loopback)", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || (u.Path != "" && u.Path != "/") || u.Opaque != "" {
		return PublicURL{}, fmt.Errorf("%q must be only scheme and host, without path, query or user", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return PublicURL{}, fmt.Errorf("%q has no host", raw)
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return PublicURL{}, fmt.Errorf("%q has a bad port", raw)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return PublicURL{}, fmt.Errorf("%q has a bad port", raw)
	}
	if port == defaultPort(scheme) {
		port = ""
	}
	return PublicURL{scheme: scheme, host: host, port: port}, nil
}

// MustParsePublicURL is ParsePublicURL for constants in tests and examples;
// it panics on a bad URL.
func MustParsePublicURL(raw string) PublicURL {
	u, err := ParsePublicURL(raw)
	if err != nil {
		panic(err)
	}
	return u
}

// PublicURLFromListen is the public URL of a plain HTTP server reached at
// its listen address (host:port), as when no --public-url is given.
func PublicURLFromListen(addr string) (PublicURL, error) {
	return ParsePublicURL("http://" + addr)
}

// String is the canonical form: lowercase scheme and host, no default port,
// no trailing slash, e.g. "https://notes.example.org". Exact comparisons
// (OAuth issuer, audience, Origin) rely on it. The zero value gives "".
func (u PublicURL) String() string {
	if u.IsZero() {
		return ""
	}
	return u.scheme + "://" + u.Host()
}

// IsZero reports whether u is unset.
func (u PublicURL) IsZero() bool { return u.scheme == "" }

// Scheme is "http" or "https".
func (u PublicURL) Scheme() string { return u.scheme }

// HTTPS reports whether the scheme is https.
func (u PublicURL) HTTPS() bool { return u.scheme == "https" }

// Hostname is the lowercase host without port, IPv6 without brackets.
func (u PublicURL) Hostname() string { return u.host }

// Port is the port clients connect to, the scheme's default when the URL
// names none ("443" for https, "80" for http).
func (u PublicURL) Port() string {
	if u.port == "" {
		return defaultPort(u.scheme)
	}
	return u.port
}

// ExplicitPort is the port written in the URL, "" when it is the default.
func (u PublicURL) ExplicitPort() string { return u.port }

// Host is host[:port] as it appears in the URL and in a browser's Host
// header: IPv6 in brackets, the default port left out.
func (u PublicURL) Host() string {
	if u.port != "" {
		return net.JoinHostPort(u.host, u.port)
	}
	if strings.Contains(u.host, ":") {
		return "[" + u.host + "]"
	}
	return u.host
}

// IsIP reports whether the host is an IP address rather than a DNS name
// (passkeys and ACME certificates need a name).
func (u PublicURL) IsIP() bool {
	_, err := netip.ParseAddr(u.host)
	return err == nil
}

// IsLoopback reports whether the host is localhost or a loopback address.
func (u PublicURL) IsLoopback() bool {
	if u.host == "localhost" || strings.HasSuffix(u.host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(u.host)
	return err == nil && a.IsLoopback()
}

// JoinPath is the URL of a path on this origin; p must start with "/".
func (u PublicURL) JoinPath(p string) string { return u.String() + p }

// URL returns a fresh *url.URL of the origin, for APIs that take one.
func (u PublicURL) URL() *url.URL {
	if u.IsZero() {
		return &url.URL{}
	}
	return &url.URL{Scheme: u.scheme, Host: u.Host()}
}

// MarshalText writes the canonical form, so a PublicURL prints and encodes
// as a string.
func (u PublicURL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText parses a URL as ParsePublicURL does; "" gives the zero value.
func (u *PublicURL) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*u = PublicURL{}
		return nil
	}
	p, err := ParsePublicURL(string(b))
	if err != nil {
		return err
	}
	*u = p
	return nil
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

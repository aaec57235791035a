package certs

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/crypto/acme/autocert"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/httpx"
)

// The TLS modes.
const (
	ModeACME  = "acme"
	ModeProxy = "proxy"
	ModeOff   = "off"
)

// Defaults used when the corresponding Options field is empty.
const (
	DefaultHTTPAddr     = ":80"
	DefaultHTTPSAddr    = ":443"
	DefaultDirectoryURL = autocert.DefaultACMEDirectory
)

// Options says how cortex listens. The zero value is not valid: Mode is required.
type Options struct {
	// Mode is ModeACME, ModeProxy or ModeOff.
	Mode string
	// PublicURL is the https URL people and assistants use, for example
	// https://notes.example.org. In acme mode its host is the only name a
	// certificate is requested for.
	PublicURL config.PublicURL
	// CacheDir holds the ACME account key and certificates (the state folder
	// plus "/acme"). It is created with mode 0700.
	CacheDir string
	// DirectoryURL is the ACME directory; empty means Let's Encrypt production.
	DirectoryURL string
	// Email is the optional ACME contact address for expiry notices.
	Email string
	// HTTPAddr and HTTPSAddr are the acme mode listen addresses (":80", ":443").
	HTTPAddr  string
	HTTPSAddr string
	// ListenAddr is the proxy and off mode listen address.
	ListenAddr string
	// Listener, when set, is the proxy and off mode listener, already open
	// on ListenAddr (cmd listens first, so that a port of 0 gives the public
	// URL its real port).
	Listener net.Listener
	// TrustedProxies are the networks whose X-Forwarded-* headers are believed
	// in proxy mode; empty means loopback only (a proxy on the same host).
	TrustedProxies []netip.Prefix
	// RootCAs, when set, replaces the system roots for talking to the ACME
	// directory (a private CA, or a test CA).
	RootCAs *x509.CertPool
	// WrapListener, when set, wraps the acme mode's listeners (both face
	// clients directly), e.g. to cap connections per source.
	WrapListener func(net.Listener) net.Listener
	// ShutdownGrace bounds how long requests in flight may finish once
	// serving is asked to stop (default DefaultShutdownGrace).
	ShutdownGrace time.Duration
	// Logger receives start-up, warning and certificate errors; nil discards.
	Logger *slog.Logger
}

// ErrInvalidOptions is wrapped by every validation error.
var ErrInvalidOptions = errors.New("invalid TLS options")

// OptionError is a validation failure: a stable code for scripts and one
// sentence saying what to change.
type OptionError struct {
	Code string
	Msg  string
}

func (e *OptionError) Error() string { return e.Code + ": " + e.Msg }

// Unwrap lets errors.Is(err, ErrInvalidOptions) hold.
func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

func invalid(code, format string, args ...any) error {
	return &OptionError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithDefaults returns o with empty addresses, directory and logger filled in.
func (o Options) WithDefaults() Options {
	if o.HTTPAddr == "" {
		o.HTTPAddr = DefaultHTTPAddr
	}
	if o.HTTPSAddr == "" {
		o.HTTPSAddr = DefaultHTTPSAddr
	}
	if o.DirectoryURL == "" {
		o.DirectoryURL = DefaultDirectoryURL
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.ShutdownGrace = httpx.Or(o.ShutdownGrace, DefaultShutdownGrace)
	return o
}

// Validate reports the first problem with o as an *OptionError. Call it on
// the result of WithDefaults.
func (o Options) Validate() error {
	switch o.Mode {
	case ModeACME:
		return o.validateACME()
	case ModeProxy:
		if o.ListenAddr == "" {
			return invalid("tls_listen_missing", "proxy mode needs a listen address such as 127.0.0.1:8080; set --listen")
		}
		if _, _, err := net.SplitHostPort(o.ListenAddr); err != nil {
			return invalid("tls_listen_invalid", "listen address %q is not host:port; use for example 127.0.0.1:8080", o.ListenAddr)
		}
		return nil
	case ModeOff:
		return validateLoopbackListen(o.ListenAddr)
	case "":
		return invalid("tls_mode_missing", "choose a TLS mode: acme (cortex gets its own certificate), proxy (behind a reverse proxy) or off (loopback only)")
	default:
		return invalid("tls_mode_unknown", "TLS mode %q is not one of acme, proxy or off", o.Mode)
	}
}

func (o Options) validateACME() error {
	if _, err := acmeHost(o.PublicURL); err != nil {
		return err
	}
	if o.CacheDir == "" {
		return invalid("tls_cache_missing", "acme mode needs a folder for certificates; set the state folder")
	}
	d, err := url.Parse(o.DirectoryURL)
	if err != nil || d.Scheme != "https" || d.Host == "" {
		return invalid("tls_acme_directory_invalid", "ACME directory %q must be an https URL, for example %s", o.DirectoryURL, DefaultDirectoryURL)
	}
	if o.Email != "" && (!strings.Contains(o.Email, "@") || strings.ContainsAny(o.Email, " \t\r\n,")) {
		return invalid("tls_acme_email_invalid", "ACME contact %q is not an e-mail address; leave it empty or give one address", o.Email)
	}
	for _, a := range []struct{ name, addr string }{{"HTTP", o.HTTPAddr}, {"HTTPS", o.HTTPSAddr}} {
		if _, _, err := net.SplitHostPort(a.addr); err != nil {
			return invalid("tls_listen_invalid", "%s listen address %q is not host:port; use for example :80 and :443", a.name, a.addr)
		}
	}
	return nil
}

// acmeHost checks that u is an https URL naming a DNS host on the default
// port and returns that host.
func acmeHost(u config.PublicURL) (string, error) {
	if u.IsZero() {
		return "", invalid("tls_public_url_missing", "acme mode needs the public URL, for example https://notes.example.org; set --public-url")
	}
	if !u.HTTPS() {
		return "", invalid("tls_public_url_not_https", "public URL %q must start with https:// in acme mode", u)
	}
	if p := u.ExplicitPort(); p != "" {
		return "", invalid("tls_public_url_port", "public URL %q names port %s, but ACME validates on 443; drop the port or use proxy mode", u, p)
	}
	if u.IsIP() {
		return "", invalid("tls_public_url_ip", "public URL %q uses an IP address; ACME needs a DNS name pointing at this machine", u)
	}
	host := u.Hostname()
	if !strings.Contains(host, ".") || host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".") {
		return "", invalid("tls_public_url_host", "public URL host %q is not a public DNS name; use a name such as notes.example.org", host)
	}
	for _, label := range strings.Split(host, ".") {
		if !validLabel(label) {
			return "", invalid("tls_public_url_host", "public URL host %q is not a valid DNS name", host)
		}
	}
	return host, nil
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for _, c := range []byte(l) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validateLoopbackListen(addr string) error {
	if addr == "" {
		return invalid("tls_listen_missing", "mode off needs a loopback listen address such as 127.0.0.1:8080; set --listen")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return invalid("tls_listen_invalid", "listen address %q is not host:port; use for example 127.0.0.1:8080", addr)
	}
	if !config.IsLoopbackHost(host) {
		return invalid("tls_off_not_loopback", "mode off serves plain HTTP and may only listen on loopback, not %q; use 127.0.0.1, or the acme or proxy mode", addr)
	}
	return nil
}

// Warnings lists what is allowed but probably a mistake.
func (o Options) Warnings() []string {
	var w []string
	if o.Mode == ModeProxy && len(o.TrustedProxies) == 0 {
		if host, _, err := net.SplitHostPort(o.ListenAddr); err == nil && !config.IsLoopbackHost(host) {
			w = append(w, fmt.Sprintf("proxy mode listens on %s beyond loopback without trusted proxies: X-Forwarded-* headers are believed only from loopback, so a proxy on another machine hides the client addresses; set the trusted proxy networks", o.ListenAddr))
		}
	}
	if o.Mode == ModeProxy && !o.PublicURL.IsZero() && !o.PublicURL.HTTPS() {
		w = append(w, fmt.Sprintf("public URL %q is not https: assistants require https in front of cortex", o.PublicURL))
	}
	return w
}

// HealthURL is the URL `cortex healthcheck` should GET for these options. In
// acme mode it is plain HTTP on the loopback side of the :80 listener, which
// answers /healthz to loopback peers, so a health check never starts a
// certificate request and works before the first certificate exists.
func HealthURL(o Options) (string, error) {
	o = o.WithDefaults()
	addr := o.ListenAddr
	if o.Mode == ModeACME {
		addr = o.HTTPAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", invalid("tls_listen_invalid", "listen address %q is not host:port", addr)
	}
	switch {
	case host == "" || host == "0.0.0.0":
		host = "127.0.0.1"
	case host == "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}

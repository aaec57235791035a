// Package config turns flags and CORTEX_* environment variables into one
// validated Config value. It is parsed once, in cmd/cortex, and passed down;
// nothing here is global and nothing here touches the notes.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is everything `cortex serve` needs.
type Config struct {
	Vault        string // absolute
	State        string // absolute
	Listen       string // host:port for plain HTTP (tls off or proxy)
	PublicURL    string // canonical: lowercase scheme and host, no default port, no trailing slash; "" until known when listening on port 0
	Instructions string // vault-relative path of the instructions file
	Deny         []string

	MinFreeBytes  uint64
	RatePerMinute int
	// MaxSessions and SessionIdle are retired: /mcp keeps no sessions. They
	// are still parsed, so that existing settings keep starting cortex.
	MaxSessions    int
	SessionIdle    time.Duration
	JournalDays    int
	LogFormat      string // text | json
	LogLevel       string // debug | info | warn | error
	TLS            string // off | proxy | acme
	ACMEDirectory  string
	ACMEEmail      string
	HTTPAddr       string // acme: :80
	HTTPSAddr      string // acme: :443
	TrustedProxies []netip.Prefix
	// RedirectAllowlist is the raw OAuth redirect allowlist setting ("" for
	// the built-in list); the oauth package parses and checks it.
	RedirectAllowlist string
}

// Defaults used by `make run` on a fresh machine.
const (
	DefaultVault  = "./data/vault"
	DefaultState  = "./data/state"
	DefaultListen = "127.0.0.1:8080"
	LetsEncrypt   = "https://acme-v02.api.letsencrypt.org/directory"
)

// ErrHelp is returned when -h or --help was asked for; usage has been printed.
var ErrHelp = flag.ErrHelp

// Error is a configuration problem with a hint on how to fix it.
type Error struct {
	Setting string // the flag name, e.g. "--vault"
	Problem string
	Hint    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s\nhint: %s", e.Setting, e.Problem, e.Hint)
}

type setting struct {
	flag, env, def, usage string
	dst                   *string
}

// Parse reads `cortex serve` flags from args and CORTEX_* variables through
// getenv (flags win), applies defaults, validates and creates the folders.
func Parse(args []string, getenv func(string) string, usage io.Writer) (Config, error) {
	var raw struct {
		vault, state, listen, publicURL, instructions, deny              string
		minFree, rate, sessions, idle, journalDays, logFormat, logLevel  string
		tls, acmeDir, acmeEmail, httpAddr, httpsAddr, trusted, redirects string
	}
	settings := []setting{
		{"vault", "CORTEX_VAULT", DefaultVault, "folder of Markdown notes", &raw.vault},
		{"state", "CORTEX_STATE", DefaultState, "folder for the state database (outside the vault)", &raw.state},
		{"listen", "CORTEX_LISTEN", DefaultListen, "address for plain HTTP (tls off or proxy)", &raw.listen},
		{"public-url", "CORTEX_PUBLIC_URL", "", "the URL people and apps use to reach cortex (default http://<listen>)", &raw.publicURL},
		{"instructions", "CORTEX_INSTRUCTIONS", "AGENTS.md", "vault-relative file sent to assistants as server instructions", &raw.instructions},
		{"deny", "CORTEX_DENY", "", "comma-separated vault paths tools may not read or write", &raw.deny},
		{"min-free-mb", "CORTEX_MIN_FREE_MB", "1024", "refuse writes when the vault's disk has less free space (MiB)", &raw.minFree},
		{"rate-limit", "CORTEX_RATE_LIMIT", "120", "requests a minute per token", &raw.rate},
		{"max-sessions", "CORTEX_MAX_SESSIONS", "16", "retired: /mcp keeps no MCP sessions; accepted and ignored", &raw.sessions},
		{"session-idle", "CORTEX_SESSION_IDLE", "30m", "retired: /mcp keeps no MCP sessions; accepted and ignored", &raw.idle},
		{"journal-days", "CORTEX_JOURNAL_DAYS", "90", "days the write journal is kept", &raw.journalDays},
		{"log-format", "CORTEX_LOG_FORMAT", "text", "text or json", &raw.logFormat},
		{"log-level", "CORTEX_LOG_LEVEL", "info", "debug, info, warn or error", &raw.logLevel},
		{"tls", "CORTEX_TLS", "off", "off (plain HTTP on loopback), proxy (behind a reverse proxy) or acme (own certificate)", &raw.tls},
		{"acme-directory", "CORTEX_ACME_DIRECTORY", LetsEncrypt, "ACME directory URL", &raw.acmeDir},
		{"acme-email", "CORTEX_ACME_EMAIL", "", "contact e-mail for the ACME account", &raw.acmeEmail},
		{"http-addr", "CORTEX_HTTP_ADDR", ":80", "acme: address answering http-01 and redirecting to https", &raw.httpAddr},
		{"https-addr", "CORTEX_HTTPS_ADDR", ":443", "acme: address serving https", &raw.httpsAddr},
		{"trusted-proxies", "CORTEX_TRUSTED_PROXIES", "", "comma-separated networks whose X-Forwarded-For is believed", &raw.trusted},
		{"redirect-allowlist", "CORTEX_REDIRECT_ALLOWLIST", "", "OAuth redirect URIs apps may use, separated by commas (\"defaults\" adds the built-in list of claude.ai, ChatGPT, Meta AI and loopback)", &raw.redirects},
	}
	fs := flag.NewFlagSet("cortex serve", flag.ContinueOnError)
	fs.SetOutput(usage)
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		fs.StringVar(s.dst, s.flag, def, s.usage+" ($"+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, &Error{"serve", fmt.Sprintf("unexpected argument %q", fs.Arg(0)), "flags start with --; run `cortex serve --help`"}
	}

	var c Config
	var err error
	if c.Vault, err = absDir("--vault", raw.vault); err != nil {
		return Config{}, err
	}
	if c.State, err = absDir("--state", raw.state); err != nil {
		return Config{}, err
	}
	if within(c.State, c.Vault) {
		return Config{}, &Error{"--state", "the state folder is the vault or inside it", "put the state folder next to the vault, for example ./data/state beside ./data/vault"}
	}
	if within(c.Vault, c.State) {
		return Config{}, &Error{"--vault", "the vault is inside the state folder", "keep the vault and the state folder side by side"}
	}
	c.TLS = strings.ToLower(strings.TrimSpace(raw.tls))
	switch c.TLS {
	case "off", "proxy", "acme":
	default:
		return Config{}, &Error{"--tls", fmt.Sprintf("unknown mode %q", raw.tls), "use off, proxy or acme"}
	}
	c.Listen = raw.listen
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return Config{}, &Error{"--listen", fmt.Sprintf("%q is not host:port", c.Listen), "write it like 127.0.0.1:8080"}
	}
	if c.TLS == "off" && !loopbackListen(c.Listen) {
		return Config{}, &Error{"--listen", "plain HTTP without TLS may only listen on loopback", "use --listen 127.0.0.1:8080, or --tls acme, or --tls proxy behind a reverse proxy"}
	}
	// Without --public-url the server is reached at its listen address;
	// with port 0 that is only known after listening, so serve fills it in.
	if raw.publicURL == "" && c.TLS != "off" {
		return Config{}, &Error{"--public-url", "the public URL is required with --tls " + c.TLS, "set --public-url https://your.domain"}
	}
	if raw.publicURL != "" {
		if c.PublicURL, err = CanonicalURL(raw.publicURL); err != nil {
			return Config{}, &Error{"--public-url", err.Error(), "give the URL as https://notes.example.com (no path, no trailing slash)"}
		}
	} else if _, port, _ := net.SplitHostPort(c.Listen); port != "0" {
		if c.PublicURL, err = CanonicalURL("http://" + c.Listen); err != nil {
			return Config{}, &Error{"--listen", err.Error(), "write it like 127.0.0.1:8080"}
		}
	}
	if c.TLS == "acme" && !strings.HasPrefix(c.PublicURL, "https://") {
		return Config{}, &Error{"--public-url", "acme mode needs an https public URL", "set --public-url https://your.domain"}
	}
	c.Instructions = strings.TrimPrefix(strings.TrimSpace(raw.instructions), "./")
	if c.Instructions == "" || strings.HasPrefix(c.Instructions, "/") || strings.Contains(c.Instructions, "..") {
		return Config{}, &Error{"--instructions", "the instructions file must be a path inside the vault", "use a vault-relative path such as AGENTS.md"}
	}
	for _, d := range strings.Split(raw.deny, ",") {
		if d = strings.Trim(strings.TrimSpace(d), "/"); d != "" {
			if strings.Contains(d, "..") {
				return Config{}, &Error{"--deny", fmt.Sprintf("%q leaves the vault", d), "list vault-relative paths such as Private/,journal/secret.md"}
			}
			c.Deny = append(c.Deny, d)
		}
	}
	var n int
	if n, err = number("--min-free-mb", raw.minFree, 0, 1<<20); err != nil {
		return Config{}, err
	}
	c.MinFreeBytes = uint64(n) << 20 // #nosec G115 -- number bounds n to [0, 1<<20] just above
	if c.RatePerMinute, err = number("--rate-limit", raw.rate, 1, 10_000_000); err != nil {
		return Config{}, err
	}
	if c.MaxSessions, err = number("--max-sessions", raw.sessions, 1, 1024); err != nil {
		return Config{}, err
	}
	if c.JournalDays, err = number("--journal-days", raw.journalDays, 1, 3650); err != nil {
		return Config{}, err
	}
	if c.SessionIdle, err = time.ParseDuration(raw.idle); err != nil || c.SessionIdle < time.Minute || c.SessionIdle > 24*time.Hour {
		return Config{}, &Error{"--session-idle", fmt.Sprintf("%q is not a duration between 1m and 24h", raw.idle), "write it like 30m"}
	}
	c.LogFormat = raw.logFormat
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return Config{}, &Error{"--log-format", fmt.Sprintf("unknown format %q", raw.logFormat), "use text or json"}
	}
	c.LogLevel = raw.logLevel
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return Config{}, &Error{"--log-level", fmt.Sprintf("unknown level %q", raw.logLevel), "use debug, info, warn or error"}
	}
	c.ACMEDirectory, c.ACMEEmail, c.HTTPAddr, c.HTTPSAddr = raw.acmeDir, raw.acmeEmail, raw.httpAddr, raw.httpsAddr
	if u, err := url.Parse(c.ACMEDirectory); err != nil || u.Scheme != "https" || u.Host == "" {
		return Config{}, &Error{"--acme-directory", "the ACME directory must be an https URL", "leave it unset for Let's Encrypt"}
	}
	for _, p := range strings.Split(raw.trusted, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pfx, err := parsePrefix(p)
		if err != nil {
			return Config{}, &Error{"--trusted-proxies", fmt.Sprintf("%q is not an address or network", p), "write networks like 127.0.0.1/32,10.0.0.0/8"}
		}
		c.TrustedProxies = append(c.TrustedProxies, pfx)
	}
	c.RedirectAllowlist = raw.redirects
	return c, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

func number(name, s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, &Error{name, fmt.Sprintf("%q is not a whole number from %d to %d", s, lo, hi), fmt.Sprintf("give a number between %d and %d", lo, hi)}
	}
	return n, nil
}

// absDir makes dir absolute and creates it (0700) when missing.
func absDir(name, dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", &Error{name, "the folder is empty", "give a folder path"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{name, err.Error(), "give a folder path"}
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", &Error{name, "the folder cannot be created: " + cause(err), "create it yourself or choose a writable place"}
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", &Error{name, "not a folder", "give a folder path"}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func cause(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))))
}

func loopbackListen(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// CanonicalURL checks a public URL and returns its canonical form: http or
// https, lowercase scheme and host, no default port, no path, query, fragment
// or user info, no trailing slash. Exact comparisons elsewhere rely on it.
func CanonicalURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%q is not a URL", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%q must start with https:// (or http:// on loopback)", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", fmt.Errorf("%q must be only scheme and host, without path, query or user", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q has a bad port", raw)
		}
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

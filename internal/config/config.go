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

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// Config is everything `cortex serve` needs.
type Config struct {
	Vault        string    // absolute
	State        string    // absolute
	Listen       string    // host:port for plain HTTP (tls off or proxy)
	PublicURL    PublicURL // zero until known when listening on port 0
	Instructions string    // vault-relative path of the instructions file
	// Deny and Private are checked patterns (scope.ParseRules), as written
	// less a leading or trailing '/'.
	Deny    []string
	Private []string

	MinFreeBytes  uint64 // the disk floor of every write; 0: none (--min-free-mb 0)
	RatePerMinute int
	// Retired lists the retired settings that were given (flag names), for
	// a warning at start: --max-sessions and --session-idle, since /mcp
	// keeps no sessions. Any value of theirs is accepted and ignored, so
	// that existing settings keep starting cortex.
	Retired        []string
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

	// HistoryDays keeps every version of a note this many days (then one
	// a day for a year); HistoryMaxBytes caps the stored history.
	HistoryDays     int
	HistoryMaxBytes int64

	// BackupDir ("" for none) receives a backup every BackupEvery; the
	// newest BackupKeep are kept.
	BackupDir   string
	BackupEvery time.Duration
	BackupKeep  int

	// MemoryLimit is the soft memory limit in bytes (--memory-limit):
	// MemoryLimitAuto for cortex to choose at start (ChooseMemoryLimit),
	// 0 to leave the Go runtime's own.
	MemoryLimit int64
	// BackupCommand (nil for none) is run on each scheduled backup's
	// archive: the program and its arguments, split as a shell would
	// split words, without running one.
	BackupCommand []string
}

// ErrHelp is returned when -h or --help was asked for; usage has been printed.
var ErrHelp = flag.ErrHelp

// Error is a configuration problem with a hint on how to fix it.
type Error struct {
	Setting string // the flag name, e.g. "--vault"
	// Variable is the CORTEX_* variable the bad value came from; "" when
	// it came from a flag (or is a default).
	Variable string
	Problem  string
	Hint     string
}

func (e *Error) Error() string {
	if e.Variable != "" {
		return fmt.Sprintf("%s (set by %s): %s\nhint: %s", e.Setting, e.Variable, e.Problem, e.Hint)
	}
	return fmt.Sprintf("%s: %s\nhint: %s", e.Setting, e.Problem, e.Hint)
}

// Parse reads `cortex serve` flags from args and CORTEX_* variables through
// getenv (flags win), applies defaults, validates and creates the folders.
func Parse(args []string, getenv func(string) string, usage io.Writer) (Config, error) {
	s := FromEnv(getenv)
	fs := flag.NewFlagSet("cortex serve", flag.ContinueOnError)
	fs.SetOutput(usage)
	s.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	fs.Visit(func(f *flag.Flag) { delete(s.fromEnv, "--"+f.Name) })
	if fs.NArg() > 0 {
		return Config{}, &Error{Setting: "serve", Problem: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), Hint: "flags start with --; run `cortex serve --help`"}
	}
	return s.Config()
}

// Config checks every setting and returns the Config, creating the vault
// and state folders when they are missing.
func (raw Settings) Config() (Config, error) {
	c, err := raw.check()
	var e *Error
	if errors.As(err, &e) {
		e.Variable = raw.fromEnv[e.Setting]
	}
	return c, err
}

func (raw Settings) check() (Config, error) {
	var c Config
	var err error
	if c.Vault, err = absDir("--vault", raw.Vault); err != nil {
		return Config{}, err
	}
	if c.State, err = absDir("--state", raw.State); err != nil {
		return Config{}, err
	}
	if within(c.State, c.Vault) {
		return Config{}, &Error{Setting: "--state", Problem: "the state folder is the vault or inside it", Hint: "put the state folder next to the vault, for example ./data/state beside ./data/vault"}
	}
	if within(c.Vault, c.State) {
		return Config{}, &Error{Setting: "--vault", Problem: "the vault is inside the state folder", Hint: "keep the vault and the state folder side by side"}
	}
	c.TLS = strings.ToLower(strings.TrimSpace(raw.TLS))
	switch c.TLS {
	case "off", "proxy", "acme":
	default:
		return Config{}, &Error{Setting: "--tls", Problem: fmt.Sprintf("unknown mode %q", raw.TLS), Hint: "use off, proxy or acme"}
	}
	c.Listen = raw.Listen
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return Config{}, &Error{Setting: "--listen", Problem: fmt.Sprintf("%q is not host:port", c.Listen), Hint: "write it like 127.0.0.1:8080"}
	}
	if c.TLS == "off" && !loopbackListen(c.Listen) {
		return Config{}, &Error{Setting: "--listen", Problem: "plain HTTP without TLS may only listen on loopback", Hint: "use --listen 127.0.0.1:8080, or --tls acme, or --tls proxy behind a reverse proxy"}
	}
	// Without --public-url the server is reached at its listen address;
	// with port 0 that is only known after listening, so serve fills it in.
	if raw.PublicURL == "" && c.TLS != "off" {
		return Config{}, &Error{Setting: "--public-url", Problem: "the public URL is required with --tls " + c.TLS, Hint: "set --public-url https://your.domain"}
	}
	if raw.PublicURL != "" {
		if c.PublicURL, err = ParsePublicURL(raw.PublicURL); err != nil {
			return Config{}, &Error{Setting: "--public-url", Problem: err.Error(), Hint: "give the URL as https://notes.example.com (no path, no trailing slash)"}
		}
	} else if _, port, _ := net.SplitHostPort(c.Listen); port != "0" {
		if c.PublicURL, err = PublicURLFromListen(c.Listen); err != nil {
			return Config{}, &Error{Setting: "--listen", Problem: err.Error(), Hint: "write it like 127.0.0.1:8080"}
		}
	}
	if c.TLS == "acme" && !c.PublicURL.HTTPS() {
		return Config{}, &Error{Setting: "--public-url", Problem: "acme mode needs an https public URL", Hint: "set --public-url https://your.domain"}
	}
	c.Instructions = strings.TrimPrefix(strings.TrimSpace(raw.Instructions), "./")
	if c.Instructions == "" || strings.HasPrefix(c.Instructions, "/") || strings.Contains(c.Instructions, "..") {
		return Config{}, &Error{Setting: "--instructions", Problem: "the instructions file must be a path inside the vault", Hint: "use a vault-relative path such as AGENTS.md"}
	}
	if c.Deny, err = patterns("--deny", raw.Deny); err != nil {
		return Config{}, err
	}
	if c.Private, err = patterns("--private", raw.Private); err != nil {
		return Config{}, err
	}
	var n int
	if n, err = number("--min-free-mb", raw.MinFreeMB, 0, maxMinFreeMB); err != nil {
		return Config{}, err
	}
	c.MinFreeBytes = uint64(n) << 20 // #nosec G115 -- number bounds n to [0, 1<<20] just above
	if c.RatePerMinute, err = number("--rate-limit", raw.RateLimit, 1, 10_000_000); err != nil {
		return Config{}, err
	}
	if c.HistoryDays, err = number("--history-days", raw.HistoryDays, 1, 3650); err != nil {
		return Config{}, err
	}
	mb, err := number("--history-max-mb", raw.HistoryMaxMB, 1, 1<<20)
	if err != nil {
		return Config{}, err
	}
	c.HistoryMaxBytes = int64(mb) << 20
	if c.JournalDays, err = number("--journal-days", raw.JournalDays, 1, 3650); err != nil {
		return Config{}, err
	}
	if c.MemoryLimit, err = parseMemoryLimit(raw.MemoryLimit); err != nil {
		return Config{}, err
	}
	c.Retired = raw.retiredGiven()
	c.LogFormat = raw.LogFormat
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return Config{}, &Error{Setting: "--log-format", Problem: fmt.Sprintf("unknown format %q", raw.LogFormat), Hint: "use text or json"}
	}
	c.LogLevel = raw.LogLevel
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return Config{}, &Error{Setting: "--log-level", Problem: fmt.Sprintf("unknown level %q", raw.LogLevel), Hint: "use debug, info, warn or error"}
	}
	c.ACMEDirectory, c.ACMEEmail, c.HTTPAddr, c.HTTPSAddr = raw.ACMEDirectory, raw.ACMEEmail, raw.HTTPAddr, raw.HTTPSAddr
	if u, err := url.Parse(c.ACMEDirectory); err != nil || u.Scheme != "https" || u.Host == "" {
		return Config{}, &Error{Setting: "--acme-directory", Problem: "the ACME directory must be an https URL", Hint: "leave it unset for Let's Encrypt"}
	}
	for _, p := range strings.Split(raw.TrustedProxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pfx, err := parsePrefix(p)
		if err != nil {
			return Config{}, &Error{Setting: "--trusted-proxies", Problem: fmt.Sprintf("%q is not an address or network", p), Hint: "write networks like 127.0.0.1/32,10.0.0.0/8"}
		}
		c.TrustedProxies = append(c.TrustedProxies, pfx)
	}
	c.RedirectAllowlist = raw.RedirectAllowlist
	if err := c.checkBackups(raw); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c *Config) checkBackups(raw Settings) error {
	var err error
	if c.BackupEvery, err = time.ParseDuration(strings.TrimSpace(raw.BackupEvery)); err != nil || c.BackupEvery < time.Minute || c.BackupEvery > 31*24*time.Hour {
		return &Error{Setting: "--backup-every", Problem: fmt.Sprintf("%q is not a duration between 1m and 744h", raw.BackupEvery), Hint: "write it like 24h or 6h"}
	}
	if c.BackupKeep, err = number("--backup-keep", raw.BackupKeep, 1, 10_000); err != nil {
		return err
	}
	if c.BackupCommand, err = splitCommand(raw.BackupCommand); err != nil {
		return &Error{Setting: "--backup-command", Problem: err.Error(), Hint: `quote an argument with spaces as "a b" or 'a b', e.g. rclone copy {archive} "s3:my bucket/cortex"`}
	}
	if strings.TrimSpace(raw.BackupDir) == "" {
		if c.BackupCommand != nil {
			return &Error{Setting: "--backup-command", Problem: "a backup command needs scheduled backups", Hint: "set --backup-dir DIR too"}
		}
		return nil
	}
	if c.BackupDir, err = absDir("--backup-dir", raw.BackupDir); err != nil {
		return err
	}
	if within(c.BackupDir, c.Vault) || within(c.BackupDir, c.State) {
		return &Error{Setting: "--backup-dir", Problem: "the backup folder is inside the vault or the state folder, so each backup would hold the ones before it",
			Hint: "put backups beside them, e.g. ./data/backups, or better on another disk"}
	}
	return nil
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
		return 0, &Error{Setting: name, Problem: fmt.Sprintf("%q is not a whole number from %d to %d", s, lo, hi), Hint: fmt.Sprintf("give a number between %d and %d", lo, hi)}
	}
	return n, nil
}

// absDir makes dir absolute and creates it (0700) when missing.
func absDir(name, dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", &Error{Setting: name, Problem: "the folder is empty", Hint: "give a folder path"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{Setting: name, Problem: err.Error(), Hint: "give a folder path"}
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", &Error{Setting: name, Problem: "the folder cannot be created: " + cause(err), Hint: "create it yourself or choose a writable place"}
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", &Error{Setting: name, Problem: "not a folder", Hint: "give a folder path"}
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
	return IsLoopbackHost(host)
}

// IsLoopbackHost reports whether a listen address's host can only mean this
// machine: "localhost" or a loopback address.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// patterns checks a comma-separated list of vault patterns, so that a
// pattern cortex cannot read stops the start instead of protecting nothing.
func patterns(setting, raw string) ([]string, error) {
	var out []string
	for _, d := range strings.Split(raw, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if _, err := scope.ParseRules(d); err != nil {
			return nil, &Error{Setting: setting, Problem: strings.TrimPrefix(err.Error(), scope.ErrPattern.Error()+" "),
				Hint: "write vault-relative patterns such as Private/, Journal/*.md or **/secret.md, separated by commas"}
		}
		if t := strings.Trim(d, "/"); t != "" && t != "!" {
			d = t
		}
		out = append(out, d)
	}
	if _, err := scope.ParsePatterns(out); err != nil {
		return nil, &Error{Setting: setting, Problem: err.Error(), Hint: "merge patterns: Work/** covers everything below Work"}
	}
	return out, nil
}

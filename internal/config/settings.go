package config

import (
	"flag"
	"strconv"
	"strings"

	"golang.org/x/crypto/acme/autocert"
)

// Defaults used by `make run` on a fresh machine. Every default of a
// CORTEX_* setting is written once, in the settings table below; these
// constants are the ones other packages name in their help texts or take
// as their own defaults.
const (
	DefaultVault  = "./data/vault"
	DefaultState  = "./data/state"
	DefaultListen = "127.0.0.1:8080"
	// DefaultRatePerMinute is the requests a minute each token may make
	// (--rate-limit); web takes it as its own default.
	DefaultRatePerMinute = 120
	LetsEncrypt          = autocert.DefaultACMEDirectory
)

// Settings are the raw text of every setting, after defaults and CORTEX_*
// variables (and, for serve, flags). `cortex serve`, `cortex admin` and
// `cortex healthcheck` all start from FromEnv, so they agree on every
// variable and default; Config turns them into checked values.
type Settings struct {
	Vault, State, Listen, PublicURL, Instructions, Deny, Private string

	MinFreeMB, RateLimit, MaxSessions, SessionIdle, JournalDays string
	LogFormat, LogLevel                                         string

	TLS, ACMEDirectory, ACMEEmail, HTTPAddr, HTTPSAddr, TrustedProxies string
	RedirectAllowlist                                                  string

	HistoryDays, HistoryMaxMB string

	MemoryLimit string

	BackupDir, BackupEvery, BackupKeep, BackupCommand string

	// fromEnv maps a flag name to the variable its value came from, so that
	// an error names what the operator actually set.
	fromEnv map[string]string
}

// setting is one row of the table: flag name, variable, default, help.
type setting struct {
	flag, env, def, usage string
	dst                   *string
}

// table lists every setting with a pointer into s.
func (s *Settings) table() []setting {
	return []setting{
		{"vault", "CORTEX_VAULT", DefaultVault, "folder of Markdown notes", &s.Vault},
		{"state", "CORTEX_STATE", DefaultState, "folder for the state database (outside the vault)", &s.State},
		{"listen", "CORTEX_LISTEN", DefaultListen, "address for plain HTTP (tls off or proxy)", &s.Listen},
		{"public-url", "CORTEX_PUBLIC_URL", "", "the URL people and apps use to reach cortex (default http://<listen>)", &s.PublicURL},
		{"instructions", "CORTEX_INSTRUCTIONS", "AGENTS.md", "vault-relative file sent to assistants as server instructions", &s.Instructions},
		{"deny", "CORTEX_DENY", "", "comma-separated vault patterns (Private/, Journal/*.md, **/secret.md) no app may read, list or write", &s.Deny},
		{"private", "CORTEX_PRIVATE", "", "comma-separated vault patterns of private notes: hidden from every app whose scope does not include private notes", &s.Private},
		{"min-free-mb", "CORTEX_MIN_FREE_MB", "1024", "refuse writes when the vault's disk has less free space (MiB)", &s.MinFreeMB},
		{"rate-limit", "CORTEX_RATE_LIMIT", strconv.Itoa(DefaultRatePerMinute), "requests a minute per token", &s.RateLimit},
		{"max-sessions", "CORTEX_MAX_SESSIONS", "16", "retired: /mcp keeps no MCP sessions; accepted and ignored", &s.MaxSessions},
		{"session-idle", "CORTEX_SESSION_IDLE", "30m", "retired: /mcp keeps no MCP sessions; accepted and ignored", &s.SessionIdle},
		{"journal-days", "CORTEX_JOURNAL_DAYS", "90", "days the write journal is kept", &s.JournalDays},
		{"history-days", "CORTEX_HISTORY_DAYS", "30", "days every version of a note is kept (then one a day for a year)", &s.HistoryDays},
		{"history-max-mb", "CORTEX_HISTORY_MAX_MB", "512", "cap on the stored note history (MiB, compressed); reaching it drops old versions, an app over its share first, never a write", &s.HistoryMaxMB},
		{"backup-dir", "CORTEX_BACKUP_DIR", "", "folder for scheduled backups (and the default of cortex admin backup --to); empty: no scheduled backups", &s.BackupDir},
		{"backup-every", "CORTEX_BACKUP_EVERY", "24h", "time between scheduled backups", &s.BackupEvery},
		{"backup-keep", "CORTEX_BACKUP_KEEP", "7", "scheduled backups kept; older ones are removed", &s.BackupKeep},
		{"memory-limit", "CORTEX_MEMORY_LIMIT", "auto", "soft memory limit of the Go runtime: auto (1.5 times the live heap plus 10MiB, at most 3/4 of a container's limit or 1/4 of the machine's memory or 256MiB; GOMEMLIMIT if set), a size such as 96MiB, or off (Go's default)", &s.MemoryLimit},
		{"backup-command", "CORTEX_BACKUP_COMMAND", "", "command run on each scheduled backup to copy it off the machine, e.g. rclone copy {archive} s3:bucket/cortex ({archive}: the new archive's path, else added last; no shell)", &s.BackupCommand},
		{"log-format", "CORTEX_LOG_FORMAT", "text", "text or json", &s.LogFormat},
		{"log-level", "CORTEX_LOG_LEVEL", "info", "debug, info, warn or error", &s.LogLevel},
		{"tls", "CORTEX_TLS", "off", "off (plain HTTP on loopback), proxy (behind a reverse proxy) or acme (own certificate)", &s.TLS},
		{"acme-directory", "CORTEX_ACME_DIRECTORY", LetsEncrypt, "ACME directory URL", &s.ACMEDirectory},
		{"acme-email", "CORTEX_ACME_EMAIL", "", "contact e-mail for the ACME account", &s.ACMEEmail},
		{"http-addr", "CORTEX_HTTP_ADDR", ":80", "acme: address answering http-01 and redirecting to https", &s.HTTPAddr},
		{"https-addr", "CORTEX_HTTPS_ADDR", ":443", "acme: address serving https", &s.HTTPSAddr},
		{"trusted-proxies", "CORTEX_TRUSTED_PROXIES", "", "comma-separated networks whose X-Forwarded-For is believed", &s.TrustedProxies},
		{"redirect-allowlist", "CORTEX_REDIRECT_ALLOWLIST", "", "OAuth redirect URIs apps may use, separated by commas (\"defaults\" adds the built-in list of claude.ai, ChatGPT, Meta AI and loopback)", &s.RedirectAllowlist},
	}
}

// retiredGiven names the retired settings (their usage starts with
// "retired:") that were given a value other than their default, so that
// serve can say they are ignored.
func (s *Settings) retiredGiven() []string {
	var given []string
	for _, r := range s.table() {
		if strings.HasPrefix(r.usage, "retired:") && *r.dst != r.def {
			given = append(given, "--"+r.flag)
		}
	}
	return given
}

// maxMinFreeMB is the largest disk floor accepted (1 TiB).
const maxMinFreeMB = 1 << 20

// MinFreeBytes is the disk floor s names, for the admin commands, which do
// not run serve's checks: a value serve would refuse gives the default.
func (s Settings) MinFreeBytes() uint64 {
	n, err := number("--min-free-mb", s.MinFreeMB, 0, maxMinFreeMB)
	if err != nil {
		n, _ = number("--min-free-mb", defaultOf("min-free-mb"), 0, maxMinFreeMB)
	}
	return uint64(n) << 20 // #nosec G115 -- number bounds n to [0, maxMinFreeMB]
}

// defaultOf is the default of the setting whose flag is name.
func defaultOf(name string) string {
	var s Settings
	for _, r := range s.table() {
		if r.flag == name {
			return r.def
		}
	}
	return ""
}

// FromEnv returns every setting's default, replaced by its CORTEX_*
// variable where getenv gives a non-empty value. It reads nothing else.
func FromEnv(getenv func(string) string) Settings {
	s := Settings{fromEnv: map[string]string{}}
	for _, row := range s.table() {
		*row.dst = row.def
		if v := getenv(row.env); v != "" {
			*row.dst = v
			s.fromEnv["--"+row.flag] = row.env
		}
	}
	return s
}

// Flags defines every setting as a string flag on fs, with the current
// values of s as defaults, so that a flag given on the command line wins
// over the variable. The usage text names the variable.
func (s *Settings) Flags(fs *flag.FlagSet) {
	for _, r := range s.table() {
		fs.StringVar(r.dst, r.flag, *r.dst, r.usage+" ($"+r.env+")")
	}
}

package config

import (
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseDefaultsAndPrecedence(t *testing.T) {
	dir := t.TempDir()
	vault, state := filepath.Join(dir, "v"), filepath.Join(dir, "s")
	c, err := Parse([]string{"--vault", vault, "--listen", "127.0.0.1:9000"},
		env(map[string]string{"CORTEX_VAULT": "/nonexistent/ignored", "CORTEX_STATE": state, "CORTEX_LISTEN": "127.0.0.1:1"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Vault != vault || c.State != state {
		t.Errorf("vault/state = %q %q", c.Vault, c.State)
	}
	if c.Listen != "127.0.0.1:9000" {
		t.Errorf("flag should win over env: listen = %q", c.Listen)
	}
	if c.PublicURL.String() != "http://127.0.0.1:9000" {
		t.Errorf("public url = %q", c.PublicURL)
	}
	if c.BackupDir != "" || c.BackupEvery != 24*time.Hour || c.BackupKeep != 7 {
		t.Errorf("backup defaults: %q %v %d", c.BackupDir, c.BackupEvery, c.BackupKeep)
	}
	if c.MinFreeBytes != 1<<30 || c.RatePerMinute != 120 || c.JournalDays != 90 || c.Instructions != "AGENTS.md" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestParseRefuses(t *testing.T) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "v")
	base := []string{"--vault", vault, "--state", filepath.Join(dir, "s")}
	tests := []struct {
		name    string
		args    []string
		setting string
	}{
		{"state is vault", []string{"--vault", vault, "--state", vault}, "--state"},
		{"state inside vault", []string{"--vault", vault, "--state", filepath.Join(vault, "x")}, "--state"},
		{"vault inside state", []string{"--state", dir, "--vault", filepath.Join(dir, "v")}, "--vault"},
		{"bad listen", append(base, "--listen", "nonsense"), "--listen"},
		{"off beyond loopback", append(base, "--listen", "0.0.0.0:80"), "--listen"},
		{"bad tls", append(base, "--tls", "maybe"), "--tls"},
		{"url with path", append(base, "--public-url", "https://a.example/x"), "--public-url"},
		{"url ftp", append(base, "--public-url", "ftp://a.example"), "--public-url"},
		{"acme needs https", append(base, "--tls", "acme", "--public-url", "http://a.example"), "--public-url"},
		{"rate zero", append(base, "--rate-limit", "0"), "--rate-limit"},
		{"rate huge", append(base, "--rate-limit", "999999999"), "--rate-limit"},
		{"instructions escape", append(base, "--instructions", "../x.md"), "--instructions"},
		{"deny escape", append(base, "--deny", "a,../b"), "--deny"},
		{"deny unclosed class", append(base, "--deny", "private/[x"), "--deny"},
		{"deny glob inside a name", append(base, "--deny", "private**"), "--deny"},
		{"private escape", append(base, "--private", "../x"), "--private"},
		{"trusted junk", append(base, "--trusted-proxies", "10.0.0.0/8,nope"), "--trusted-proxies"},
		{"log format", append(base, "--log-format", "xml"), "--log-format"},
		{"backups in the vault", append(base, "--backup-dir", filepath.Join(vault, "backups")), "--backup-dir"},
		{"backups in the state", append(base, "--backup-dir", filepath.Join(dir, "s", "b")), "--backup-dir"},
		{"backup every second", append(base, "--backup-every", "1s"), "--backup-every"},
		{"backup every nonsense", append(base, "--backup-every", "daily"), "--backup-every"},
		{"backup keep zero", append(base, "--backup-keep", "0"), "--backup-keep"},
		{"backup command unclosed", append(base, "--backup-dir", filepath.Join(dir, "b"), "--backup-command", `rclone copy "{archive}`), "--backup-command"},
		{"backup command without backups", append(base, "--backup-command", "rclone copy {archive} s3:b"), "--backup-command"},
		{"stray arg", append(base, "extra"), "serve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.args, env(nil), io.Discard)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.Setting != tt.setting || ce.Hint == "" || !strings.Contains(err.Error(), "hint: ") {
				t.Errorf("err = %v (setting %q)", err, ce.Setting)
			}
		})
	}
}

func TestParsePublicURLCanonical(t *testing.T) {
	tests := map[string]string{
		"HTTPS://Notes.Example.COM/":    "https://notes.example.com",
		"https://notes.example.com:443": "https://notes.example.com",
		"http://127.0.0.1:80":           "http://127.0.0.1",
		"http://[::1]:8080":             "http://[::1]:8080",
		"https://a.example:8443":        "https://a.example:8443",
	}
	for in, want := range tests {
		got, err := ParsePublicURL(in)
		if err != nil || got.String() != want {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "notes.example.com", "https://", "https://u:p@a.example", "https://a.example?x=1", "https://a.example:99999"} {
		if got, err := ParsePublicURL(bad); err == nil {
			t.Errorf("ParsePublicURL(%q) = %q, want error", bad, got)
		}
	}
}

func TestParseTrustedProxiesAndDeny(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse([]string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s"),
		"--tls", "proxy", "--listen", "0.0.0.0:8080", "--public-url", "https://n.example",
		"--trusted-proxies", "10.1.2.3, 192.168.0.0/16", "--deny", "/Private/, diary.md"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.1.2.3/32" {
		t.Errorf("trusted = %v", c.TrustedProxies)
	}
	if strings.Join(c.Deny, "|") != "Private|diary.md" {
		t.Errorf("deny = %v", c.Deny)
	}
	c, err = Parse([]string{"--vault", filepath.Join(dir, "v2"), "--state", filepath.Join(dir, "s2"), "--deny", "private/**, Journal/*.md", "--private", "Health/,!Health/public.md"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Deny, "|") != "private/**|Journal/*.md" || strings.Join(c.Private, "|") != "Health|!Health/public.md" {
		t.Errorf("deny = %v, private = %v", c.Deny, c.Private)
	}
}

func TestParsePortZeroLeavesPublicURLForServe(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse([]string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s"), "--listen", "127.0.0.1:0"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.PublicURL.IsZero() {
		t.Errorf("public url = %q, want it left for serve", c.PublicURL)
	}
	if _, err := Parse([]string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s"), "--tls", "proxy", "--listen", "0.0.0.0:8080"}, env(nil), io.Discard); err == nil {
		t.Error("proxy mode without a public URL was accepted")
	}
}

func TestParseBackupSettingsFromEnv(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse([]string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s")},
		env(map[string]string{"CORTEX_BACKUP_DIR": filepath.Join(dir, "b"), "CORTEX_BACKUP_EVERY": "6h", "CORTEX_BACKUP_KEEP": "3"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.BackupDir != filepath.Join(dir, "b") || c.BackupEvery != 6*time.Hour || c.BackupKeep != 3 {
		t.Errorf("backup settings: %q %v %d", c.BackupDir, c.BackupEvery, c.BackupKeep)
	}
}

func TestParseNamesRetiredSettingsGiven(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s")}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"none", base, nil, ""},
		{"defaults written out", append(append([]string{}, base...), "--max-sessions", "16", "--session-idle", "30m"), nil, ""},
		{"flag", append(append([]string{}, base...), "--max-sessions", "64"), nil, "--max-sessions"},
		{"variable", base, map[string]string{"CORTEX_SESSION_IDLE": "1h"}, "--session-idle"},
		{"both", append(append([]string{}, base...), "--session-idle", "2h"), map[string]string{"CORTEX_MAX_SESSIONS": "4"}, "--max-sessions,--session-idle"},
		// Retired settings mean nothing, so no value of theirs is refused.
		{"any value", append(append([]string{}, base...), "--max-sessions", "many", "--session-idle", "1s"), nil, "--max-sessions,--session-idle"},
		{"a value once out of range", base, map[string]string{"CORTEX_MAX_SESSIONS": "5000", "CORTEX_SESSION_IDLE": "0"}, "--max-sessions,--session-idle"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.args, env(tt.env), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := strings.Join(c.Retired, ","); got != tt.want {
			t.Errorf("%s: retired = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// One rule for "this host name can only mean this machine", for the
// listen address here and the TLS options in certs.
func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "127.8.9.1": true, "::1": true,
		"0.0.0.0": false, "": false, "notes.example": false, "192.0.2.1": false, "::": false, "a.localhost": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := map[string][]string{
		"":                                       nil,
		"rclone copy {archive} s3:bucket/cortex": {"rclone", "copy", "{archive}", "s3:bucket/cortex"},
		`restic -r "/mnt/my backups" backup`:     {"restic", "-r", "/mnt/my backups", "backup"},
		`scp {archive} 'me@nas:cortex backups/'`: {"scp", "{archive}", "me@nas:cortex backups/"},
		`a\ b "q\"x" ''`:                         {"a b", `q"x`, ""},
	}
	for in, want := range tests {
		got, err := splitCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

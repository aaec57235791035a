package config

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestFromEnvDefaultsAndVariables(t *testing.T) {
	s := FromEnv(env(nil))
	if s.Vault != DefaultVault || s.State != DefaultState || s.Listen != DefaultListen || s.TLS != "off" || s.HTTPAddr != ":80" || s.PublicURL != "" {
		t.Errorf("defaults: %+v", s)
	}
	s = FromEnv(env(map[string]string{"CORTEX_STATE": "/srv/state", "CORTEX_PUBLIC_URL": "https://n.example", "CORTEX_TLS": "proxy", "CORTEX_VAULT": ""}))
	if s.State != "/srv/state" || s.PublicURL != "https://n.example" || s.TLS != "proxy" {
		t.Errorf("variables: %+v", s)
	}
	if s.Vault != DefaultVault {
		t.Errorf("an empty variable should leave the default: vault = %q", s.Vault)
	}
}

func TestSettingsFlagsOverrideVariables(t *testing.T) {
	s := FromEnv(env(map[string]string{"CORTEX_STATE": "/from/env", "CORTEX_VAULT": "/v"}))
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.Flags(fs)
	if err := fs.Parse([]string{"--state", "/from/flag"}); err != nil {
		t.Fatal(err)
	}
	if s.State != "/from/flag" || s.Vault != "/v" {
		t.Errorf("state %q vault %q", s.State, s.Vault)
	}
	if u := fs.Lookup("state").Usage; !strings.Contains(u, "$CORTEX_STATE") {
		t.Errorf("usage %q does not name the variable", u)
	}
}

// Every CORTEX_ variable is read through the one table: each row has a
// distinct flag and variable, and FromEnv reads exactly those variables.
func TestEveryVariableReadOnce(t *testing.T) {
	var s Settings
	seenFlag, seenEnv := map[string]bool{}, map[string]bool{}
	for _, r := range s.table() {
		if seenFlag[r.flag] || seenEnv[r.env] || !strings.HasPrefix(r.env, "CORTEX_") {
			t.Errorf("row %q/%q repeats or is misnamed", r.flag, r.env)
		}
		seenFlag[r.flag], seenEnv[r.env] = true, true
	}
	asked := map[string]bool{}
	FromEnv(func(k string) string { asked[k] = true; return "" })
	if len(asked) != len(seenEnv) {
		t.Errorf("FromEnv read %d variables, the table has %d", len(asked), len(seenEnv))
	}
}

// An error names the variable when the bad value came from one, and the
// flag alone when a flag gave it.
func TestErrorNamesTheVariable(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--vault", dir + "/v", "--state", dir + "/s"}
	_, err := Parse(base, env(map[string]string{"CORTEX_RATE_LIMIT": "0"}), io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "--rate-limit (set by CORTEX_RATE_LIMIT): ") {
		t.Errorf("from the variable: %v", err)
	}
	_, err = Parse(append(base, "--rate-limit", "0"), env(map[string]string{"CORTEX_RATE_LIMIT": "5"}), io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "--rate-limit: ") {
		t.Errorf("from the flag: %v", err)
	}
}

// The admin commands read the disk floor without the rest of serve's
// checks; a value serve would refuse gives the one default, as unset does.
func TestSettingsMinFreeBytes(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want uint64
	}{
		{"", 1024 << 20},
		{"2", 2 << 20},
		{"0", 0},
		{"lots", 1024 << 20},
		{"-5", 1024 << 20},
	} {
		s := FromEnv(env(map[string]string{"CORTEX_MIN_FREE_MB": tc.env}))
		if got := s.MinFreeBytes(); got != tc.want {
			t.Errorf("CORTEX_MIN_FREE_MB=%q: %d, want %d", tc.env, got, tc.want)
		}
	}
	c, err := FromEnv(env(map[string]string{"CORTEX_VAULT": t.TempDir() + "/v", "CORTEX_STATE": t.TempDir() + "/s"})).Config()
	if err != nil {
		t.Fatal(err)
	}
	if c.MinFreeBytes != FromEnv(env(nil)).MinFreeBytes() {
		t.Errorf("serve's floor %d and the admin commands' %d differ", c.MinFreeBytes, FromEnv(env(nil)).MinFreeBytes())
	}
}

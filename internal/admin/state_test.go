package admin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
)

// validArgs are arguments each command accepts, so that only the missing
// state can stop it. Every row of the table needs one.
var validArgs = map[string][]string{
	"token create":        {"laptop"},
	"token list":          nil,
	"token revoke":        {"laptop"},
	"status":              nil,
	"setup":               {"--public-url", "https://notes.example.org"},
	"passkey add":         {"--public-url", "https://notes.example.org"},
	"passkey list":        nil,
	"passkey remove":      {"1"},
	"recovery regenerate": nil,
	"unlock-totp":         nil,
	"reset":               {"--yes"},
	"clients add":         {"--name", "App", "--redirect-uri", "https://app.example/cb"},
	"clients list":        nil,
	"clients revoke":      {"cx_x"},
	"clients reads":       {"laptop"},
	"clients scope":       {"cx_x", "--whole"},
	"clients show":        {"cx_x"},
	"token scope":         {"laptop", "--read", "Work"},
}

// TestOnlySetupAndTokenCreateStartAState: pointed at a folder without
// cortex's state, every command says so and leaves nothing behind, except
// setup and token create, which create the database and say that they did.
func TestOnlySetupAndTokenCreateStartAState(t *testing.T) {
	for _, c := range commands() {
		if c.stateless {
			continue
		}
		args, ok := validArgs[c.name]
		if !ok {
			t.Errorf("no validArgs for %q", c.name)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			for _, existing := range []bool{false, true} {
				env := testEnv(t)
				if existing { // an empty folder, e.g. a mistyped --state that exists
					if err := os.Mkdir(env.StateDir, 0o700); err != nil {
						t.Fatal(err)
					}
				}
				r := run(t, env, append(strings.Fields(c.name), args...)...)
				_, err := os.Stat(filepath.Join(env.StateDir, store.FileName))
				if c.creates {
					if r.code != 0 || err != nil || !strings.Contains(r.stderr, "created a new state database in "+env.StateDir) {
						t.Errorf("exit %d, database %v, stderr %q", r.code, err, r.stderr)
					}
					continue
				}
				if r.code != 1 || !strings.Contains(r.stderr, "no state database in "+env.StateDir) || !strings.Contains(r.stderr, "\nhint: check --state") {
					t.Errorf("exit %d, stderr %q", r.code, r.stderr)
				}
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a database was created: %v", err)
				}
				if _, err := os.Stat(env.StateDir); existing == errors.Is(err, os.ErrNotExist) {
					t.Errorf("state folder existence changed: %v", err)
				}
			}
		})
	}
}

// A second run on the same state does not claim to create it again.
func TestCreatingCommandsSayItOnce(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "a")
	r := run(t, env, "token", "create", "b")
	if r.code != 0 || strings.Contains(r.stderr, "created a new state database") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

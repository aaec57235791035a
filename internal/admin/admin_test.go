package admin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/backup"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

var fixedNow = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, env Env, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr = &out, &errb
	code := Run(context.Background(), env, args)
	return result{code, out.String(), errb.String()}
}

func testEnv(t *testing.T) Env {
	t.Helper()
	base := t.TempDir()
	vault := filepath.Join(base, "vault")
	if err := os.Mkdir(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	return Env{
		StateDir: filepath.Join(base, "state"),
		VaultDir: vault,
		Now:      func() time.Time { return fixedNow },
	}
}

var secretRE = regexp.MustCompile(`^ctx_[A-Za-z0-9_-]{43}\n$`)

func createToken(t *testing.T, env Env, name string) string {
	t.Helper()
	r := run(t, env, "token", "create", name)
	if r.code != 0 || !secretRE.MatchString(r.stdout) {
		t.Fatalf("token create %s: code %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestUsage covers everything that must not touch the state database.
func TestUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring; "" means stdout must be empty
		stderr   string // substring; "" means stderr must be empty
		wantHint bool
	}{
		{"no command", nil, 2, "", "missing command", true},
		{"help", []string{"help"}, 0, "token create NAME", "", false},
		{"--help", []string{"--help"}, 0, "status", "", false},
		{"help of one command", []string{"help", "token", "revoke"}, 0, "usage: cortex admin token revoke NAME", "", false},
		{"help of unknown command", []string{"help", "nope"}, 2, "", `unknown command "nope"`, true},
		{"subcommand --help", []string{"token", "create", "--help"}, 0, "usage: cortex admin token create NAME", "", false},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`, true},
		{"group alone", []string{"token"}, 2, "", "token needs a subcommand", true},
		{"unknown subcommand", []string{"token", "mint", "x"}, 2, "", `unknown token subcommand "mint"`, true},
		{"missing name", []string{"token", "create"}, 2, "", "wrong number of arguments", true},
		{"two names", []string{"token", "create", "a", "b"}, 2, "", "wrong number of arguments", true},
		{"extra argument", []string{"token", "list", "x"}, 2, "", "wrong number of arguments", true},
		{"unknown flag", []string{"token", "list", "--bogus"}, 2, "", "flag provided but not defined", true},
		{"vault flag only on status", []string{"token", "list", "--vault", "/x"}, 2, "", "flag provided but not defined", true},
		{"flag without value", []string{"token", "list", "--state"}, 2, "", "flag needs an argument", true},
		{"bad name", []string{"token", "create", "my laptop"}, 1, "", `invalid token name "my laptop"`, true},
		{"name too long", []string{"token", "create", strings.Repeat("x", 65)}, 1, "", "invalid token name", true},
		{"bad name to revoke", []string{"token", "revoke", "a/b"}, 1, "", "invalid token name", true},
		{"help lists owner commands", []string{"help"}, 0, "passkey add", "", false},
		{"help of an owner command", []string{"help", "setup"}, 0, "usage: cortex admin setup [--force]", "", false},
		{"owner command through Run", []string{"setup"}, 2, "", "setup needs cortex's public URL", true},
		{"owner group alone", []string{"passkey"}, 2, "", "passkey needs a subcommand", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t)
			r := run(t, env, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", r.code, tt.code, r.stderr)
			}
			checkOut(t, "stdout", r.stdout, tt.stdout)
			if tt.stderr == "" {
				checkOut(t, "stderr", r.stderr, "")
			} else if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.stderr)
			}
			if got := strings.Contains(r.stderr, "\nhint: "); got != tt.wantHint {
				t.Errorf("hint line present = %v, want %v; stderr:\n%s", got, tt.wantHint, r.stderr)
			}
			if tt.code != 0 && !strings.Contains(r.stderr, "cortex admin: ") {
				t.Errorf("stderr lacks the error line: %q", r.stderr)
			}
			if _, err := os.Stat(env.StateDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("state dir created by a command that failed or needs none: %v", err)
			}
		})
	}
}

func checkOut(t *testing.T, which, got, want string) {
	t.Helper()
	if want == "" && got != "" {
		t.Errorf("%s = %q, want empty", which, got)
	}
	if want != "" && !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %q", which, got, want)
	}
}

func TestTokenCreate(t *testing.T) {
	env := testEnv(t)
	r := run(t, env, "token", "create", "laptop")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !secretRE.MatchString(r.stdout) {
		t.Fatalf("stdout must be the token alone with a newline, got %q", r.stdout)
	}
	secret := strings.TrimSpace(r.stdout)
	for _, want := range []string{"shown only once", "Authorization: Bearer", "token revoke laptop"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, secret) {
		t.Error("secret repeated on stderr")
	}
	tok, err := openStore(t, env.StateDir).VerifyToken(context.Background(), secret)
	if err != nil || tok.Name != "laptop" {
		t.Fatalf("printed token does not verify: %+v, %v", tok, err)
	}

	r = run(t, env, "token", "create", "laptop")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `a token named "laptop" already exists`) ||
		!strings.Contains(r.stderr, "hint: pick another name, or revoke the old token first: cortex admin token revoke laptop") {
		t.Errorf("duplicate: %+v", r)
	}
}

func TestTokenListAndRevoke(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()

	r := run(t, env, "token", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "no state database in") || !strings.Contains(r.stderr, "hint: ") {
		t.Errorf("list without database: %+v", r)
	}
	if _, err := os.Stat(env.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Error("token list created the state dir")
	}

	openStore(t, env.StateDir) // an empty database, as a fresh server leaves it
	r = run(t, env, "token", "list")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no tokens yet") {
		t.Errorf("empty list: %+v", r)
	}

	laptop := createToken(t, env, "laptop")
	createToken(t, env, "ci-runner")
	st := openStore(t, env.StateDir)
	if _, err := st.VerifyToken(store.WithUseAddr(ctx, "192.0.2.7"), laptop); err != nil {
		t.Fatal(err)
	}

	r = run(t, env, "token", "list")
	want := "" +
		"NAME       CREATED               LAST USED             LAST FROM  SCOPE\n" +
		"laptop     2025-03-14 09:26 UTC  2025-03-14 09:26 UTC  192.0.2.7  the whole vault\n" +
		"ci-runner  2025-03-14 09:26 UTC  never                 -          the whole vault\n"
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("token list: code %d, stderr %q, stdout:\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want)
	}

	r = run(t, env, "token", "revoke", "nobody")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `no live token named "nobody"`) ||
		!strings.Contains(r.stderr, "hint: run `cortex admin token list`") {
		t.Errorf("revoke unknown: %+v", r)
	}

	r = run(t, env, "token", "revoke", "laptop")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, `revoked token "laptop"`) {
		t.Errorf("revoke: %+v", r)
	}
	if _, err := st.VerifyToken(ctx, laptop); !errors.Is(err, store.ErrTokenNotFound) {
		t.Errorf("revoked token still verifies in the open server store: %v", err)
	}
	r = run(t, env, "token", "list")
	if strings.Contains(r.stdout, "laptop") || !strings.Contains(r.stdout, "ci-runner") {
		t.Errorf("list after revoke:\n%s", r.stdout)
	}
	if r := run(t, env, "token", "revoke", "laptop"); r.code != 1 {
		t.Errorf("second revoke exit %d, want 1", r.code)
	}
}

// TestStateDir checks where the database goes: --state wins wherever it
// appears, else Env.StateDir; the process environment is never read.
func TestStateDir(t *testing.T) {
	env := testEnv(t)
	fromEnvVar := filepath.Join(t.TempDir(), "envvar")
	t.Setenv("CORTEX_STATE", fromEnvVar)

	createToken(t, env, "a")
	if _, err := os.Stat(filepath.Join(env.StateDir, store.FileName)); err != nil {
		t.Errorf("database not in Env.StateDir: %v", err)
	}

	flagDir := filepath.Join(t.TempDir(), "flag")
	for i, args := range [][]string{
		{"token", "create", "b", "--state", flagDir},
		{"token", "create", "--state=" + flagDir, "c"},
		{"token", "create", "--state", flagDir, "--", "d"},
	} {
		if r := run(t, env, args...); r.code != 0 {
			t.Fatalf("case %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	toks, err := openStore(t, flagDir).ListTokens(context.Background())
	if err != nil || len(toks) != 3 {
		t.Errorf("tokens under --state dir: %+v, %v", toks, err)
	}

	if _, err := os.Stat(fromEnvVar); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CORTEX_STATE was read by Run: %v", err)
	}
	env.StateDir = ""
	r := run(t, env, "token", "list")
	if r.code != 2 || !strings.Contains(r.stderr, "no state directory given") || !strings.Contains(r.stderr, "hint: pass --state DIR") {
		t.Errorf("no state dir: %+v", r)
	}
}

func TestStatus(t *testing.T) {
	env := testEnv(t)
	files := map[string]string{
		"a.md":             "# A",
		"Folder/B.MD":      "b",
		"Folder/deep/c.md": "c",
		"notes.txt":        "not a note",
		".hidden.md":       "hidden",
		".trash/old.md":    "trashed",
		".obsidian/x.md":   "config",
		"Folder/.git/y.md": "git",
		"d.sync-conflict-20240102-030405-ABCDEFG.md": "conflict",
		".md": "no name",
	}
	testkit.WriteFiles(t, env.VaultDir, files)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.md"), nil, 0o644)
	if err := os.Symlink(filepath.Join(env.VaultDir, "a.md"), filepath.Join(env.VaultDir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(env.VaultDir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	createToken(t, env, "laptop")
	createToken(t, env, "phone")

	r := run(t, env, "status")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("status: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"vault      " + env.VaultDir + "\n",
		"notes      3\n",
		"free disk  ",
		"state      " + env.StateDir + "\n",
		"tokens     2\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}

	// --vault overrides; a link as the vault root itself is followed.
	linkRoot := filepath.Join(t.TempDir(), "vault-link")
	if err := os.Symlink(outside, linkRoot); err != nil {
		t.Fatal(err)
	}
	r = run(t, env, "status", "--vault", linkRoot)
	if r.code != 0 || !strings.Contains(r.stdout, "notes      1\n") {
		t.Errorf("status --vault: %+v", r)
	}
}

func TestStatusProblems(t *testing.T) {
	env := testEnv(t)
	env.VaultDir = filepath.Join(env.VaultDir, "missing")
	r := run(t, env, "status")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	// The report is still printed as far as it goes.
	for _, want := range []string{"vault      " + env.VaultDir, "notes      unavailable", "state      ", "tokens     unavailable"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"cannot count notes", "no state database in", "hint: check --vault", "hint: check --state"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// The state folder comes first: it is the likelier cause of the rest.
	if i, j := strings.Index(r.stderr, "no state database in"), strings.Index(r.stderr, "cannot count notes"); i > j {
		t.Errorf("the state problem is told after the vault's:\n%s", r.stderr)
	}
	if _, err := os.Stat(env.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Error("status created the state dir")
	}

	env.VaultDir = ""
	r = run(t, env, "status")
	if r.code != 1 || !strings.Contains(r.stderr, "no vault directory given") {
		t.Errorf("status without vault: %+v", r)
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{5 << 30, "5.0 GiB"},
		{1 << 62, "4.0 EiB"},
		{^uint64(0), "16.0 EiB"},
	}
	for _, tt := range tests {
		if got := backup.Bytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestStatusReportsTheServedVault: given only the state folder, status
// reports the vault the server last started with, not $CORTEX_VAULT or the
// default; --vault still wins.
func TestStatusReportsTheServedVault(t *testing.T) {
	env := testEnv(t)
	served := filepath.Join(t.TempDir(), "served")
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.MkdirAll(served, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(served, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	createToken(t, env, "laptop")
	r := run(t, env, "status")
	if r.code != 0 || !strings.Contains(r.stdout, "vault      "+env.VaultDir+"\n") || !strings.Contains(r.stdout, "started    never") {
		t.Errorf("before any start: %+v", r)
	}

	st := openStore(t, env.StateDir)
	if err := st.RecordServed(context.Background(), store.Served{Vault: served, PublicURL: "https://notes.example.org"}); err != nil {
		t.Fatal(err)
	}
	r = run(t, env, "status")
	for _, want := range []string{"vault      " + served + "\n", "notes      2\n", "url        https://notes.example.org\n", "started    2025-03-14 09:26 UTC\n", "tokens     1\n"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q (exit %d):\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	r = run(t, env, "status", "--vault", env.VaultDir)
	if r.code != 0 || !strings.Contains(r.stdout, "vault      "+env.VaultDir+"\n") || !strings.Contains(r.stdout, "notes      0\n") {
		t.Errorf("--vault should win:\n%s", r.stdout)
	}
}

// TestDamagedStateDatabase: a cortex.db that is not a SQLite database (a
// bad copy, a damaged card) is named as damaged, with the way back: a
// restore from a backup, or moving the file aside.
func TestDamagedStateDatabase(t *testing.T) {
	env := testEnv(t)
	if err := os.MkdirAll(env.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("not a database "), 512)
	if err := os.WriteFile(filepath.Join(env.StateDir, store.FileName), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, env, "token", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") ||
		!strings.Contains(r.stderr, "hint: restore the state from a backup") {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(env.StateDir, store.FileName)); err != nil || !bytes.Equal(got, junk) {
		t.Fatalf("the damaged file was changed (%v)", err)
	}
}

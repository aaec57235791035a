package admin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
)

func init() {
	validArgs["history"] = []string{"a.md"}
	validArgs["history show"] = []string{"a.md", "--version", "1"}
	validArgs["history purge"] = []string{"a.md", "--yes"}
	validArgs["restore"] = []string{"a.md", "--version", "1"}
	validArgs["changes"] = nil
	validArgs["undo"] = []string{"--change", "1"}
}

// appWrites makes changes as an app would, through the real tools on a
// vault with history, with the state in env, and closes everything before
// the CLI runs.
func appWrites(t *testing.T, env Env, clock *testkit.Clock, app string, calls func(call func(tool string, args map[string]any) map[string]any, version func(p string) string)) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, env.StateDir, store.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := store.OpenHistory(ctx, env.StateDir, store.HistoryOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	v, err := vault.Open(vault.Options{Dir: env.VaultDir, History: history.Keeper(h), FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	srv := tools.NewServer(tools.Deps{Vault: v, Journal: st, App: app, Now: clock.Now}, "")
	sst, cst := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, sst, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: app, Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			t.Fatalf("%s: %s", tool, b)
		}
		out := map[string]any{}
		json.Unmarshal(b, &out)
		clock.Advance(time.Minute)
		return out
	}
	version := func(p string) string {
		n, err := v.Read(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return n.Version
	}
	calls(call, version)
}

func TestHistoryCommands(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop") // creates the state
	const plan = "# Plan\n\n## Goals\nship it\n\n## Risks\nnone\n"
	if err := os.WriteFile(filepath.Join(env.VaultDir, "plan.md"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.VaultDir, "other.md"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := testkit.NewClock(fixedNow.Add(-time.Hour))
	appWrites(t, env, clock, "claude", func(call func(string, map[string]any) map[string]any, version func(string) string) {
		call("replace_section", map[string]any{"id": "plan.md", "version": version("plan.md"), "heading": "# Plan", "content": "erased\n", "include_subsections": true})
		call("edit_note", map[string]any{"id": "other.md", "version": version("other.md"), "old_text": "other", "new_text": "OTHER"})
	})

	r := run(t, env, "history", "plan.md")
	if r.code != 0 || !regexp.MustCompile(`(?m)^\d+ .*claude\s+edit\s`).MatchString(r.stdout) || !strings.Contains(r.stdout, "external") {
		t.Fatalf("history: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The oldest version is the last line; its number restores it.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	oldest := strings.Fields(lines[len(lines)-1])[0]

	r = run(t, env, "history", "show", "plan.md", "--version", oldest)
	if r.code != 0 || r.stdout != plan {
		t.Fatalf("history show: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	r = run(t, env, "restore", "plan.md", "--version", oldest, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "+## Goals") || readNote(t, env, "plan.md") == plan {
		t.Fatalf("restore --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, env, "restore", "plan.md", "--version", oldest)
	if r.code != 0 || readNote(t, env, "plan.md") != plan {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Undo everything claude did in the last two hours: plan.md was
	// restored since by the owner, a conflict; other.md is clean.
	r = run(t, env, "undo", "--app", "claude", "--since", "2h", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "plan.md") || !strings.Contains(r.stdout, "CONFLICT") || !strings.Contains(r.stdout, "other.md\trestore") {
		t.Fatalf("undo --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, env, "undo", "--app", "claude", "--since", "2h")
	if r.code != 0 || readNote(t, env, "other.md") != "other\n" || readNote(t, env, "plan.md") != plan {
		t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, env, "changes", "--app", history.OwnerCLI)
	if r.code != 0 || !strings.Contains(r.stdout, "undo") || !strings.Contains(r.stdout, "restore") {
		t.Fatalf("changes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Bad input: each a clear error with a hint, nothing changed.
	for _, args := range [][]string{
		{"restore", "plan.md", "--version", "0123456789ab"},
		{"restore", "../x.md", "--version", "1"},
		{"history", "purge", "never.md", "--yes"},
		{"undo", "--change", "99999"},
		{"undo", "--app", "claude"},
		{"undo", "--app", "claude", "--since", "yesterday-ish"},
	} {
		r = run(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "\nhint: ") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if readNote(t, env, "plan.md") != plan {
		t.Fatal("bad input changed a note")
	}

	r = run(t, env, "history", "purge", "plan.md", "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "purged") {
		t.Fatalf("purge: exit %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "history", "plan.md"); r.code != 1 || !strings.Contains(r.stderr, "no_history") {
		t.Fatalf("history after purge: exit %d %s", r.code, r.stderr)
	}
}

func readNote(t *testing.T, env Env, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.VaultDir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHistoryPurgeApp(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop") // creates the state
	if err := os.WriteFile(filepath.Join(env.VaultDir, "plan.md"), []byte("plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := testkit.NewClock(fixedNow.Add(-time.Hour))
	appWrites(t, env, clock, "claude", func(call func(string, map[string]any) map[string]any, version func(string) string) {
		call("create_note", map[string]any{"path": "secret.md", "content": "password: hunter2\n"})
		call("edit_note", map[string]any{"id": "plan.md", "version": version("plan.md"), "old_text": "plan", "new_text": "plan by claude"})
	})
	appWrites(t, env, clock, "chatgpt", func(call func(string, map[string]any) map[string]any, version func(string) string) {
		call("edit_note", map[string]any{"id": "plan.md", "version": version("plan.md"), "old_text": "claude", "new_text": "chatgpt"})
	})

	// Bad input: each a clear error with a hint, nothing forgotten.
	for _, args := range [][]string{
		{"history", "purge", "--app", "claude", "--yes"},
		{"history", "purge", "--since", "2h", "--yes"},
		{"history", "purge", "plan.md", "--app", "claude", "--since", "2h", "--yes"},
		{"history", "purge", "--app", "claude", "--since", "last week", "--yes"},
		{"history", "purge", "--app", "nobody", "--since", "2h", "--yes"},
		{"history", "purge", "--app", "claude", "--since", "2h"}, // no "purge" typed
	} {
		if r := run(t, env, args...); r.code == 0 || !strings.Contains(r.stderr, "\nhint: ") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := run(t, env, "history", "secret.md"); r.code != 0 || !strings.Contains(r.stdout, "claude") {
		t.Fatalf("bad input forgot claude's versions: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	r := run(t, env, "history", "purge", "--app", "claude", "--since", "2h", "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "purged 2 stored versions written by claude") {
		t.Fatalf("purge --app: exit %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "history", "secret.md"); r.code != 1 || !strings.Contains(r.stderr, "no_history") {
		t.Fatalf("history of claude's note after the purge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, env, "history", "plan.md")
	if r.code != 0 || strings.Contains(r.stdout, "claude") || !strings.Contains(r.stdout, "chatgpt") || !strings.Contains(r.stdout, "external") {
		t.Fatalf("history of plan.md after the purge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if readNote(t, env, "secret.md") != "password: hunter2\n" || readNote(t, env, "plan.md") != "plan by chatgpt\n" {
		t.Fatal("the purge changed a note")
	}
}

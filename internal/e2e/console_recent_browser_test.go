package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	_ "modernc.org/sqlite" // the test ages a session in the server's own state file

	"github.com/cortex-mcp/cortex/internal/testkit"
)

const (
	bulkPlan  = "# Plan\n\nWater the beans.\n"
	bulkSeeds = "# Seeds\n\nTomato, basil.\n"
)

// TestConsoleBrowserBulkUndoAndRecentSignIn drives, in headless Chromium
// with a virtual passkey authenticator, the real binary's console: the
// owner undoes everything one app did, where another app changed one of
// those notes later (the preview lists it as a conflict and applying skips
// it until it is ticked), and creating a bearer token is refused once the
// sign-in is older than five minutes, then allowed after "Sign in again"
// with the passkey. The binary's clock cannot move, so the test ages the
// session where the server keeps it: the session row in cortex.db, which
// the server reads on every request.
func TestConsoleBrowserBulkUndoAndRecentSignIn(t *testing.T) {
	testkit.Chromium(t)
	in := newInstance(t)
	planPath, seedsPath := filepath.Join(in.Vault, "Plan.md"), filepath.Join(in.Vault, "Seeds.md")
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, body := range map[string]string{planPath: bulkPlan, seedsPath: bulkSeeds} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Passkeys need a host name: the browser visits localhost on a port
	// chosen here, which the server is then told to listen on.
	ln := testkit.Listen(t)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := fmt.Sprintf("http://localhost:%d", port)
	in.start("--listen", fmt.Sprintf("127.0.0.1:%d", port), "--public-url", base)
	owner := setupOwnerAt(t, in, base)
	if owner.enrol == "" {
		t.Fatal("setup printed no passkey link for a host name")
	}
	claude, gpt := in.token("claude"), in.token("gpt")

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text, count := tab.Ctx, tab.Do, tab.Text, tab.Count
	tab.AddPasskeyAuthenticator()
	file := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("enrol a passkey", chromedp.Navigate(owner.enrol),
		chromedp.WaitVisible(chromedp.CSS("#enrol-code")),
		chromedp.SendKeys(chromedp.CSS("#enrol-code"), code),
		chromedp.SendKeys(chromedp.CSS("#enrol-name"), "laptop"),
		chromedp.Click(chromedp.CSS("#enrol-submit")),
		chromedp.WaitVisible(chromedp.CSS("#done")),
	)

	// claude edits both notes; gpt then changes one of them again.
	cs, other := in.connect(ctx, claude), in.connect(ctx, gpt)
	version := func(id string) string {
		v, _ := callTool(ctx, t, cs, "fetch", map[string]any{"id": id})["metadata"].(map[string]any)["version"].(string)
		return v
	}
	callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Plan.md", "version": version("Plan.md"),
		"old_text": "Water the beans.", "new_text": "Water the beans twice."})
	callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Seeds.md", "version": version("Seeds.md"),
		"old_text": "Tomato, basil.", "new_text": "Tomato, basil, chard."})
	callTool(ctx, t, other, "append", map[string]any{"id": "Seeds.md", "text": "Order by March.\n"})
	seedsByGPT := file(seedsPath)
	if !strings.Contains(seedsByGPT, "chard") || !strings.Contains(seedsByGPT, "March") {
		t.Fatalf("Seeds.md after both apps: %q", seedsByGPT)
	}

	// Signed out, the bulk undo's preview sends the owner to sign in with
	// the passkey, and back to the preview.
	do("sign in with the passkey", chromedp.Navigate(base+"/console/activity?app=claude"),
		chromedp.WaitVisible(chromedp.CSS("#passkey-login")),
		chromedp.Click(chromedp.CSS("#passkey-login")),
		chromedp.WaitVisible(chromedp.CSS("#bulk-link")),
		chromedp.Click(chromedp.CSS("#bulk-link")),
		chromedp.WaitVisible(chromedp.CSS("#bulk-form")),
	)
	if n := count(`section.entry.conflict[data-path="Seeds.md"]`); n != 1 {
		t.Errorf("the preview lists Seeds.md as a conflict %d times; want once:\n%s", n, text("main"))
	}
	if n := count(`section.entry[data-path="Plan.md"]:not(.conflict)`); n != 1 {
		t.Errorf("the preview lists Plan.md as a clean undo %d times; want once:\n%s", n, text("main"))
	}
	if n := count("#bulk-needs-sign-in"); n != 0 {
		t.Errorf("a passkey sign-in just now is told to sign in again")
	}
	// A double click sends the form twice; it is done once.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = document.querySelector("#bulk-apply"); b.click(); b.click(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	do("wait for the result", chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := file(planPath); got != bulkPlan {
		t.Errorf("after the bulk undo Plan.md is %q; want the bytes before claude", got)
	}
	if got := file(seedsPath); got != seedsByGPT {
		t.Errorf("the skipped conflict Seeds.md changed to %q; want gpt's bytes %q", got, seedsByGPT)
	}
	if got := text(`section.entry[data-path="Seeds.md"]`); !strings.Contains(got, "skipped") {
		t.Errorf("the result does not say Seeds.md was skipped: %q", got)
	}

	// A reload of the result undoes nothing more and offers nothing red.
	do("reload the result", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := file(seedsPath); got != seedsByGPT {
		t.Errorf("the reload changed Seeds.md to %q", got)
	}

	// Ten minutes later the owner ticks the conflict and applies: the
	// sign-in shows on the page, and after the passkey the undo is done
	// with the tick kept: Seeds.md goes back to before claude, gpt's later
	// lines with it.
	ageSessions(t, in.State, 10*time.Minute)
	do("preview again", chromedp.Navigate(base+"/console/undo-app?app=claude"), chromedp.WaitVisible(chromedp.CSS("#bulk-needs-sign-in")))
	if got := text("#bulk-apply"); !strings.Contains(got, "sign in again first") {
		t.Errorf("the apply button does not say it asks for a sign-in: %q", got)
	}
	do("tick the conflict and apply", chromedp.Click(chromedp.CSS(`section[data-path="Seeds.md"] input.include`)),
		chromedp.Click(chromedp.CSS("#bulk-apply")), chromedp.WaitVisible(chromedp.CSS("#sign-in-again")))
	if got := file(seedsPath); got != seedsByGPT {
		t.Fatalf("the undo ran before the sign-in: Seeds.md %q", got)
	}
	if got := text("#pending-form"); !strings.Contains(got, "Seeds.md") {
		t.Errorf("the sign-in page does not show the tick: %q", got)
	}
	do("sign in on the page", chromedp.Click(chromedp.CSS("#passkey-login")), chromedp.WaitVisible(chromedp.CSS("#pending-do")))
	if got := file(seedsPath); got != seedsByGPT {
		t.Fatalf("the undo ran on the page after the sign-in, before its button: Seeds.md %q", got)
	}
	if got := text("#pending-form"); !strings.Contains(got, "Seeds.md") {
		t.Errorf("the page after the sign-in does not show the tick: %q", got)
	}
	do("do it now", chromedp.Click(chromedp.CSS("#pending-do")), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := file(seedsPath); got != bulkSeeds {
		t.Errorf("after undoing the ticked conflict Seeds.md is %q; want the bytes before claude", got)
	}
	if got := file(planPath); got != bulkPlan {
		t.Errorf("the second undo changed Plan.md to %q", got)
	}

	// Ten minutes later (the session's sign-in time moved back where the
	// server keeps it), creating a token is refused.
	ageSessions(t, in.State, 10*time.Minute)
	do("open apps", chromedp.Navigate(base+"/console/apps"), chromedp.WaitVisible(chromedp.CSS("#token-needs-sign-in")))
	do("create a token too late", chromedp.SendKeys(chromedp.CSS("#token-name"), "tablet"),
		chromedp.Click(chromedp.CSS("#token-create")), chromedp.WaitVisible(chromedp.CSS("#sign-in-again")))
	if got, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#sign-in-again"), "data-code")); got.Value != "sign_in_again" {
		t.Errorf("a stale sign-in's token creation answered %q; want sign_in_again", got.Value)
	}
	if out, _, _ := in.admin("token", "list"); strings.Contains(out, "tablet") {
		t.Fatalf("a token was created without a recent sign-in:\n%s", out)
	}

	// Signing in with the passkey on that page makes the token, shown once.
	do("sign in again", chromedp.Click(chromedp.CSS("#passkey-login")), chromedp.WaitVisible(chromedp.CSS("#pending-do")),
		chromedp.Click(chromedp.CSS("#pending-do")), chromedp.WaitVisible(chromedp.CSS("#token-secret")))
	secret := text("#token-secret")
	do("reload the token's result", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#token-secret-gone")))
	if n := count("#token-secret"); n != 0 {
		t.Error("a reload shows the secret again")
	}
	if out, _, _ := in.admin("token", "list"); strings.Count(out, "tablet") != 1 {
		t.Errorf("after the reload the tokens are:\n%s", out)
	}
	if status, body := mcpStatus(t, in, secret, mcpInitialize); status != 200 {
		t.Fatalf("the new token gets %d: %s", status, body)
	}

	// Revoked from the command line, the token is refused, and Activity
	// lists the revocation as the CLI's, after the console's creation.
	if _, errOut, err := in.admin("token", "revoke", "tablet"); err != nil {
		t.Fatalf("token revoke: %v\n%s", err, errOut)
	}
	if status, _ := mcpStatus(t, in, secret, mcpInitialize); status != 401 {
		t.Errorf("after revoking from the CLI the token gets %d; want 401", status)
	}
	do("open activity", chromedp.Navigate(base+"/console/activity"), chromedp.WaitVisible(chromedp.CSS("#owner-actions")))
	acts := text("#owner-actions")
	cli, console := strings.Index(acts, "owner (cli) revoked token tablet"), strings.Index(acts, "owner (console) created token tablet")
	if cli < 0 || console < 0 || cli > console {
		t.Errorf("Activity lists the owner's actions as\n%s\nwant the CLI's revocation above the console's creation", acts)
	}
}

// ageSessions moves every owner session's sign-in time back by d in the state database of a running server.
func ageSessions(t *testing.T, state string, d time.Duration) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, "cortex.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(context.Background(),
		`UPDATE owner_sessions SET created = created - ?`, d.Nanoseconds())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("no owner session to age")
	}
}

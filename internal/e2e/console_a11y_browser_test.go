package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// axeSource is axe-core's script as .ci/install-test-deps installs it
// (pinned by testdata/axe-package-lock.json). Without it the test is
// skipped, except in CI (CI=true), where its absence is a failure.
func axeSource(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CORTEX_AXE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		dir = filepath.Join(cache, "cortex-axe")
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err == nil {
		return string(b)
	}
	msg := fmt.Sprintf("axe-core is not installed in %s (%v); run .ci/install-test-deps", dir, err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// runAxe checks every axe-core rule on the page the tab shows: each
// page's own WCAG 2.x A and AA rules and the best practices.
const runAxe = `(async () => {
  const r = await axe.run(document, {resultTypes: ["violations"]});
  return r.violations.map(v => ({ID: v.id, Impact: v.impact || "", Help: v.help,
    Nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\s+/g, " "))}));
})()`

// TestConsoleAccessibility runs axe-core in Chromium on every console page
// (and the sign-in and consent pages),
// in light and in dark mode, and fails on any violation of impact serious
// or critical; lesser ones are logged.
func TestConsoleAccessibility(t *testing.T) {
	axe := axeSource(t)
	testkit.Chromium(t)
	in := newInstance(t)
	if err := os.MkdirAll(filepath.Join(in.Vault, "Garden"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in.Vault, "Garden", "Plan.md"), []byte(consoleNote), 0o644)
	os.WriteFile(filepath.Join(in.Vault, "Seeds.md"), []byte("# Seeds\n\nTomato, basil.\n"), 0o644)
	os.WriteFile(filepath.Join(in.Vault, "Old.md"), []byte("# Old\n\nTo delete.\n"), 0o644)
	in.start()
	owner := setupOwner(t, in)
	tok := in.token("claude")

	tab := testkit.NewTab(t, 4*time.Minute, in.logs)
	ctx, do := tab.Ctx, tab.Do
	cs := in.connect(ctx, tok)
	fetched := callTool(ctx, t, cs, "fetch", map[string]any{"id": "Garden/Plan.md"})
	version, _ := fetched["metadata"].(map[string]any)["version"].(string)
	callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Garden/Plan.md", "version": version,
		"old_text": "Plant tomatoes in May.", "new_text": "Plant tomatoes in June."})
	old := callTool(ctx, t, cs, "fetch", map[string]any{"id": "Old.md"})
	oldVersion, _ := old["metadata"].(map[string]any)["version"].(string)
	callTool(ctx, t, cs, "delete_note", map[string]any{"id": "Old.md", "version": oldVersion})

	check := axeCheck(t, ctx, axe)

	do("the sign-in page", chromedp.Navigate(in.URL+"/login"), chromedp.WaitVisible(chromedp.CSS("#totp-code")))
	check("sign in")
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")), chromedp.WaitVisible(chromedp.CSS("#signed-in")))

	pages := []struct{ name, path, ready string }{
		{"activity", "/console/activity", ".entry .diff"},
		{"notes", "/notes/", "#folder"},
		{"folder", "/notes/Garden/", "#folder"},
		{"note", "/notes/Garden/Plan.md", "#note-body"},
		{"raw note", "/notes/Garden/Plan.md?raw=1", "#note-body"},
		{"search", "/console/search?q=tomatoes", "#hits"},
		{"apps", "/console/apps", "#tokens"},
		{"app", "/console/app?token=claude", "main h1"},
		{"bulk undo", "/console/undo-app?app=claude", "main h1"},
		{"trash", "/console/trash", "#trash"},
		{"status", "/console/status", "main h1"},
		{"missing folder", "/notes/Nowhere/", "#problem"},
	}
	for _, p := range pages {
		do(p.name, chromedp.Navigate(in.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		check(p.name)
	}
	// The consent page an app's sign-in leads to (the app's callback is
	// never reached: the page is only looked at).
	clientID := registerPublicClient(t, in, "a11y app", "http://127.0.0.1:9/cb")
	do("consent", chromedp.Navigate(in.URL+"/authorize?"+url.Values{"response_type": {"code"}, "client_id": {clientID},
		"redirect_uri": {"http://127.0.0.1:9/cb"}, "state": {"s"}, "scope": {"notes:read notes:write"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "code_challenge_method": {"S256"},
		"resource": {in.URL + "/mcp"}}.Encode()), chromedp.WaitVisible(chromedp.CSS("#approve")))
	check("consent")

	// The note's diff, from its first version to now.
	do("note", chromedp.Navigate(in.URL+"/notes/Garden/Plan.md"), chromedp.WaitVisible(chromedp.CSS("a.diff-now")))
	do("diff", chromedp.Click(chromedp.CSS("#history li:last-child a.diff-now")), chromedp.WaitVisible(chromedp.CSS("#diff-title")))
	check("note diff")

	// The first Tab reaches the skip link, shown with a visible ring.
	type focused struct{ Class, Outline, Href string }
	do("tab", chromedp.Navigate(in.URL+"/console/status"), chromedp.WaitVisible(chromedp.CSS("main h1")), chromedp.KeyEvent("\t"))
	f, err := chromedp.Run(ctx, chromedp.Evaluate[focused](`(() => { const e = document.activeElement;
	  return {Class: e.className, Outline: getComputedStyle(e).outlineStyle, Href: e.getAttribute("href") || ""}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != "skip" || f.Href != "#main" || f.Outline == "none" {
		t.Errorf("after one Tab the focus is on %+v; want the skip link to #main with an outline", f)
	}

	// Ten minutes on, creating a token asks for the sign-in on its page;
	// after it (a recovery code here) the page with the Do it now button.
	ageSessions(t, in.State, 10*time.Minute)
	do("apps, later", chromedp.Navigate(in.URL+"/console/apps"), chromedp.WaitVisible(chromedp.CSS("#token-needs-sign-in")))
	do("create a token", chromedp.SendKeys(chromedp.CSS("#token-name"), "tablet"),
		chromedp.Click(chromedp.CSS("#token-create")), chromedp.WaitVisible(chromedp.CSS("#sign-in-again")))
	check("sign in again")
	do("sign in with a recovery code", chromedp.Click(chromedp.CSS("details summary")),
		chromedp.SendKeys(chromedp.CSS("#recovery-code"), owner.recovery[0]),
		chromedp.Click(chromedp.CSS("#recovery-submit")), chromedp.WaitVisible(chromedp.CSS("#pending-do")))
	check("do it now")
}

// axeCheck returns a check that runs axe (axe-core's source) on the page
// the tab of ctx shows, in light and in dark mode, and fails the test on
// any violation of impact serious or critical; lesser ones are logged.
// The tab's pages' CSP is bypassed so that axe's script may run.
func axeCheck(t *testing.T, ctx context.Context, axe string) func(name string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	return func(name string) {
		t.Helper()
		for _, scheme := range []string{"light", "dark"} {
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
				t.Fatal(err)
			}
			vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](
				`typeof axe === "undefined" ? (0, eval)(`+jsString(axe)+`) : 0; `+runAxe, chromedp.EvalAwaitPromise))
			if errors.Is(err, context.DeadlineExceeded) || err != nil {
				t.Fatalf("%s (%s): axe: %v", name, scheme, err)
			}
			for _, v := range vs {
				msg := fmt.Sprintf("%s (%s): %s [%s] %s\n  %s", name, scheme, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n  "))
				if v.Impact == "serious" || v.Impact == "critical" {
					t.Error(msg)
				} else {
					t.Log(msg)
				}
			}
		}
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == 0x2028 || r == 0x2029 || r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

const consoleNote = "# Garden plan\n\n## Goals\n\nPlant tomatoes in May.\nSee [[Seeds]].\n\n## Budget\n\n- soil: 40\n- seeds: 12\n"

// callTool runs a tool and returns its structured output.
func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		t.Fatalf("%s failed: %s", name, b)
	}
	out := map[string]any{}
	json.Unmarshal(b, &out)
	return out
}

// TestConsoleBrowser drives the owner's console of the real binary in
// headless Chromium: an app edits a note over MCP; the owner signs in,
// sees the edit with its diff in Activity, undoes it (the file is back
// byte for byte), and follows the url search gave the app to the note's
// page. With CORTEX_SCREENSHOTS=DIR it saves the pages at phone and
// desktop sizes there.
func TestConsoleBrowser(t *testing.T) {
	testkit.Chromium(t)
	in := newInstance(t)
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	notePath := filepath.Join(in.Vault, "Garden", "Plan.md")
	os.MkdirAll(filepath.Dir(notePath), 0o755)
	if err := os.WriteFile(notePath, []byte(consoleNote), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in.Vault, "Seeds.md"), []byte("# Seeds\n\nTomato, basil.\n"), 0o644)
	in.start()
	owner := setupOwner(t, in)
	tok := in.token("claude")

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text := tab.Ctx, tab.Do, tab.Text
	cs := in.connect(ctx, tok)
	fetched := callTool(ctx, t, cs, "fetch", map[string]any{"id": "Garden/Plan.md"})
	version, _ := fetched["metadata"].(map[string]any)["version"].(string)
	callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Garden/Plan.md", "version": version,
		"old_text": "Plant tomatoes in May.", "new_text": "Plant tomatoes in June."})
	found := callTool(ctx, t, cs, "search", map[string]any{"query": "tomatoes"})
	results, _ := found["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("search found nothing: %v", found)
	}
	noteURL, _ := results[0].(map[string]any)["url"].(string)
	if noteURL != in.URL+"/notes/Garden/Plan.md" {
		t.Fatalf("search url = %q", noteURL)
	}

	shoot := func(name string) { t.Helper(); shootConsole(ctx, t, name) }

	// Signed out, Activity sends the owner to sign in, and back.
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.Navigate(in.URL+"/console/activity"),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#filters")),
	)
	entry := text(".entry")
	for _, want := range []string{"Garden/Plan.md", "claude", "edit_note", "Plant tomatoes in May.", "Plant tomatoes in June."} {
		if !strings.Contains(entry, want) {
			t.Errorf("the newest activity entry lacks %q:\n%s", want, entry)
		}
	}
	if got := text(".entry .diff mark"); got != "June" && got != "May" {
		t.Errorf("the changed word marked is %q", got)
	}
	shoot("activity")

	do("undo", chromedp.Click(chromedp.CSS(".entry button.undo")), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := text("#result-title"); got != "Undone" {
		t.Errorf("after undo the page says %q", got)
	}
	if b, err := os.ReadFile(notePath); err != nil || string(b) != consoleNote {
		t.Fatalf("after undo the file is %q (%v); want the original bytes", b, err)
	}

	// The url search handed the app opens the note, rendered, with history.
	do("open the note", chromedp.Navigate(noteURL), chromedp.WaitVisible(chromedp.CSS("#note-body")))
	if got := text("#note-title"); got != "Garden plan" {
		t.Errorf("note title %q", got)
	}
	if got := text("#note-body"); !strings.Contains(got, "Plant tomatoes in May.") {
		t.Errorf("note body %q", got)
	}
	if got := text("#history"); !strings.Contains(got, "owner (console)") || !strings.Contains(got, "claude") {
		t.Errorf("the history lacks the app's edit or the owner's undo:\n%s", got)
	}
	shoot("note")
	do("follow a wikilink", chromedp.Click(chromedp.CSS("a.wikilink")), chromedp.WaitVisible(chromedp.CSS(`article[data-path="Seeds.md"]`)))
	if got := text("#note-title"); got != "Seeds" {
		t.Errorf("the wikilink led to %q", got)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if u, _ := url.Parse(loc); u == nil || u.Path != "/notes/Seeds.md" {
		t.Errorf("the wikilink led to %s", loc)
	}
	do("open the diff", chromedp.Navigate(noteURL), chromedp.WaitVisible(chromedp.CSS("a.diff-now")),
		chromedp.Click(chromedp.CSS("#history li:nth-child(2) a.diff-now")), chromedp.WaitVisible(chromedp.CSS("#diff-title")))
	if got := text(".diff"); !strings.Contains(got, "June") {
		t.Errorf("the diff from the app's version to now shows\n%s", got)
	}
	shoot("diff")

	// The app deletes the note; the owner brings it back from the trash.
	fetched = callTool(ctx, t, cs, "fetch", map[string]any{"id": "Garden/Plan.md"})
	version, _ = fetched["metadata"].(map[string]any)["version"].(string)
	callTool(ctx, t, cs, "delete_note", map[string]any{"id": "Garden/Plan.md", "version": version})
	if _, err := os.Stat(notePath); !os.IsNotExist(err) {
		t.Fatalf("the deleted note is still there: %v", err)
	}
	do("open the trash", chromedp.Navigate(in.URL+"/console/trash"), chromedp.WaitVisible(chromedp.CSS("#trash")))
	if got := text("#trash tbody tr"); !strings.Contains(got, "Garden/Plan.md") || !strings.Contains(got, "claude") {
		t.Errorf("the trash lists %q", got)
	}
	shoot("trash")
	do("restore from the trash", chromedp.Click(chromedp.CSS("button.restore-trash")), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if b, err := os.ReadFile(notePath); err != nil || string(b) != consoleNote {
		t.Fatalf("after restoring from the trash the file is %q (%v)", b, err)
	}
	// A reload of the result shows it again and restores nothing more.
	do("reload the result", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := text("#result-message"); !strings.Contains(got, "Restored Garden/Plan.md") {
		t.Errorf("the reloaded result says %q", got)
	}
	if entries, err := os.ReadDir(filepath.Join(in.Vault, ".trash", "Garden")); err == nil && len(entries) != 0 {
		t.Errorf("the trash holds %d notes after the reload", len(entries))
	}
	do("open the restored note", chromedp.Click(chromedp.CSS("#result-link")), chromedp.WaitVisible(chromedp.CSS("#note-title")))

	// Revoking the app's token refuses its next call.
	do("open apps", chromedp.Navigate(in.URL+"/console/apps"), chromedp.WaitVisible(chromedp.CSS(`tr[data-token="claude"]`)))
	shoot("apps")
	if status, _ := mcpStatus(t, in, tok, mcpInitialize); status != 200 {
		t.Fatalf("before revoking, the token gets %d", status)
	}
	// Revoke asks first, then says what it did.
	do("ask to revoke the token", chromedp.Click(chromedp.CSS(`tr[data-token="claude"] summary.revoke-token`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-token="claude"] button.confirm-revoke-token`)))
	if status, _ := mcpStatus(t, in, tok, mcpInitialize); status != 200 {
		t.Fatalf("asking to revoke revoked the token: %d", status)
	}
	do("revoke the token", chromedp.Click(chromedp.CSS(`tr[data-token="claude"] button.confirm-revoke-token`)),
		chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := text("#result-message"); !strings.Contains(got, "Revoked the token claude") {
		t.Errorf("the revoke result says %q", got)
	}
	do("back to the apps", chromedp.Click(chromedp.CSS("#result-link")), chromedp.WaitVisible(chromedp.CSS("#no-tokens")))
	if status, _ := mcpStatus(t, in, tok, mcpInitialize); status != 401 {
		t.Errorf("after revoking, the token gets %d; want 401", status)
	}
	do("open status", chromedp.Navigate(in.URL+"/console/status"), chromedp.WaitVisible(chromedp.CSS("#st-notes")))
	shoot("status")

	// Signed in already, the owner can still sign in again (as the console
	// offers when an action needs a recent sign-in) and comes back to the
	// page with a new session.
	do("sign in again", chromedp.Navigate(in.URL+"/login?reauth=1&return=%2Fconsole%2Fstatus"),
		chromedp.WaitVisible(chromedp.CSS("#reauth")),
		chromedp.Click(chromedp.CSS("details summary")),
		chromedp.SendKeys(chromedp.CSS("#recovery-code"), owner.recovery[0]),
		chromedp.Click(chromedp.CSS("#recovery-submit")),
		chromedp.WaitVisible(chromedp.CSS("#st-session")),
	)
	if got := text("#st-session"); !strings.Contains(got, "by recovery") || !strings.Contains(got, "recent") {
		t.Errorf("after signing in again the session is %q", got)
	}
}

// shootConsole saves the page the tab shows at phone and desktop sizes
// as console-NAME-SIZE.png in $CORTEX_SCREENSHOTS, when that is set (the
// pictures in docs/console.md).
func shootConsole(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	shots := os.Getenv("CORTEX_SCREENSHOTS")
	if shots == "" {
		return
	}
	for _, size := range []struct {
		w, h int64
		name string
	}{{390, 844, "phone"}, {1280, 800, "desktop"}} {
		err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h))
		var png []byte
		if err == nil {
			png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, "console-"+name+"-"+size.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestConsoleBrowseSearchConnect drives the real binary in Chromium as an
// owner would: the search box on a console page finds a note by a word
// in its body, /notes/ lists a folder and leads to its notes, and after
// creating a token the connect setups carry this server's /mcp URL. With
// CORTEX_SCREENSHOTS=DIR it saves those pages there.
func TestConsoleBrowseSearchConnect(t *testing.T) {
	testkit.Chromium(t)
	in := newInstance(t)
	if err := os.MkdirAll(filepath.Join(in.Vault, "Garden"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in.Vault, "Garden", "Plan.md"), []byte(consoleNote), 0o644)
	os.WriteFile(filepath.Join(in.Vault, "Garden", "Beds.md"), []byte("# Beds\n\nThe rhubarb bed by the fence.\n"), 0o644)
	os.WriteFile(filepath.Join(in.Vault, "Seeds.md"), []byte("# Seeds\n\nTomato, basil.\n"), 0o644)
	in.start()
	owner := setupOwner(t, in)

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text := tab.Ctx, tab.Do, tab.Text
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.Navigate(in.URL+"/console/status"),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#search-q")),
	)

	// The header's search box, on the status page.
	do("search", chromedp.SendKeys(chromedp.CSS("#search-q"), "rhubarb\n"), chromedp.WaitVisible(chromedp.CSS("#hits")))
	if got := text("#hits"); !strings.Contains(got, "Beds") || !strings.Contains(got, "rhubarb bed by the fence") || strings.Contains(got, "Seeds") {
		t.Errorf("search results:\n%s", got)
	}
	shootConsole(ctx, t, "search")
	do("open a result", chromedp.Click(chromedp.CSS("#hits a")), chromedp.WaitVisible(chromedp.CSS("#note-body")))
	if got := text("#note-title"); got != "Beds" {
		t.Errorf("the result opened %q", got)
	}

	// The notes list, then a folder, then a note in it.
	do("notes", chromedp.Click(chromedp.CSS(`header nav a[href="/notes/"]`)), chromedp.WaitVisible(chromedp.CSS("#folder")))
	if got := text("#folder"); !strings.Contains(got, "Garden/") || !strings.Contains(got, "Seeds.md") {
		t.Errorf("/notes/ lists:\n%s", got)
	}
	shootConsole(ctx, t, "notes")
	do("folder", chromedp.Click(chromedp.CSS(`#folder a[href="/notes/Garden/"]`)), chromedp.WaitVisible(chromedp.CSS("#folder-title")))
	if got := text("#folder"); !strings.Contains(got, "Beds.md") || !strings.Contains(got, "Plan.md") || strings.Contains(got, "Seeds.md") {
		t.Errorf("/notes/Garden/ lists:\n%s", got)
	}
	do("open a note", chromedp.Click(chromedp.CSS(`#folder a[href="/notes/Garden/Plan.md"]`)), chromedp.WaitVisible(chromedp.CSS("#note-body")))
	do("a missing folder", chromedp.Navigate(in.URL+"/notes/Nowhere/"), chromedp.WaitVisible(chromedp.CSS("#problem")))
	if got := text("#problem"); !strings.Contains(got, "no folder at this path") {
		t.Errorf("a missing folder says %q", got)
	}

	// A new token comes with the lines that connect an assistant to it.
	do("apps", chromedp.Navigate(in.URL+"/console/apps"), chromedp.WaitVisible(chromedp.CSS("#connect-url")))
	if got := text("#connect-url"); got != in.URL+"/mcp" {
		t.Errorf("the connector address is %q", got)
	}
	do("create a token", chromedp.SendKeys(chromedp.CSS("#token-name"), "laptop"),
		chromedp.Click(chromedp.CSS("#token-create")), chromedp.WaitVisible(chromedp.CSS("#setup-claude-code")))
	secret := text("#token-secret")
	shootConsole(ctx, t, "connect")
	if got, want := text("#setup-claude-code"), `claude mcp add --transport http cortex `+in.URL+`/mcp --header "Authorization: Bearer `+secret+`"`; got != want {
		t.Errorf("Claude Code:\n%s\nwant\n%s", got, want)
	}
	for _, id := range []string{"#setup-codex", "#setup-gemini", "#setup-cursor", "#setup-vscode"} {
		if got := text(id); !strings.Contains(got, in.URL+"/mcp") {
			t.Errorf("%s lacks the server's URL:\n%s", id, got)
		}
	}
	if loc := tab.Location(); strings.Contains(loc, secret) {
		t.Errorf("the token is in the address %q", loc)
	}
	if strings.Contains(in.logs.String(), secret) {
		t.Error("the token is in the server's log")
	}
}

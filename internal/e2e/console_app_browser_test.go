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

// TestConsoleBrowserAppPage drives the real binary's page of one bearer
// token in headless Chromium at 360 px wide: the Apps page links to it,
// it fits the width, the token's reads and changes show, and the scope
// form round-trips (saved, shown, filled in again; a bad pattern refused
// with what was typed kept). The token's next request sees the new scope.
func TestConsoleBrowserAppPage(t *testing.T) {
	testkit.Chromium(t)
	in := newInstance(t)
	for p, body := range map[string]string{"Work/Plan.md": "# Plan\n\nWater the beans.\n", "Diary.md": "# Diary\n\nDear diary.\n"} {
		full := filepath.Join(in.Vault, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in.start()
	owner := setupOwner(t, in)
	tok := in.token("claude")

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text := tab.Ctx, tab.Do, tab.Text
	cs := in.connect(ctx, tok)
	fetched := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Diary.md"}), "fetch")
	version, _ := fetched["metadata"].(map[string]any)["version"].(string)
	must(t, call(t, ctx, cs, "edit_note", map[string]any{"id": "Diary.md", "version": version, "old_text": "Dear diary.", "new_text": "Dear diary, again."}), "edit_note")

	fits := func(what string) {
		t.Helper()
		width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
		if err != nil || width != 360 {
			t.Fatalf("%s: the window is %d px wide (%v), want 360", what, width, err)
		}
		over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if over {
			t.Errorf("%s: the page is wider than the 360 px screen", what)
		}
	}
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in at 360 px", chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(in.URL+"/console/apps"),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-token="claude"] a.app-link`)),
	)
	do("open the token's page", chromedp.Click(chromedp.CSS(`tr[data-token="claude"] a.app-link`)),
		chromedp.WaitVisible(chromedp.CSS("#scope-form")))
	fits("the token's page")
	if got := text("#app-scope"); got != "the whole vault" {
		t.Errorf("scope shown %q", got)
	}
	if got := text("#writes"); !strings.Contains(got, "Diary.md") {
		t.Errorf("the notes it changed: %q", got)
	}

	do("save a scope", chromedp.SendKeys(chromedp.CSS("#scope-read"), "Work/**"),
		chromedp.Click(chromedp.CSS("#scope-private")),
		chromedp.Click(chromedp.CSS("#scope-save")),
		chromedp.WaitVisible(chromedp.CSS("#result-title")),
		chromedp.Click(chromedp.CSS("#result-link")),
		chromedp.WaitVisible(chromedp.CSS("#scope-form")))
	if got := text("#app-scope"); got != "read Work/**; write nothing, private notes included" {
		t.Errorf("after saving, the scope shown is %q", got)
	}
	value := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return v
	}
	read := value("#scope-read")
	private, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#scope-private").checked`))
	if err != nil {
		t.Fatal(err)
	}
	if read != "Work/**" || !private {
		t.Errorf("the form after saving: read %q, private %v", read, private)
	}
	// The token's next request is inside the new scope.
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "Diary.md"}); !r.isError || !strings.Contains(r.text, "not_found") {
		t.Errorf("after the scope change, fetching Diary.md answered %v %q", r.isError, r.text)
	}

	do("refuse a bad pattern", chromedp.SetValue(chromedp.CSS("#scope-read"), "Work//x"),
		chromedp.Click(chromedp.CSS("#scope-save")),
		chromedp.WaitVisible(chromedp.CSS("#scope-error")))
	fits("the refused form")
	if read = value("#scope-read"); read != "Work//x" {
		t.Errorf("the refused form holds %q, not what was typed", read)
	}
	if got := text("#scope-error"); !strings.Contains(got, "Read patterns") {
		t.Errorf("the error says %q", got)
	}
}

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

// TestConsoleBrowserTimeZone drives the real binary in Chromium: on Status
// the owner types a time zone the database does not know (refused on the
// page, what was typed kept), then Asia/Kolkata; Activity then shows the
// change's time in IST with UTC in its title and datetime, and reads the
// Since the owner types in IST. axe-core checks the Status page, with the
// refusal shown too, in light and dark mode.
func TestConsoleBrowserTimeZone(t *testing.T) {
	axe := axeSource(t)
	testkit.Chromium(t)
	in := newInstance(t)
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in.Vault, "Plan.md"), []byte(consoleNote), 0o644)
	in.start()
	owner := setupOwner(t, in)
	tok := in.token("claude")

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text, count := tab.Ctx, tab.Do, tab.Text, tab.Count
	cs := in.connect(ctx, tok)
	fetched := callTool(ctx, t, cs, "fetch", map[string]any{"id": "Plan.md"})
	version, _ := fetched["metadata"].(map[string]any)["version"].(string)
	callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Plan.md", "version": version,
		"old_text": "Plant tomatoes in May.", "new_text": "Plant tomatoes in June."})

	check := axeCheck(t, ctx, axe)
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.Navigate(in.URL+"/console/status"),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#zone-form")),
	)
	if got := text("#zone-now"); got != "UTC" {
		t.Errorf("before any is set the time zone is %q, want UTC", got)
	}
	check("status")

	do("a zone nobody knows", chromedp.SetValue(chromedp.CSS("#zone-name"), "Mars/Olympus"),
		chromedp.Click(chromedp.CSS("#zone-save")), chromedp.WaitVisible(chromedp.CSS("#zone-error")))
	if got, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#zone-name"))); got != "Mars/Olympus" {
		t.Errorf("the refused form shows %q; want what was typed", got)
	}
	if got := text("#zone-error"); !strings.Contains(got, "Mars/Olympus") || !strings.Contains(got, "Europe/Paris") {
		t.Errorf("the refusal says %q", got)
	}
	if got := text("#zone-now"); got != "UTC" {
		t.Errorf("a refused zone changed the setting to %q", got)
	}
	check("status, a zone refused")

	do("set Asia/Kolkata", chromedp.SetValue(chromedp.CSS("#zone-name"), "Asia/Kolkata"),
		chromedp.Click(chromedp.CSS("#zone-save")), chromedp.WaitVisible(chromedp.CSS("#result-title")))
	if got := text("#result-message"); !strings.Contains(got, "Asia/Kolkata (IST, UTC+05:30 now)") {
		t.Errorf("the result says %q", got)
	}

	ist, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	type stamp struct{ Text, Title, Datetime string }
	do("activity", chromedp.Navigate(in.URL+"/console/activity"), chromedp.WaitVisible(chromedp.CSS(".entry .when time")))
	s, err := chromedp.Run(ctx, chromedp.Evaluate[stamp](`(() => { const e = document.querySelector(".entry .when time");
	  return {Text: e.textContent, Title: e.title, Datetime: e.getAttribute("datetime")}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, s.Datetime)
	if err != nil || time.Since(at) > time.Hour || time.Since(at) < 0 {
		t.Fatalf("the change's datetime is %q (%v); want the edit's, in RFC 3339", s.Datetime, err)
	}
	if want := at.In(ist).Format("2006-01-02 15:04:05 MST"); s.Text != want || !strings.HasSuffix(s.Text, " IST") {
		t.Errorf("the change's time reads %q; want %q", s.Text, want)
	}
	if want := at.UTC().Format("2006-01-02 15:04:05") + " UTC"; s.Title != want {
		t.Errorf("the change's time has the title %q; want %q (UTC on hover)", s.Title, want)
	}

	// Since is read in IST: the edit's UTC wall clock a minute later is
	// five and a half hours earlier in IST, so the edit is shown; its IST
	// wall clock a minute later is after it.
	filter := func(since string) {
		t.Helper()
		do("since "+since, chromedp.SetValue(chromedp.CSS("#filter-since"), since), chromedp.Click(chromedp.CSS(`#filters button`)),
			chromedp.WaitVisible(chromedp.CSS(`#filter-since[value="`+since+`"]`)))
	}
	filter(at.Add(time.Minute).UTC().Format("2006-01-02T15:04"))
	if n := count(".entry"); n != 1 {
		t.Errorf("since the UTC wall clock read in IST: %d changes, want the edit", n)
	}
	filter(at.Add(time.Minute).In(ist).Format("2006-01-02T15:04"))
	if n := count("#no-entries"); n != 1 {
		t.Errorf("since a minute after the edit in IST: the edit is still shown")
	}
}

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// largeNote is a note of about 1 MB: a long part A, a part B of 1,200
// lines and a part C. partB is the 1,204 lines an app rewrites it with.
func largeNote() (note, partB string) {
	var b, nb strings.Builder
	b.WriteString("# Big\n\n## Part A\n\n")
	for i := range 12000 {
		fmt.Fprintf(&b, "Plant tomatoes in May, line %d of part A.\n", i)
	}
	b.WriteString("\n## Part B\n\n")
	for i := range 1200 {
		fmt.Fprintf(&b, "The old plan, item %d, kept for now.\n", i)
	}
	b.WriteString("\n## Part C\n\n")
	for i := range 25000 {
		fmt.Fprintf(&b, "Part C line %d.\n", i)
	}
	nb.WriteString("\n")
	for i := range 1204 {
		fmt.Fprintf(&nb, "A new plan, step %d: water them.\n", i)
	}
	nb.WriteString("\n")
	return b.String(), nb.String()
}

// loadFigures is what the browser measured of the page it loaded: the
// HTML's size as sent and as read, and the milliseconds until the page
// had loaded and was drawn.
type loadFigures struct {
	Sent, HTML   int
	LoadedMillis float64
}

const measureLoad = `(() => { const n = performance.getEntriesByType('navigation')[0];
	return {Sent: n.encodedBodySize, HTML: n.decodedBodySize, LoadedMillis: n.loadEventEnd - n.startTime}; })()`

// TestConsoleBrowserLargeChange: an app creates a 1 MB note over MCP and
// then rewrites part of it. In Chromium, Activity stays small (under
// 300 KB of HTML, sent gzipped, loaded in under a second) and sums the
// rewrite up with a link; the note page's whole diff, from the note as
// created to now, marks only the one word changed in place.
func TestConsoleBrowserLargeChange(t *testing.T) {
	testkit.Chromium(t)
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)
	tok := in.token("claude")
	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	ctx, do, text, count := tab.Ctx, tab.Do, tab.Text, tab.Count
	cs := in.connect(ctx, tok)

	note, partB := largeNote()
	created := callTool(ctx, t, cs, "create_note", map[string]any{"path": "Big.md", "content": note})
	v1, _ := created["version"].(string)
	edited := callTool(ctx, t, cs, "edit_note", map[string]any{"id": "Big.md", "version": v1,
		"old_text": "Plant tomatoes in May, line 5000 of part A.", "new_text": "Plant tomatoes in June, line 5000 of part A."})
	v2, _ := edited["version"].(string)
	rewritten := callTool(ctx, t, cs, "replace_section", map[string]any{"id": "Big.md", "version": v2,
		"heading": "## Part B", "content": partB})
	v3, _ := rewritten["version"].(string)

	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.Navigate(in.URL+"/console/activity"),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#filters")),
	)
	// Measured on a fresh load, typed as the owner would.
	do("load Activity", chromedp.Navigate(in.URL+"/console/activity"), chromedp.WaitVisible(chromedp.CSS("#filters")))
	fig, err := chromedp.Run(ctx, chromedp.Evaluate[loadFigures](measureLoad))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Activity: %d bytes of HTML, %d sent, loaded in %.0f ms", fig.HTML, fig.Sent, fig.LoadedMillis)
	if fig.HTML == 0 || fig.HTML > 300<<10 {
		t.Errorf("Activity is %d bytes of HTML; want under 300 KB", fig.HTML)
	}
	if fig.Sent == 0 || fig.Sent*2 > fig.HTML {
		t.Errorf("Activity sent %d bytes for %d of HTML; want it gzipped", fig.Sent, fig.HTML)
	}
	// What makes a page slow to render is its size and its number of
	// elements, both bounded here; the load time is logged, not
	// asserted, as it moves with the machine's load (about 0.3 s quiet).
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementsByTagName('*').length`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Activity: %d elements", nodes)
	if nodes == 0 || nodes > 3000 {
		t.Errorf("Activity has %d elements; want at most 3,000 so that it renders at once", nodes)
	}
	if got := text(".entry .diff-summary"); !strings.Contains(got, "+1,204 −1,200 lines") {
		t.Errorf("the rewrite is summed up as %q", got)
	}
	if got := text(".entry:nth-of-type(3) .diff-summary"); !strings.Contains(got, "lines (1.0 MB)") {
		t.Errorf("the creation is summed up as %q", got)
	}

	// The rewrite's link opens its whole diff, a page at a time.
	do("open the rewrite", chromedp.Click(chromedp.CSS(".entry a.full-diff")), chromedp.WaitVisible(chromedp.CSS("#diff-title")))
	if rows, removed := count(".diff > div:not(.dh)"), count(".diff .d1"); rows > 500 || removed == 0 || count("#diff-next") != 1 {
		t.Errorf("the first page of the rewrite has %d rows, %d removed, and no link to the next", rows, removed)
	}
	if n := count(".diff mark"); n != 0 {
		t.Errorf("the rewrite of unrelated lines marks %d words", n)
	}

	// From the note as created to now: the one line changed in place is
	// the first change, and the only one with marks.
	do("open the whole diff", chromedp.Navigate(in.URL+"/notes/Big.md?from="+v1+"&to="+v3), chromedp.WaitVisible(chromedp.CSS("#diff-title")))
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.diff mark')].map(m => m.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(marks, " ") != "May June" {
		t.Errorf("the whole diff marks %q; want May and June", marks)
	}
	if got := text(".diff .d1"); !strings.Contains(got, "5005") || !strings.Contains(got, "Plant tomatoes in May, line 5000 of part A.") {
		t.Errorf("the first removed row is %q", got)
	}
	if got := text(".diff .d2"); !strings.Contains(got, "5005") || !strings.Contains(got, "Plant tomatoes in June, line 5000 of part A.") {
		t.Errorf("the first added row is %q", got)
	}
	if got := text("#diff-rows"); !strings.HasPrefix(got, "Rows 1–") {
		t.Errorf("the diff's pages say %q", got)
	}
}

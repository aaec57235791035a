package console

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/render"
)

// bigNote is a note of about 1 MB: a long part A, a part B of 1,200
// lines, a part C; rewritten, part B is replaced with 1,204 other lines
// and one line of part A changes a word.
func bigNote(rewritten bool) string {
	var b strings.Builder
	b.WriteString("# Big\n\n## Part A\n\n")
	for i := range 12000 {
		if rewritten && i == 5000 {
			b.WriteString("Plant tomatoes in June, line 5000 of part A.\n")
			continue
		}
		fmt.Fprintf(&b, "Plant tomatoes in May, line %d of part A.\n", i)
	}
	b.WriteString("\n## Part B\n\n")
	if rewritten {
		for i := range 1204 {
			fmt.Fprintf(&b, "A new plan, step %d: water them.\n", i)
		}
	} else {
		for i := range 1200 {
			fmt.Fprintf(&b, "The old plan, item %d, kept for now.\n", i)
		}
	}
	b.WriteString("\n## Part C\n\n")
	for i := range 25000 {
		fmt.Fprintf(&b, "Part C line %d.\n", i)
	}
	return b.String()
}

var (
	rowRE  = regexp.MustCompile(`<div class="d(\d)" role="row">`)
	markRE = regexp.MustCompile(`<mark>([^<]*)</mark>`)
	fullRE = regexp.MustCompile(`<a href="([^"]+)" class="full-diff">`)
)

// TestLargeChangeIsSummedUp: a 1 MB note created and then partly
// rewritten shows on Activity as two small cards, the creation as its size
// and first lines and the rewrite as counts with a link; the link pages
// through the whole diff on the note's page, where only the changed word
// is marked and no unchanged line shows as changed.
func TestLargeChangeIsSummedUp(t *testing.T) {
	h := newHarness(t, nil)
	old, nw := bigNote(false), bigNote(true)
	h.Call("claude", "create_note", map[string]any{"path": "Big.md", "content": old})
	h.Call("claude", "edit_note", map[string]any{"id": "Big.md", "version": h.Version("Big.md"),
		"old_text": "Plant tomatoes in May, line 5000 of part A.", "new_text": "Plant tomatoes in June, line 5000 of part A."})
	var partB strings.Builder
	for i := range 1204 {
		fmt.Fprintf(&partB, "A new plan, step %d: water them.\n", i)
	}
	h.Call("claude", "replace_section", map[string]any{"id": "Big.md", "version": h.Version("Big.md"),
		"heading": "## Part B", "content": "\n" + partB.String() + "\n"})
	if got := h.Read("Big.md"); got != nw {
		d := diff.Lines(nw, got)
		t.Fatalf("the rewritten note is not the text the test expects:\n%.2000s", diff.Unified(d, 1))
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity")
	want(t, resp, body, http.StatusOK, "&#43;38,", "lines (1.0 MB)", "&#43;1,204 −1,200 lines", "<mark>June</mark>")
	if len(body) > 150<<10 {
		t.Errorf("Activity is %d bytes", len(body))
	}
	if rows := len(rowRE.FindAllString(body, -1)); rows > 2*previewLines+20 {
		t.Errorf("Activity shows %d diff rows", rows)
	}
	links := fullRE.FindAllStringSubmatch(body, -1)
	if len(links) != 2 {
		t.Fatalf("links to whole diffs: %q", links)
	}

	// Undoing all claude did trashes the note: its preview is its size and
	// first lines, with a link to the note as it is.
	resp, body = b.get("/console/undo-app?app=claude")
	want(t, resp, body, http.StatusOK, "−38,", "lines (1.0 MB)", `class="full-diff"`)
	if len(body) > 64<<10 {
		t.Errorf("the bulk-undo preview is %d bytes", len(body))
	}

	// The rewrite's link is the note page's diff, a page at a time.
	removed, added := wholeDiff(t, b, html.UnescapeString(links[0][1]))
	if len(removed) != 1200 || len(added) != 1204 {
		t.Errorf("the rewrite removes %d lines and adds %d; want 1,200 and 1,204", len(removed), len(added))
	}
	// From the note created to the note now: part B and the one line.
	j := h.journal()
	removed, added = wholeDiff(t, b, render.NoteURL("Big.md")+"?from="+j[2].NewVersion+"&to="+j[0].NewVersion)
	if len(removed) != 1201 || len(added) != 1205 || !removed["Plant tomatoes in May, line 5000 of part A."] {
		t.Errorf("the whole diff removes %d lines and adds %d; want 1,201 and 1,205", len(removed), len(added))
	}
	for l := range removed {
		if !strings.HasPrefix(l, "The old plan") && l != "Plant tomatoes in May, line 5000 of part A." {
			t.Errorf("removed %q", l)
		}
	}
}

var (
	changedRowRE = regexp.MustCompile(`<div class="d([12])" role="row">(?:<span class="ln" role="cell">\d*</span>){2}<span class="tx" role="cell">(?:<span class="visually-hidden">(?:added|removed): </span>)?(.*?)</span></div>`)
	nextRE       = regexp.MustCompile(`<a href="([^"]+)" rel="next"`)
)

// wholeDiff follows the pages of the diff at u and returns the lines it
// shows as removed and added; it fails t if a page is large or marks
// another word than the test's one change.
func wholeDiff(t *testing.T, b *browser, u string) (removed, added map[string]bool) {
	t.Helper()
	removed, added = map[string]bool{}, map[string]bool{}
	for pages := 0; u != ""; pages++ {
		if pages > 20 {
			t.Fatal("the diff does not end")
		}
		resp, body := b.get(u)
		want(t, resp, body, http.StatusOK, `id="diff-title"`)
		if len(body) > 300<<10 {
			t.Errorf("a page of the diff is %d bytes", len(body))
		}
		for _, m := range markRE.FindAllStringSubmatch(body, -1) {
			if m[1] != "May" && m[1] != "June" {
				t.Errorf("marked %q", m[1])
			}
		}
		for _, m := range changedRowRE.FindAllStringSubmatch(body, -1) {
			text := html.UnescapeString(markRE.ReplaceAllString(m[2], "$1"))
			if m[1] == "1" {
				removed[text] = true
			} else {
				added[text] = true
			}
		}
		u = ""
		if m := nextRE.FindStringSubmatch(body); m != nil {
			u = html.UnescapeString(m[1])
		}
	}
	return removed, added
}

// TestSmallChangesShowInFull: a small note created shows whole, with no
// link; a small edit shows its rows.
func TestSmallChangesShowInFull(t *testing.T) {
	h := newHarness(t, nil)
	h.Call("claude", "create_note", map[string]any{"path": "Small.md", "content": "# Small\n\nline one\n"})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity")
	want(t, resp, body, http.StatusOK, "&#43;3 lines (18 bytes)", "line one")
	if strings.Contains(body, "full-diff") {
		t.Errorf("a small creation links to a whole diff:\n%s", body)
	}
}

func TestCardView(t *testing.T) {
	big := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f+"\n", i)
		}
		return b.String()
	}
	b := newBudget()
	v := cardView(diff.Lines(big(300, "a%d"), big(300, "b%d")), 3, "/full", b)
	if v.Summary != "+300 −300 lines" || v.Rows != nil || v.Full != "/full" {
		t.Errorf("a large change: %+v", v)
	}
	v = cardView(diff.Lines("", strings.Repeat("x", 2000)+"\n"), 3, "/full", b)
	if v.Summary != "+1 lines (2.0 KB)" || len(v.Rows) != 1 || !strings.HasSuffix(v.Rows[0].Text, "…") || v.Full != "/full" {
		t.Errorf("a long line created: %+v", v)
	}
	// Once the page's budget is spent, changes are summed up only.
	b.left = 2
	v = cardView(diff.Lines("a\nb\n", "a\nc\n"), 3, "/full", b)
	if v.Rows != nil || v.Full != "/full" {
		t.Errorf("past the budget: %+v", v)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q", n, got)
		}
	}
}

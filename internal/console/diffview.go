package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/render"
)

// What one page shows of diffs. A change larger than a card should hold
// is summed up, with a link to the whole diff on the note's page, which
// shows it a page at a time; a page of many changes stops showing rows
// once its budget is spent, so no page grows with the notes' sizes.
const (
	// cardRows and cardBytes bound one change's rows on a page of
	// changes (Activity, an undo's preview and result).
	cardRows  = 200
	cardBytes = 64 << 10
	// pageBytes bounds the rows' text of all the changes on one page.
	pageBytes = 192 << 10
	// previewLines is how many first lines of a note created or deleted
	// are shown, each cut at previewLineBytes.
	previewLines     = 8
	previewLineBytes = 512
	// fullRows and fullBytes bound one page of the whole diff on the
	// note's page.
	fullRows  = 500
	fullBytes = 256 << 10
)

// diffView is what a page shows of one diff: a summary, the rows that fit
// and, when some are left out, where the whole diff is.
type diffView struct {
	Summary string      // "+1,204 −1,198 lines", or "+N lines (size)" for a note created
	Rows    []diff.Line // the rows shown; none when only the summary is
	Cut     bool        // Rows are the first lines of a note created or deleted
	Full    string      // the whole diff on the note's page, when rows are left out
}

// budget is the diff text a page of changes may still show.
type budget struct{ left int }

func newBudget() *budget { return &budget{left: pageBytes} }

// cardView sums d up for a page of changes: the changed lines with context
// lines around them when they fit the card and the page's budget; for a
// note created or deleted its first lines; else the summary alone. full
// links to the whole diff ("" when there is no page for it).
func cardView(d []diff.Line, context int, full string, b *budget) diffView {
	added, removed := diff.Count(d)
	v := diffView{Full: full}
	if whole := added + removed; whole > 0 && whole == len(d) && (added == 0 || removed == 0) {
		return preview(d, added > 0, v, b)
	}
	v.Summary = "+" + thousands(added) + " −" + thousands(removed) + " lines"
	rows := changedOnly(d, context)
	size := rowBytes(rows)
	if len(rows) > cardRows || size > cardBytes || size > b.left {
		return v
	}
	b.left -= size
	v.Rows, v.Full = rows, ""
	return v
}

// preview shows a note created (or deleted) as its size and first lines.
func preview(d []diff.Line, created bool, v diffView, b *budget) diffView {
	size := 0
	for _, l := range d {
		size += len(l.Text) + 1
	}
	sign := "−"
	if created {
		sign = "+"
	}
	v.Summary = sign + thousands(len(d)) + " lines (" + bytesText(size) + ")"
	whole := len(d) <= previewLines
	for _, l := range d[:min(len(d), previewLines)] {
		if len(l.Text) > previewLineBytes {
			l.Text = strings.ToValidUTF8(l.Text[:previewLineBytes], "") + "…"
			whole = false
		}
		if len(l.Text) > b.left {
			break
		}
		b.left -= len(l.Text)
		v.Rows = append(v.Rows, l)
	}
	v.Cut = true
	if whole && len(v.Rows) == len(d) {
		v.Full = ""
	}
	return v
}

// fullView is page (from 1) of the whole diff d for the note page at
// base, whose query q chose the two versions: the changed lines with
// context around them, at most fullRows rows and fullBytes of text a page
// (and at least one row), with links to the pages before and after.
func fullView(d []diff.Line, page int, base string, q url.Values) (v diffView, prev, next string, first, last, total int) {
	added, removed := diff.Count(d)
	v.Summary = "+" + thousands(added) + " −" + thousands(removed) + " lines"
	rows := changedOnly(d, 5)
	start, n := 0, 1
	for {
		end := pageEnd(rows, start)
		if n == page || end == len(rows) {
			v.Rows = rows[start:end]
			first, last, total = start+1, end, len(rows)
			if n > 1 {
				prev = pageLink(base, q, n-1)
			}
			if end < len(rows) {
				next = pageLink(base, q, n+1)
			}
			return v, prev, next, first, last, total
		}
		start, n = end, n+1
	}
}

// pageEnd is where the page of rows that starts at start ends.
func pageEnd(rows []diff.Line, start int) int {
	size, end := 0, start
	for end < len(rows) && end-start < fullRows {
		size += len(rows[end].Text)
		if size > fullBytes && end > start {
			break
		}
		end++
	}
	return end
}

func pageLink(base string, q url.Values, page int) string {
	p := url.Values{}
	for _, k := range []string{"from", "to"} {
		if v := q.Get(k); v != "" {
			p.Set(k, v)
		}
	}
	p.Set("page", strconv.Itoa(page))
	return base + "?" + p.Encode()
}

// planViews sums up each change of an undo or restore plan (nil: none)
// for one page, each with a link to the whole diff from the note now to
// the note as the plan leaves it.
func planViews(plan *history.Plan) []diffView {
	if plan == nil {
		return nil
	}
	b := newBudget()
	out := make([]diffView, len(plan.Changes))
	for i, ch := range plan.Changes {
		out[i] = cardView(ch.Diff, 3, changeURL(ch.Path, ch.Current, ch.Target), b)
	}
	return out
}

// changeURL is the note page showing what a change from version old to
// version nw of the note at p did: the diff of the two, or the one
// version when the other is none.
func changeURL(p, old, nw string) string {
	switch {
	case old != "" && nw != "":
		return render.NoteURL(p) + "?" + url.Values{"from": {old}, "to": {nw}}.Encode()
	case nw != "":
		return render.NoteURL(p) + "?" + url.Values{"v": {nw}}.Encode()
	case old != "":
		return render.NoteURL(p) + "?" + url.Values{"v": {old}}.Encode()
	}
	return ""
}

// changedOnly keeps the changed lines of d and context lines around them,
// so a one-line edit to a long note shows as a few lines; a gap is one
// row of "…".
func changedOnly(d []diff.Line, context int) []diff.Line {
	keep := make([]bool, len(d))
	for i, l := range d {
		if l.Op != diff.Equal {
			for j := max(0, i-context); j <= min(len(d)-1, i+context); j++ {
				keep[j] = true
			}
		}
	}
	var out []diff.Line
	for i, l := range d {
		if keep[i] {
			out = append(out, l)
		} else if i > 0 && keep[i-1] {
			out = append(out, diff.Line{Op: diff.Equal, Text: "…"})
		}
	}
	return out
}

func rowBytes(rows []diff.Line) int {
	n := 0
	for _, l := range rows {
		n += len(l.Text) + 1
	}
	return n
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// bytesText is a size as people read it: 512 bytes, 12.3 KB, 1.0 MB.
func bytesText(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " bytes"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

package tools

import (
	"context"
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Bounds of the diff a change view is handed, those of the console's
// cards: past them the view shows the summary alone and links to the
// console, so that a rewrite of a large note does not put megabytes into
// a conversation.
const (
	viewRows    = 200
	viewBytes   = 64 << 10
	viewContext = 2 // unchanged lines shown around each change
)

// noteChange is what a write did to one note, as the change view shows it.
type noteChange struct {
	path, from    string // from: where a moved note was
	before, after string // versions; "" when the note did not exist
	// texts, when the write has them, are the note's texts before and
	// after; else they are read from the note and its history.
	texts *vault.WriteResult
}

// changed is an output that names the change it made; false when it
// made none (a dry run).
type changed interface{ change() (noteChange, bool) }

func (o writeOut) change() (noteChange, bool) {
	return noteChange{path: o.ID, before: o.PreviousVersion, after: o.Version, texts: o.texts}, !o.DryRun
}

func (o moveOut) change() (noteChange, bool) {
	return noteChange{path: o.ID, from: o.From, before: o.PreviousVersion, after: o.Version}, true
}

func (o deleteOut) change() (noteChange, bool) {
	return noteChange{path: o.ID, before: o.PreviousVersion}, true
}

// changeView is the data of the change view, in structuredContent's
// "view" for a client that offered the UI extension only: the model is
// not meant to read it, and the text content stays as short as before.
type changeView struct {
	Path   string `json:"path"`
	From   string `json:"from,omitempty"`
	Title  string `json:"title"`
	App    string `json:"app"`
	Change string `json:"change"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Summary is "+N −M lines", as the console writes it.
	Summary string    `json:"summary"`
	Added   int       `json:"added"`
	Removed int       `json:"removed"`
	Rows    []viewRow `json:"rows"`
	// Note says why there are no rows when there is a change.
	Note     string `json:"note,omitempty"`
	URL      string `json:"url"`
	Undoable bool   `json:"undoable"`
}

// viewRow is one row of the diff: "=" unchanged, "+" added, "-" removed,
// "…" a run of unchanged lines left out (Text says how many).
type viewRow struct {
	Op    string     `json:"op"`
	Text  string     `json:"text"`
	Spans []viewSpan `json:"spans,omitempty"`
}

type viewSpan struct {
	Text    string `json:"text"`
	Changed bool   `json:"changed,omitempty"`
}

// undoTool is the app-only tool the change view's Undo button calls.
const undoTool = "undo_change"

// undoableKinds are the changes the view's undo takes back: one note's
// text. A move or delete touches more than one path and is undone in the
// console, which shows everything it will do first.
var undoableKinds = map[string]bool{"create": true, "edit": true, "append": true, "restore": true}

// withView adds to b, a tool's JSON output, the data of the view its
// result is shown in: a write's change, or the note fetch read. Other
// outputs are returned as they are.
func (s *server) withView(ctx context.Context, c call, out any, b encoded) encoded {
	var v any
	switch o := out.(type) {
	case changed:
		ch, made := o.change()
		if !made {
			return b
		}
		v = s.changeView(ctx, c, ch)
	case fetchOut:
		nv, ok := s.noteView(o)
		if !ok {
			return b
		}
		v = nv
	default:
		return b
	}
	vb, err := json.Marshal(v)
	if err != nil || len(b) < 2 {
		return b
	}
	return encoded(string(b[:len(b)-1]) + `,"view":` + string(vb) + "}")
}

// noteView is what the note view gets: the note rendered as the console
// renders it (render.NoteAt: no tag or attribute but the renderer's own),
// its links to other notes pointing at the console.
type noteView struct {
	HTML string `json:"html"`
}

// noteView renders the one note a fetch read; a fetch of several ids or
// of a file that is not a note has none.
func (s *server) noteView(o fetchOut) (noteView, bool) {
	if o.Notes != nil || o.media != nil || o.ID == "" {
		return noteView{}, false
	}
	// The view shows the title above the note: a first heading that only
	// says it again is left out.
	text := o.Text
	for _, nl := range []string{"\n", "\r\n"} {
		if rest, ok := strings.CutPrefix(text, "# "+o.Title+nl); ok {
			text = rest
			break
		}
	}
	return noteView{HTML: string(render.NoteAt(text, s.baseURL))}, true
}

func (s *server) changeView(ctx context.Context, c call, ch noteChange) changeView {
	v := changeView{Path: ch.path, From: ch.from, Title: path.Base(ch.path), App: c.app, Change: changeKinds[c.tool],
		Before: ch.before, After: ch.after, URL: s.noteURL(ch.path), Rows: []viewRow{}}
	if ch.from != "" {
		v.Note = "Moved from " + ch.from + "."
	}
	before, after, note := s.changeTexts(ctx, ch, &v.Title)
	if note != "" {
		v.Note = note
		return v
	}
	d := diff.Lines(before, after)
	v.Added, v.Removed = diff.Count(d)
	v.Summary = "+" + strconv.Itoa(v.Added) + " \u2212" + strconv.Itoa(v.Removed) + " lines"
	if rows, ok := viewDiff(d); ok {
		v.Rows = rows
	} else {
		v.Note = "This change is too large to show here; the console shows all of it."
	}
	v.Undoable = s.appOnly[undoTool] && s.history != nil && s.journal != nil && ch.from == "" && ch.after != "" && undoableKinds[v.Change]
	return v
}

// changeTexts finds the note's texts before and after the change: the
// write's own when it has them, else the note as it is and its history.
// note says why they cannot be shown; title is set to the note's title
// when the note is still as the change left it.
func (s *server) changeTexts(ctx context.Context, ch noteChange, title *string) (before, after, note string) {
	known := ch.texts != nil && (ch.texts.Before != "" || ch.texts.After != "")
	if known {
		before, after = ch.texts.Before, ch.texts.After
	}
	if ch.after != "" {
		if n, err := s.vault.Read(ctx, ch.path); err == nil && n.Version == ch.after {
			*title = n.Title
			if !known {
				after = n.Content
			}
		} else if text, ok := s.versionText(ctx, ch.path, ch.after); !known && ok {
			after = text
		} else if !known {
			return "", "", "The note changed again since; the console shows its history."
		}
	}
	if ch.before != "" && !known {
		at := ch.path
		if ch.from != "" {
			at = ch.from
		}
		text, ok := s.versionText(ctx, at, ch.before)
		if !ok {
			return "", "", "cortex keeps no earlier version of this note, so the change cannot be shown here."
		}
		before = text
	}
	return before, after, ""
}

// versionText is a stored version's text, if the history has it.
func (s *server) versionText(ctx context.Context, p, version string) (string, bool) {
	if s.history == nil {
		return "", false
	}
	_, b, err := s.history.Version(ctx, p, version)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// viewDiff is d's changed lines with viewContext lines around them, runs
// of unchanged lines between them counted; false when that exceeds the
// view's bounds.
func viewDiff(d []diff.Line) ([]viewRow, bool) {
	keep := make([]bool, len(d))
	for i, l := range d {
		if l.Op != diff.Equal {
			for j := max(0, i-viewContext); j <= min(len(d)-1, i+viewContext); j++ {
				keep[j] = true
			}
		}
	}
	var rows []viewRow
	size, gap := 0, 0
	add := func(r viewRow) {
		rows = append(rows, r)
		size += len(r.Text)
	}
	for i, l := range d {
		if !keep[i] {
			gap++
			continue
		}
		if gap > 0 {
			add(gapRow(gap))
			gap = 0
		}
		r := viewRow{Op: map[diff.Op]string{diff.Equal: "=", diff.Insert: "+", diff.Delete: "-"}[l.Op], Text: l.Text}
		for _, sp := range l.Spans {
			r.Spans = append(r.Spans, viewSpan{Text: sp.Text, Changed: sp.Changed})
		}
		add(r)
		if len(rows) > viewRows || size > viewBytes {
			return nil, false
		}
	}
	if gap > 0 && len(rows) > 0 {
		add(gapRow(gap))
	}
	return rows, len(rows) <= viewRows
}

func gapRow(n int) viewRow {
	if n == 1 {
		return viewRow{Op: "…", Text: "1 unchanged line"}
	}
	return viewRow{Op: "…", Text: strconv.Itoa(n) + " unchanged lines"}
}

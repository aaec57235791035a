package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/store"
)

const (
	// entriesShown is how many journal entries one activity page shows,
	// each with its diff.
	entriesShown = 25
	// entriesScanned bounds the journal read for one page before the
	// filters apply.
	entriesScanned = 5000
)

type activityData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Form             string // the page's form id
	App, Note, Since string // the filters as given
	Apps             []string
	Entries          []entry
	// Older, when set, is the link to the next page of older entries.
	Older string
	// Actions are the owner's latest actions on apps and tokens.
	Actions []store.OwnerAction
}

// actionsShown is how many owner actions the activity page lists.
const actionsShown = 25

type entry struct {
	store.JournalEntry
	OK  bool
	URL string
	// MovedFrom is where a moved note was; Trashed where a deleted note
	// went. Either makes this card the one call's two journal entries.
	MovedFrom, Trashed string
	Diff               diffView
	DiffNote           string // why no diff is shown
}

// sinceFormats are the times the activity filter takes.
// (A browser's datetime-local field sends seconds when they are not 0.)
var sinceFormats = []string{"2006-01-02T15:04", "2006-01-02", "2006-01-02T15:04:05", time.RFC3339}

// activityPage is the journal as a timeline, newest first, filtered by
// app, note and time, each entry with its diff.
func (c *Console) activityPage(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) error {
	ctx := r.Context()
	q := r.URL.Query()
	d := activityData{Nav: "activity", Title: "Activity", CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(),
		App: q.Get("app"), Note: strings.TrimSpace(q.Get("note")), Since: q.Get("since"), Zone: c.zone(ctx)}
	since, err := parseSince(d.Since, d.Zone)
	if err != nil {
		return err
	}
	var before int64 // show only entries older than this id (paging)
	if b := q.Get("before"); b != "" {
		if before, err = strconv.ParseInt(b, 10, 64); err != nil {
			return owner.BadForm(err)
		}
	}
	all, err := c.o.Store.Journal(ctx, since, entriesScanned)
	if err != nil {
		return err
	}
	seen, b := map[string]bool{}, newBudget()
	// taken is the oldest entry on the page: the next page starts below
	// it, so a card's entries (a move's two) are never split over two pages.
	var taken int64
	for _, e := range all {
		if !seen[e.App] {
			seen[e.App] = true
			d.Apps = append(d.Apps, e.App)
		}
		if (d.App != "" && e.App != d.App) || (d.Note != "" && !strings.Contains(e.Path, d.Note)) || (before > 0 && e.ID >= before) {
			continue
		}
		if n := len(d.Entries); n > 0 && sameCall(d.Entries[n-1].JournalEntry, e) {
			d.Entries[n-1] = c.merge(r, d.Entries[n-1], e, b)
			taken = e.ID
			continue
		}
		if len(d.Entries) == entriesShown {
			if d.Older == "" {
				older := url.Values{"app": {d.App}, "note": {d.Note}, "since": {d.Since},
					"before": {strconv.FormatInt(taken, 10)}}
				d.Older = "/console/activity?" + older.Encode()
			}
			continue
		}
		d.Entries = append(d.Entries, c.entry(r, e, b))
		taken = e.ID
	}
	if d.App == "" && d.Note == "" && before == 0 {
		if d.Actions, err = c.o.Store.OwnerActions(ctx, since, actionsShown); err != nil {
			return err
		}
	}
	c.pages.Render(w, http.StatusOK, "activity.html", d)
	return nil
}

// entry adds what the page shows of a journal entry: its diff, from the
// texts the history keeps, as much of it as b leaves room for.
func (c *Console) entry(r *http.Request, e store.JournalEntry, b *budget) entry {
	en := entry{JournalEntry: e, OK: e.Result == store.ResultOK, URL: render.NoteURL(e.Path)}
	if !en.OK {
		en.DiffNote = "Refused (" + e.Result + "); nothing changed."
		return en
	}
	if e.OldVersion == e.NewVersion {
		en.DiffNote = "The text did not change."
		return en
	}
	old, err1 := c.text(r, e.Path, e.OldVersion)
	nw, err2 := c.text(r, e.Path, e.NewVersion)
	if err := errors.Join(err1, err2); err != nil {
		en.DiffNote = "The text of this change is no longer in the history."
		return en
	}
	en.Diff = cardView(diff.Lines(old, nw), 3, changeURL(e.Path, e.OldVersion, e.NewVersion), b)
	return en
}

// sameCall reports whether e, older, was journaled by the same move or
// delete as card (the leaving and the arriving path), as the history
// groups them when it undoes one.
func sameCall(card, e store.JournalEntry) bool {
	return (e.Tool == "move_note" || e.Tool == "delete_note") && card.Tool == e.Tool && card.App == e.App &&
		card.Time.Equal(e.Time) && card.Result == e.Result
}

// merge makes one card of a move's or a delete's two entries: newer is
// the card of the path the note arrived at, e the path it left.
func (c *Console) merge(r *http.Request, newer entry, e store.JournalEntry, b *budget) entry {
	if e.Tool == "delete_note" {
		card := c.entry(r, e, b)
		card.Trashed = newer.Path
		return card
	}
	newer.MovedFrom = e.Path
	if newer.OK && e.OldVersion == newer.NewVersion {
		newer.Diff, newer.DiffNote = diffView{}, "The text did not change."
	}
	return newer
}

// text is the stored text of version of the note at p; "" for none.
func (c *Console) text(r *http.Request, p, version string) (string, error) {
	if version == "" {
		return "", nil
	}
	_, data, err := c.o.History.Version(r.Context(), p, version)
	return string(data), err
}

// undo undoes one journaled change; conflicts (the note changed later)
// are shown and skipped unless the owner chose all.
func (c *Console) undo(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) (*outcome, error) {
	id, err := strconv.ParseInt(r.PostFormValue("entry"), 10, 64)
	if err != nil || id <= 0 {
		return nil, owner.BadForm(err)
	}
	plan, err := c.o.History.Undo(r.Context(), history.UndoRequest{Entry: id, Writer: history.OwnerConsole,
		All: r.PostFormValue("force") == "1"})
	if err != nil {
		return nil, refusal(err)
	}
	out := &outcome{Nav: "activity", Title: "Undone", What: "undo", Plan: plan, Diffs: planViews(plan),
		Link: "/console/activity", LinkText: "Back to the activity"}
	for _, ch := range plan.Changes {
		if ch.Conflict && !ch.Done {
			out.Title = "Partly undone"
			out.Force = url.Values{"entry": {strconv.FormatInt(id, 10)}}
		}
	}
	if out.Later, err = c.laterWriters(r.Context(), plan); err != nil {
		return nil, err
	}
	c.log.Info("owner undid a change from the console", "entry", id)
	return out, nil
}

// restore writes a stored version of a note back as a new version,
// guarded by the version the owner saw.
func (c *Console) restore(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) (*outcome, error) {
	p, ref := r.PostFormValue("path"), strings.TrimSpace(r.PostFormValue("version"))
	if p == "" || ref == "" {
		return nil, owner.BadForm(nil)
	}
	nv, _, err := c.version(r, p, ref)
	if err != nil {
		return nil, err
	}
	_, err = c.o.History.Restore(r.Context(), history.RestoreRequest{Path: p, Version: ref,
		Writer: history.OwnerConsole, Expect: r.PostFormValue("expect"), Force: r.PostFormValue("force") == "1"})
	var he *history.Error
	if errors.As(err, &he) && he.Code == history.CodeConflict && he.Plan != nil {
		later, err := c.laterWriters(r.Context(), he.Plan)
		if err != nil {
			return nil, err
		}
		return &outcome{Nav: "notes", Title: "The note changed", What: "restore", Failed: true, Later: later,
			Plan: he.Plan, Diffs: planViews(he.Plan), Message: he.Message, Force: url.Values{"path": {p}, "version": {ref}},
			Link: render.NoteURL(p), LinkText: "Back to " + p}, nil
	}
	if err != nil {
		return nil, refusal(err)
	}
	c.log.Info("owner restored a note version from the console", "version", ref)
	return &outcome{Nav: "notes", Title: "Restored",
		Message: "Restored version #" + strconv.FormatInt(nv.ID, 10) + " of " + p + " as its newest version; the version it replaced stays in the history.",
		Link:    render.NoteURL(p), LinkText: "Open " + p}, nil
}

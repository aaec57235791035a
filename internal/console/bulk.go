package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
)

type bulkData struct {
	Nav, Title, CSRF string
	Form             string // the page's form id
	Zone             *time.Location
	App, Since       string
	SinceTime        time.Time // Since, read in Zone
	Plan             *history.Plan
	Diffs            []diffView             // what each change of Plan does
	Later            map[string]*laterWrite // who changed each conflict later, and when
	Nothing          string                 // why there is nothing to undo
	Recent           bool
}

// laterWrite is who made a conflicting note what it is now, and when; an
// empty App is a change outside cortex.
type laterWrite struct {
	App  string
	Time time.Time
}

// parseSince reads the activity filter's time in the console's zone loc
// (a time with its own offset, as the forms' hidden ones are, is read
// as it says); "" is the start of the journal.
func parseSince(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, f := range sinceFormats {
		if t, err := time.ParseInLocation(f, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, &httpx.Error{Status: http.StatusBadRequest, Code: "bad_time",
		Message: "Give the time as 2026-01-31 or 2026-01-31T14:30, in " + loc.String() + " (the console's time zone, set on Status)."}
}

// bulkPage previews undoing everything one app did since a time: each
// note, what would happen to it, and the notes changed later by someone
// else (conflicts), which are skipped unless ticked.
func (c *Console) bulkPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	q := r.URL.Query()
	d := bulkData{Nav: "activity", Title: "Undo an app", CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(),
		App: q.Get("app"), Since: q.Get("since"), Recent: c.recent(s), Zone: c.zone(r.Context())}
	if d.App == "" {
		return &httpx.Error{Status: http.StatusBadRequest, Code: history.CodeInvalid,
			Message: "Pick an app in the activity filter first."}
	}
	since, err := parseSince(d.Since, d.Zone)
	if err != nil {
		return err
	}
	d.SinceTime = since
	d.Plan, err = c.o.History.Undo(r.Context(), history.UndoRequest{App: d.App, Since: since, DryRun: true})
	var he *history.Error
	if errors.As(err, &he) && he.Code == history.CodeNothingToUndo {
		d.Nothing, err = he.Message, nil
	}
	if err != nil {
		return refusal(err)
	}
	d.Diffs = planViews(d.Plan)
	if d.Later, err = c.laterWriters(r.Context(), d.Plan); err != nil {
		return err
	}
	c.pages.Render(w, http.StatusOK, "bulk.html", d)
	return nil
}

// bulkUndo undoes everything one app did since a time, with the
// conflicts the owner ticked. It needs a recent sign-in.
func (c *Console) bulkUndo(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	app := r.PostFormValue("app")
	if app == "" {
		return nil, owner.BadForm(nil)
	}
	since, err := parseSince(r.PostFormValue("since"), c.zone(r.Context()))
	if err != nil {
		return nil, err
	}
	plan, err := c.o.History.Undo(r.Context(), history.UndoRequest{App: app, Since: since,
		Writer: history.OwnerConsole, Include: r.PostForm["include"]})
	if err != nil {
		return nil, refusal(err)
	}
	c.log.Info("owner undid an app's changes from the console", "app", app, "since", since, "notes", len(plan.Changes))
	out := &outcome{Nav: "activity", Title: "Undone", What: "undo", Plan: plan, Diffs: planViews(plan),
		Message: "Undid what " + app + " did.", Link: "/console/activity?app=" + url.QueryEscape(app), LinkText: "Back to the activity"}
	for _, ch := range plan.Changes {
		if !ch.Done && ch.Action != history.ActionNone {
			out.Title = "Partly undone"
		}
	}
	if out.Later, err = c.laterWriters(r.Context(), plan); err != nil {
		return nil, err
	}
	return out, nil
}

// laterWriters names, for each conflict of plan, who made the note what
// it is now and when: the journal's last write of the note, when that
// write made its current version. A note changed outside cortex has no
// such entry and is named so.
func (c *Console) laterWriters(ctx context.Context, plan *history.Plan) (map[string]*laterWrite, error) {
	if plan == nil || plan.Conflicts() == 0 {
		return nil, nil
	}
	var paths []string
	for _, ch := range plan.Changes {
		if ch.Conflict {
			paths = append(paths, nowAt(ch))
		}
	}
	last, err := c.o.Store.LastWrites(ctx, paths)
	if err != nil {
		return nil, err
	}
	out := map[string]*laterWrite{}
	for _, ch := range plan.Changes {
		if !ch.Conflict {
			continue
		}
		out[ch.Path] = &laterWrite{}
		if e, ok := last[nowAt(ch)]; ok && e.NewVersion == ch.Current {
			out[ch.Path] = &laterWrite{App: e.App, Time: e.Time}
		}
	}
	return out, nil
}

// nowAt is where the note of ch is now.
func nowAt(ch history.Change) string {
	if ch.From != "" {
		return ch.From
	}
	return ch.Path
}

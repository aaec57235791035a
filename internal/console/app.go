package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// The page of one app or bearer token (issue 19): its scope, which the
// owner changes there, its last use, the notes it read and changed, and
// the ways to take back what it did: the bulk undo (bulk.go) since a time
// or one of its changes, and forgetting what it wrote to the history.

const (
	// rowsShown bounds the notes read and the notes changed one page
	// lists; the rest are counted.
	rowsShown = 200
	// latestShown is how many of its latest changes the page offers to
	// undo from.
	latestShown = 25
)

// who is the app or token a page is about.
type who struct {
	Token      bool   // a bearer token, not an OAuth app
	ID         string // the client id, or the token's name
	Name       string // what the owner calls it
	App        string // what the journal and the record of reads call it
	Kind       string
	Created    time.Time
	LastUsed   time.Time
	LastAddr   string
	LiveGrants int
	// Scopes describe its live grants' scopes (an app), or its own.
	Scopes []string
	// stored is the scope the form starts from: the token's, or the
	// app's when all its live grants share one.
	stored scope.Scope
}

// CanScope reports whether it has a scope to change: a token, or an app
// with a live grant.
func (w who) CanScope() bool { return w.Token || w.LiveGrants > 0 }

// Query is the page's query string.
func (w who) Query() string {
	if w.Token {
		return url.Values{"token": {w.ID}}.Encode()
	}
	return url.Values{"id": {w.ID}}.Encode()
}

// errUnknownApp answers a page or form about an app or token that is not
// (or no longer) there.
var errUnknownApp = &httpx.Error{Status: http.StatusNotFound, Code: "unknown_app",
	Message: "There is no such app or live token any more; the Apps page lists those that are left."}

// lookup finds the app (id) or token (token) a page or form names.
func (c *Console) lookup(ctx context.Context, v url.Values) (who, error) {
	id, tok := v.Get("id"), v.Get("token")
	switch {
	case id != "" && tok == "":
		clients, err := c.o.Store.ListOAuthClients(ctx)
		if err != nil {
			return who{}, err
		}
		for _, cl := range clients {
			if cl.ID != id {
				continue
			}
			w := who{ID: cl.ID, Name: cl.Name, App: oauth.AppName(cl.Name, cl.ID), Kind: cl.Kind, Created: cl.Created,
				LastUsed: cl.LastUsed, LastAddr: cl.LastAddr, LiveGrants: cl.LiveGrants}
			if w.Name == "" {
				w.Name = cl.ID
			}
			for _, v := range cl.VaultScopes {
				w.Scopes = append(w.Scopes, scope.DescribeStored(v))
			}
			if len(cl.VaultScopes) == 1 {
				w.stored, _ = scope.Decode(cl.VaultScopes[0])
			}
			return w, nil
		}
	case tok != "" && id == "":
		t, err := c.o.Store.LiveToken(ctx, tok)
		if errors.Is(err, store.ErrTokenNotFound) {
			break
		}
		if err != nil {
			return who{}, err
		}
		w := who{Token: true, ID: t.Name, Name: t.Name, App: t.Name, Kind: "bearer token", Created: t.Created,
			LastUsed: t.LastUsed, LastAddr: t.LastAddr, Scopes: []string{scope.DescribeStored(t.VaultScope)}}
		w.stored, _ = scope.Decode(t.VaultScope)
		return w, nil
	default:
		return who{}, owner.BadForm(errors.New("name one app (id) or one token (token)"))
	}
	return who{}, errUnknownApp
}

// scopeForm is the scope form as the owner filled it in.
type scopeForm struct {
	Read, Write string
	Private     bool
	Error       string
	Code        string // the error's stable code
}

type appData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Form             string // the page's form id
	Who              who
	Scope            scopeForm
	Reads            []noteRow
	MoreReads        int
	Writes           []noteRow
	MoreWrites       int
	Latest           []entry
	Recent           bool
}

// noteRow is one note of the notes an app read or changed.
type noteRow struct {
	Path, URL   string
	Count       int64
	First, Last time.Time
	Tools       string
}

// appPage shows one app or token.
func (c *Console) appPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	q := r.URL.Query()
	wh, err := c.lookup(r.Context(), q)
	if err != nil {
		return err
	}
	f := scopeForm{Read: wh.stored.Read.String(), Write: wh.stored.Write.String(), Private: wh.stored.Private}
	d, err := c.appData(w, r, s, wh, f)
	if err != nil {
		return err
	}
	c.pages.Render(w, http.StatusOK, "app.html", d)
	return nil
}

func (c *Console) appData(w http.ResponseWriter, r *http.Request, s owner.SessionInfo, wh who, f scopeForm) (appData, error) {
	ctx := r.Context()
	d := appData{Nav: "apps", Title: wh.Name, CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(), Who: wh, Scope: f,
		Recent: c.recent(s), Zone: c.zone(ctx)}
	reads, err := c.o.Store.ReadsByApp(ctx, wh.App, time.Time{})
	if err != nil {
		return d, err
	}
	d.MoreReads = max(0, len(reads)-rowsShown)
	for _, n := range reads[:min(len(reads), rowsShown)] {
		d.Reads = append(d.Reads, noteRow{Path: n.Path, URL: render.NoteURL(n.Path), Count: n.Count, Last: n.Last, Tools: strings.Join(n.Tools, ", ")})
	}
	writes, err := c.o.Store.WritesByApp(ctx, wh.App, time.Time{})
	if err != nil {
		return d, err
	}
	d.MoreWrites = max(0, len(writes)-rowsShown)
	for _, n := range writes[:min(len(writes), rowsShown)] {
		d.Writes = append(d.Writes, noteRow{Path: n.Path, URL: render.NoteURL(n.Path), Count: n.Count, First: n.First, Last: n.Last})
	}
	latest, err := c.o.Store.LatestOfApp(ctx, wh.App, latestShown)
	if err != nil {
		return d, err
	}
	for _, e := range latest {
		d.Latest = append(d.Latest, entry{JournalEntry: e, OK: true, URL: render.NoteURL(e.Path)})
	}
	return d, nil
}

// setScope changes the scope of a token or of every live grant of an
// app, as `cortex admin clients scope` does; the server reads it on the
// app's next request. Patterns it cannot read are refused on the page,
// with what the owner typed kept.
func (c *Console) setScope(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	ctx := r.Context()
	wh, err := c.lookup(ctx, r.PostForm)
	if err != nil {
		return nil, err
	}
	f := scopeForm{Read: strings.TrimSpace(r.PostFormValue("read")), Write: strings.TrimSpace(r.PostFormValue("write")),
		Private: r.PostFormValue("private") == "1"}
	sc, problem := parseScope(f)
	f.Code = "bad_pattern"
	if problem != "" {
		f.Error = problem
		d, err := c.appData(w, r, s, wh, f)
		if err != nil {
			return nil, err
		}
		c.pages.Render(w, http.StatusBadRequest, "app.html", d)
		return nil, nil
	}
	action := "changed the scope of app"
	if wh.Token {
		action = "changed the scope of token"
		err = c.o.Store.SetTokenScope(ctx, wh.ID, sc.Encode())
	} else {
		var n int
		n, err = c.o.Store.SetClientScope(ctx, wh.ID, sc.Encode())
		if err == nil && n == 0 {
			return nil, &httpx.Error{Status: http.StatusConflict, Code: "no_live_grant",
				Message: "This app holds no live grant, so it has no scope to change; you choose one when you approve it again."}
		}
	}
	if errors.Is(err, store.ErrTokenNotFound) || errors.Is(err, store.ErrClientNotFound) {
		return nil, errUnknownApp.With(err)
	}
	if err != nil {
		return nil, err
	}
	c.log.Info("owner changed a scope from the console", "app", wh.ID, "token", wh.Token, "writer", "owner (console)")
	c.recordAction(r, action, wh.ID)
	return &outcome{Nav: "apps", Title: "Scope changed", Message: "Changed what " + wh.Name + " may see; it applies from its next request.",
		Link: "/console/app?" + wh.Query(), LinkText: "Back to " + wh.Name}, nil
}

// parseScope reads the form's patterns; problem, when not "", is the
// sentence the owner sees instead.
func parseScope(f scopeForm) (sc scope.Scope, problem string) {
	for _, v := range []string{f.Read, f.Write} {
		if !utf8.ValidString(v) {
			return sc, "Give the patterns as text (UTF-8)."
		}
	}
	read, err := scope.ParseRules(f.Read)
	if err != nil {
		return sc, "Read patterns: " + err.Error() + ". " + patternHint
	}
	write, err := scope.ParseRules(f.Write)
	if err != nil {
		return sc, "Write patterns: " + err.Error() + ". " + patternHint
	}
	return scope.Scope{Read: read, Write: write, Private: f.Private}, ""
}

const patternHint = "Separate patterns with commas, relative to the vault, as in Work/**, Journal/2026-*.md; Work/ is the folder and everything below it, and a leading ! leaves a path out."

// purgeApp forgets what an app wrote to the history since a time (all of
// it when no time is given). The notes stay. It needs "purge" typed to
// confirm and a recent sign-in: versions forgotten cannot come back.
func (c *Console) purgeApp(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	if strings.TrimSpace(r.PostFormValue("confirm")) != "purge" {
		return nil, &httpx.Error{Status: http.StatusBadRequest, Code: "not_confirmed",
			Message: "Type purge into the box to confirm that these versions should be forgotten."}
	}
	ctx := r.Context()
	wh, err := c.lookup(ctx, r.PostForm)
	if err != nil {
		return nil, err
	}
	since, err := parseSince(r.PostFormValue("since"), c.zone(ctx))
	if err != nil {
		return nil, err
	}
	n, err := c.o.History.PurgeApp(ctx, wh.App, since)
	if err != nil {
		return nil, refusal(err)
	}
	c.log.Info("owner purged an app's history from the console", "app", wh.ID, "since", since, "versions", n, "writer", "owner (console)")
	c.recordAction(r, "forgot the history written by", wh.App)
	return &outcome{Nav: "apps", Title: "History forgotten",
		Message: "Forgot " + strconv.FormatInt(n, 10) + " stored versions " + wh.Name + " wrote; the notes themselves are unchanged.",
		Link:    "/console/app?" + wh.Query(), LinkText: "Back to " + wh.Name}, nil
}

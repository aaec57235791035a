package console

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

//go:embed assets
var assets embed.FS

// RecentSignIn is how recent the owner's sign-in must be for the console's
// destructive actions.
const RecentSignIn = 5 * time.Minute

// Options are the console's parts; all but Logger, Now and Version are
// required.
type Options struct {
	Owner   *owner.Owner
	Vault   *vault.Vault
	History *history.Service
	Store   *store.Store
	// HistoryDB, when set, gives the status page the history's size;
	// MinFree is the disk floor it shows.
	HistoryDB *store.HistoryDB
	MinFree   uint64
	// PublicURL is this server's address, for the connect instructions.
	PublicURL config.PublicURL
	Logger    *slog.Logger
	Now       func() time.Time
	Version   string
}

// Console serves the owner's pages. It is safe for concurrent use.
type Console struct {
	o       Options
	log     *slog.Logger
	now     func() time.Time
	pages   *httpx.Pages
	static  fs.FS
	problem httpx.Renderer
	// plainProblem is the problem page without the console's frame.
	plainProblem httpx.Renderer
	guard        *httpx.FormGuard
	out          *outcomes
	// actions are the state-changing forms by path, for doing one kept
	// while the owner signed in again.
	actions map[string]action
}

// New builds the console.
func New(o Options) (*Console, error) {
	if o.Owner == nil || o.Vault == nil || o.History == nil || o.Store == nil {
		return nil, errors.New("console: Owner, Vault, History and Store are required")
	}
	c := &Console{o: o, log: o.Logger, now: o.Now, actions: map[string]action{}}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	var err error
	if c.out, err = newOutcomes(); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	if c.guard, err = httpx.NewFormGuard("", errCrossOrigin); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	if c.pages, err = httpx.NewPagesWith(assets, timeFuncs, "assets/*.html"); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	if c.static, err = fs.Sub(assets, "assets"); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	c.plainProblem = c.pages.ProblemPage(describeProblem)
	c.problem = c.problemPage
	return c, nil
}

// Handlers are the console's pages and forms; internal/web routes them
// (the patterns are noted here).
type Handlers struct {
	Note     http.Handler // GET /notes/{path...} (a folder when it ends in "/")
	Search   http.Handler // GET /console/search
	Asset    http.Handler // GET /console/assets/{name}
	Home     http.Handler // GET /console
	Activity http.Handler // GET /console/activity
	Undo     http.Handler // POST /console/undo
	Restore  http.Handler // POST /console/restore
	Purge    http.Handler // POST /console/purge
	BulkPage http.Handler // GET /console/undo-app
	BulkUndo http.Handler // POST /console/undo-app

	Apps         http.Handler // GET /console/apps
	App          http.Handler // GET /console/app (?id=CLIENT or ?token=NAME)
	AppScope     http.Handler // POST /console/app/scope
	AppPurge     http.Handler // POST /console/app/purge
	RevokeApp    http.Handler // POST /console/apps/revoke
	CreateToken  http.Handler // POST /console/tokens
	RevokeToken  http.Handler // POST /console/tokens/revoke
	Trash        http.Handler // GET /console/trash
	RestoreTrash http.Handler // POST /console/trash/restore
	DeleteTrash  http.Handler // POST /console/trash/delete
	Status       http.Handler // GET /console/status
	TimeZone     http.Handler // POST /console/time-zone
	Result       http.Handler // GET /console/result/{id}
	Pending      http.Handler // GET /console/pending/{id}
	DoPending    http.Handler // POST /console/pending/{id}
}

// Handlers returns the console's handlers.
func (c *Console) Handlers() Handlers {
	return Handlers{
		Note:     c.page(c.notes),
		Search:   c.page(c.searchPage),
		Asset:    httpx.Assets(c.static, assetTypes, httpx.PagePolicy{}),
		Home:     c.page(c.home),
		Activity: c.page(c.activityPage),
		Undo:     c.act("/console/undo", action{do: c.undo, what: "Undo a change"}),
		Restore:  c.act("/console/restore", action{do: c.restore, what: "Restore a version of a note"}),
		Purge:    c.act("/console/purge", action{do: c.purge, fresh: true, what: "Forget every stored version of a note"}),
		BulkPage: c.page(c.bulkPage),
		BulkUndo: c.act("/console/undo-app", action{do: c.bulkUndo, fresh: true, what: "Undo everything an app did"}),

		Apps:         c.page(c.appsPage),
		App:          c.page(c.appPage),
		AppScope:     c.act("/console/app/scope", action{do: c.setScope, fresh: true, what: "Change what an app may see"}),
		AppPurge:     c.act("/console/app/purge", action{do: c.purgeApp, fresh: true, what: "Forget what an app wrote to the history"}),
		RevokeApp:    c.act("/console/apps/revoke", action{do: c.revokeApp, what: "Revoke an app"}),
		CreateToken:  c.act("/console/tokens", action{do: c.createToken, fresh: true, what: "Create a bearer token"}),
		RevokeToken:  c.act("/console/tokens/revoke", action{do: c.revokeToken, what: "Revoke a bearer token"}),
		Trash:        c.page(c.trashPage),
		RestoreTrash: c.act("/console/trash/restore", action{do: c.restoreTrash, what: "Restore a note from the trash"}),
		DeleteTrash:  c.act("/console/trash/delete", action{do: c.deleteForGood, fresh: true, what: "Delete a note for good"}),
		Status:       c.page(c.statusPage),
		TimeZone:     c.act("/console/time-zone", action{do: c.setTimeZone, what: "Set the console's time zone"}),
		Result:       c.page(c.resultPage),
		Pending:      c.page(c.pendingPage),
		DoPending:    c.post(c.doPending),
	}
}

// page guards a page: the owner must be signed in; a signed-out visitor
// is sent to sign in and comes back here afterwards.
func (c *Console) page(h func(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error) http.Handler {
	return httpx.Handle(c.problem, func(w http.ResponseWriter, r *http.Request) error {
		httpx.PageHeaders(w, httpx.PagePolicy{})
		s, ok := c.o.Owner.RequireOwner(w, r)
		if !ok {
			return nil
		}
		return h(w, r, s)
	})
}

// post guards a form with the form guard (POST only, same origin, a
// bounded body), then the owner signed in and the page's CSRF token, in
// that order: a signed-out owner is told to sign in, not that the page
// expired.
func (c *Console) post(h func(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error) http.Handler {
	return httpx.Handle(c.problem, func(w http.ResponseWriter, r *http.Request) error {
		httpx.PageHeaders(w, httpx.PagePolicy{})
		var s owner.SessionInfo
		signedIn := func(r *http.Request) (err error) {
			s, err = c.o.Owner.SignedInForm(r)
			return err
		}
		return c.guard.Guard(signedIn, func(w http.ResponseWriter, r *http.Request) error {
			return h(w, r, s)
		})(w, r)
	})
}

// mcpURL is where assistants reach cortex's MCP endpoint.
func (c *Console) mcpURL() string { return c.o.PublicURL.JoinPath("/mcp") }

// recent reports whether the owner signed in within RecentSignIn.
func (c *Console) recent(s owner.SessionInfo) bool {
	return c.now().Sub(s.Created) < RecentSignIn
}

func (c *Console) home(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) error {
	http.Redirect(w, r, "/console/activity", http.StatusSeeOther)
	return nil
}

// assetTypes are the console's style sheet; templates are not served.
var assetTypes = map[string]string{".css": "text/css; charset=utf-8"}

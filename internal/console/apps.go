package console

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
)

type appsData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Form             string // the page's form id
	Apps             []appRow
	Tokens           []store.Token
	Recent           bool // token creation needs no sign-in first
	// Connect is the address to add cortex at in claude.ai and ChatGPT.
	Connect Connect
}

type appRow struct {
	store.OAuthClientInfo
	Grants []store.OAuthGrantInfo
}

// appsPage lists the OAuth apps with their live grants, and the bearer
// tokens; each can be revoked.
func (c *Console) appsPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	d, err := c.apps(w, r, s)
	if err != nil {
		return err
	}
	c.pages.Render(w, http.StatusOK, "apps.html", d)
	return nil
}

func (c *Console) apps(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (appsData, error) {
	ctx := r.Context()
	d := appsData{Nav: "apps", Title: "Apps and tokens", CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(), Recent: c.recent(s), Zone: c.zone(ctx)}
	clients, err := c.o.Store.ListOAuthClients(ctx)
	if err != nil {
		return d, err
	}
	grants, err := c.o.Store.LiveOAuthGrants(ctx)
	if err != nil {
		return d, err
	}
	for _, cl := range clients {
		row := appRow{OAuthClientInfo: cl}
		for _, g := range grants {
			if g.ClientID == cl.ID {
				row.Grants = append(row.Grants, g)
			}
		}
		d.Apps = append(d.Apps, row)
	}
	d.Connect = connectFor(c.mcpURL(), "")
	if d.Tokens, err = c.o.Store.ListTokens(ctx); err != nil {
		return d, err
	}
	return d, nil
}

// revokeApp removes an OAuth app with every grant and token it holds;
// its next request is refused.
func (c *Console) revokeApp(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) (*outcome, error) {
	id := r.PostFormValue("app")
	err := c.o.Store.DeleteOAuthClient(r.Context(), id)
	if errors.Is(err, store.ErrClientNotFound) {
		return nil, &httpx.Error{Status: http.StatusNotFound, Code: "unknown_app", Err: err,
			Message: "There is no such app any more; reload the page to see the apps that are left."}
	}
	if err != nil {
		return nil, err
	}
	c.log.Info("owner revoked an app from the console", "client", id, "writer", "owner (console)")
	c.recordAction(r, "revoked app", id)
	return &outcome{Nav: "apps", Title: "App revoked", Message: "Revoked the app " + id + ": its grants and tokens are gone and its next request is refused.",
		Link: "/console/apps", LinkText: "Back to the apps"}, nil
}

// revokeToken revokes a bearer token; its next request is refused.
func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) (*outcome, error) {
	name := r.PostFormValue("token")
	err := c.o.Store.RevokeToken(r.Context(), name)
	if errors.Is(err, store.ErrTokenNotFound) || errors.Is(err, store.ErrInvalidTokenName) {
		return nil, &httpx.Error{Status: http.StatusNotFound, Code: "unknown_token", Err: err,
			Message: "There is no live token with this name; reload the page to see the tokens that are left."}
	}
	if err != nil {
		return nil, err
	}
	c.log.Info("owner revoked a token from the console", "token", name, "writer", "owner (console)")
	c.recordAction(r, "revoked token", name)
	return &outcome{Nav: "apps", Title: "Token revoked", Message: "Revoked the token " + name + ": its next request is refused.",
		Link: "/console/apps", LinkText: "Back to the apps"}, nil
}

// createToken makes a bearer token and shows its secret once. It needs a
// sign-in within RecentSignIn: a token is a lasting key to the notes.
func (c *Console) createToken(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	secret, tok, err := c.o.Store.CreateToken(r.Context(), name)
	switch {
	case errors.Is(err, store.ErrInvalidTokenName):
		return nil, &httpx.Error{Status: http.StatusBadRequest, Code: "invalid_token_name", Err: err,
			Message: "Name the token with 1 to 64 letters, digits, '.', '_' or '-'."}
	case errors.Is(err, store.ErrTokenExists):
		return nil, &httpx.Error{Status: http.StatusConflict, Code: "token_exists", Err: err,
			Message: "A live token already has this name; pick another or revoke that one first."}
	case err != nil:
		return nil, err
	}
	c.log.Info("owner created a token from the console", "token", tok.Name, "writer", "owner (console)")
	c.recordAction(r, "created token", tok.Name)
	return &outcome{Nav: "apps", Title: "Token created", TokenName: tok.Name, secret: secret,
		Link: "/console/apps", LinkText: "Back to the apps"}, nil
}

// recordAction keeps an owner action on an app or token for the Activity
// page. The action itself is done: a failure here is logged, not shown.
func (c *Console) recordAction(r *http.Request, action, target string) {
	if err := c.o.Store.RecordOwnerAction(r.Context(), store.OwnerAction{Action: action, Target: target, Writer: history.OwnerConsole}); err != nil {
		c.log.Warn("record owner action", "action", action, "err", err)
	}
}

package oauth

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

var errNoRequest = &httpx.Error{Status: http.StatusBadRequest, Code: "unknown_request",
	Message: "This request expired, was already answered, or was started in another browser. Start connecting the app again from the app."}

type consentData struct {
	CSRF         string
	Request      string
	ClientName   string
	ClientID     string
	Kind         string
	RedirectHost string
	RedirectURI  string
	Scopes       []scopeLine
	Loopback     bool
	Choice       scopeChoice
}

type scopeLine struct{ Name, Text string }

var scopeText = map[string]string{
	ScopeRead:  "read your notes, search them and follow their links",
	ScopeWrite: "create, change, move and delete notes (deleted notes go to the trash; old versions are kept)",
}

var kindText = map[string]string{
	store.ClientDCR:   "It registered itself with cortex a moment ago.",
	store.ClientAdmin: "You added it on the server with cortex admin clients add.",
	store.ClientCIMD:  "It is identified by a document published at its client ID.",
}

// consentPage is GET /authorize/consent: after sign-in, the owner sees
// which app asks, where the answer goes and what it may do.
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request) error {
	id := r.URL.Query().Get("request")
	if !wellFormed(id, "") {
		return errNoRequest
	}
	if _, ok := s.own.RequireOwner(w, r); !ok {
		return nil
	}
	ctx := r.Context()
	p, err := s.st.OAuthPendingRequest(ctx, hashSecret("request", id), browserHash(r))
	if errors.Is(err, store.ErrPendingNotFound) {
		return errNoRequest
	}
	if err != nil {
		return err
	}
	c, err := s.client(ctx, p.ClientID, httpx.SourceKey(r))
	if err != nil {
		return badAuthorize("unknown_client", "This app's description could not be loaded. Try again in a minute.", err)
	}
	d := consentData{
		CSRF:         s.own.CSRFToken(w, r),
		Request:      id,
		ClientName:   c.Name,
		ClientID:     c.ID,
		Kind:         kindText[c.Kind],
		RedirectHost: redirectHost(p.RedirectURI),
		RedirectURI:  p.RedirectURI,
	}
	for _, sc := range strings.Fields(p.Scope) {
		d.Scopes = append(d.Scopes, scopeLine{Name: sc, Text: scopeText[sc]})
	}
	if u, err := url.Parse(p.RedirectURI); err == nil && isLoopback(u) {
		d.Loopback = true
	}
	d.Choice.CanWrite = slices.Contains(strings.Fields(p.Scope), ScopeWrite)
	d.Choice.Folders, d.Choice.FoldersMissing = s.topFolders(ctx)
	httpx.PageHeaders(w, httpx.PagePolicy{FormAction: formActionSource(p.RedirectURI)})
	s.pages.Render(w, http.StatusOK, "consent.html", d)
	return nil
}

// consentDecision is POST /authorize/consent: the signed-in owner's answer,
// from the browser that started the request (the form guard has checked
// the page's CSRF token). Approval makes a code valid CodeTTL; either way
// the request is consumed.
func (s *Server) consentDecision(w http.ResponseWriter, r *http.Request) error {
	if _, ok := s.own.RequireOwner(w, r); !ok {
		return nil
	}
	id := r.PostFormValue("request")
	bind := browserHash(r)
	if !wellFormed(id, "") || bind == "" {
		return errNoRequest
	}
	ctx := r.Context()
	idHash := hashSecret("request", id)
	var p store.OAuthPending
	var code string
	var err error
	switch r.PostFormValue("decision") {
	case "deny":
		p, err = s.st.TakeOAuthPending(ctx, idHash, bind)
	case "approve":
		if p, err = s.st.OAuthPendingRequest(ctx, idHash, bind); err != nil {
			break
		}
		var c store.OAuthClient
		if c, err = s.client(ctx, p.ClientID, httpx.SourceKey(r)); err != nil {
			return badAuthorize("unknown_client", "This app's description could not be loaded. Try again in a minute.", err)
		}
		if c.Kind == store.ClientCIMD {
			// The first approval stores the document, so the client keeps
			// working from it should its host be down later.
			if err = s.st.PutCIMDClient(ctx, c); err != nil {
				return err
			}
			s.cimd.Remove(c.ID)
		}
		// A choice that cannot be granted leaves the request waiting: the
		// owner goes back and chooses again.
		granted, vs, cerr := chooseScope(r.PostForm, p.Scope)
		if cerr != nil {
			return cerr
		}
		code = newSecret(codePrefix)
		p, err = s.st.ApproveOAuthPending(ctx, idHash, bind, store.OAuthApproval{CodeHash: hashSecret("code", code),
			Scope: granted, VaultScope: vs.Encode(), TTL: s.lim.CodeTTL})
		if err == nil {
			p.Scope = granted
			s.log.Info("oauth request approved", "client", p.ClientID, "scope", granted, "whole_vault", vs.Whole(), "private", vs.Private)
		}
	default:
		return badAuthorize("invalid_request", "Choose Allow or Deny.", nil)
	}
	if errors.Is(err, store.ErrPendingNotFound) {
		return errNoRequest
	}
	if err != nil {
		return err
	}
	params := url.Values{"state": {p.State}, "iss": {s.issuer}}
	if code == "" {
		params.Set("error", "access_denied")
		params.Set("error_description", "the owner denied the request")
		s.log.Info("oauth request denied", "client", p.ClientID)
	} else {
		params.Set("code", code)
	}
	http.Redirect(w, r, withParams(p.RedirectURI, params), http.StatusSeeOther)
	return nil
}

package web

import (
	"io"
	"net/http"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// routes is the whole URL space of cortex, in one place: each route with
// the kind that guards it and answers its refusals (see kind).
func (s *Server) routes() http.Handler {
	rpc := s.kind(httpx.JSONRPC, sameOrigin) // MCP clients: JSON-RPC errors
	api := s.kind(httpx.JSON, sameOrigin)    // small JSON answers and the owner's page scripts
	page := s.kind(s.problem, sameOrigin)    // pages a person sees
	// forms a person's browser posts: guarded as pages here, and inside by
	// their package's httpx.FormGuard (POST only, same origin, a 64 KiB
	// body, the page's CSRF token), which answers in that package's words
	form := page
	open := s.kind(httpx.OAuthJSON, anyOrigin)

	mux := http.NewServeMux()
	mcp := rpc(httpx.Handle(httpx.JSONRPC, s.serveMCP))
	// GET and DELETE are authenticated like POST, then refused: without
	// sessions there is no stream to GET and nothing to DELETE.
	mux.Handle("POST /mcp", mcp)
	mux.Handle("GET /mcp", mcp)
	mux.Handle("DELETE /mcp", mcp)
	mux.Handle("/mcp", rpc(methodNotAllowed(httpx.JSONRPC, "POST")))
	mux.Handle("/mcp/", rpc(httpx.Handle(httpx.JSONRPC, notFound)))
	mux.Handle("GET /healthz", api(httpx.Handle(httpx.JSON, s.healthz)))
	mux.Handle("/healthz", api(methodNotAllowed(httpx.JSON, "GET, HEAD")))
	mux.Handle("GET /favicon.ico", page(favicon("image/x-icon", faviconICO)))
	mux.Handle("GET /favicon.svg", page(favicon("image/svg+xml", faviconSVG)))

	if o := s.opts.Owner; o != nil {
		h := o.Handlers()
		mux.Handle("GET /login", page(h.LoginPage))
		mux.Handle("GET /login/assets/{name}", page(h.Asset))
		mux.Handle("POST /login/totp", form(h.LoginTOTP))
		mux.Handle("POST /login/recovery", form(h.LoginRecovery))
		mux.Handle("POST /login/passkey/begin", api(h.PasskeyLoginBegin))
		mux.Handle("POST /login/passkey/finish", api(h.PasskeyLoginFinish))
		mux.Handle("POST /logout", form(h.Logout))
		mux.Handle("GET /enrol", page(h.EnrolPage))
		mux.Handle("POST /enrol/passkey/begin", api(h.EnrolBegin))
		mux.Handle("POST /enrol/passkey/finish", api(h.EnrolFinish))
	}

	if c := s.opts.Console; c != nil {
		h := c.Handlers()
		mux.Handle("GET /notes/{path...}", page(h.Note))
		mux.Handle("GET /console", page(h.Home))
		mux.Handle("GET /console/assets/{name}", page(h.Asset))
		mux.Handle("GET /console/activity", page(h.Activity))
		mux.Handle("GET /console/search", page(h.Search))
		mux.Handle("POST /console/undo", form(h.Undo))
		mux.Handle("POST /console/restore", form(h.Restore))
		mux.Handle("POST /console/purge", form(h.Purge))
		mux.Handle("GET /console/undo-app", page(h.BulkPage))
		mux.Handle("POST /console/undo-app", form(h.BulkUndo))
		mux.Handle("GET /console/apps", page(h.Apps))
		mux.Handle("GET /console/app", page(h.App))
		mux.Handle("POST /console/app/scope", form(h.AppScope))
		mux.Handle("POST /console/app/purge", form(h.AppPurge))
		mux.Handle("POST /console/apps/revoke", form(h.RevokeApp))
		mux.Handle("POST /console/tokens", form(h.CreateToken))
		mux.Handle("POST /console/tokens/revoke", form(h.RevokeToken))
		mux.Handle("GET /console/trash", page(h.Trash))
		mux.Handle("POST /console/trash/restore", form(h.RestoreTrash))
		mux.Handle("POST /console/trash/delete", form(h.DeleteTrash))
		mux.Handle("GET /console/status", page(h.Status))
		mux.Handle("POST /console/time-zone", form(h.TimeZone))
		mux.Handle("GET /console/result/{id}", page(h.Result))
		mux.Handle("GET /console/pending/{id}", page(h.Pending))
		mux.Handle("POST /console/pending/{id}", form(h.DoPending))
	}

	if a := s.opts.OAuth; a != nil {
		h := a.Handlers()
		for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
			mux.Handle("GET "+p, open(h.ResourceMetadata))
			mux.Handle("OPTIONS "+p, open(h.Preflight))
		}
		for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
			mux.Handle("GET "+p, open(h.ServerMetadata))
			mux.Handle("OPTIONS "+p, open(h.Preflight))
		}
		mux.Handle("GET /authorize", page(h.Authorize))
		mux.Handle("/authorize", page(h.AuthorizeMethod))
		mux.Handle("GET /authorize/consent", page(h.ConsentPage))
		mux.Handle("POST /authorize/consent", form(h.ConsentDecision))
		mux.Handle("POST /token", open(h.Token))
		mux.Handle("POST /register", open(h.Register))
		mux.Handle("POST /revoke", open(h.Revoke))
		for _, p := range []string{"/token", "/register", "/revoke"} {
			mux.Handle("OPTIONS "+p, open(h.Preflight))
		}
	}

	mux.Handle("/", api(httpx.Handle(httpx.JSON, notFound)))
	return mux
}

// CodeUnavailable is /healthz's answer when Options.Health fails.
const CodeUnavailable = "unavailable"

// healthz answers "ok" to anyone: it says the process serves HTTP and its
// vault is the folder it opened, nothing more, so it needs no token. What
// is wrong goes to the log, not to an anonymous caller.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Health != nil {
		if err := s.opts.Health(); err != nil {
			return &httpx.Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
				Message: "cortex cannot serve its vault; the server log says why and what to do", Err: err}
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, err := io.WriteString(w, "ok\n")
	return err
}

func notFound(w http.ResponseWriter, r *http.Request) error {
	return &httpx.Error{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "there is nothing at this path; MCP clients connect to /mcp"}
}

func methodNotAllowed(render httpx.Renderer, allow string) http.Handler {
	return httpx.Handle(render, func(w http.ResponseWriter, r *http.Request) error {
		return &httpx.Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Allow: allow,
			Message: "this path does not take " + r.Method + " requests; use " + allow}
	})
}

package web

import (
	"io"
	"net/http"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// routes is the whole URL space of cortex, in one place.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mcp := s.handle(s.serveMCP)
	mux.Handle("POST /mcp", mcp)
	mux.Handle("GET /mcp", mcp)
	mux.Handle("DELETE /mcp", mcp)
	mux.Handle("/mcp", s.methodNotAllowed("GET, POST, DELETE"))
	mux.Handle("GET /healthz", s.handle(s.healthz))
	mux.Handle("/healthz", s.methodNotAllowed("GET, HEAD"))
	if s.opts.Mount != nil {
		s.opts.Mount(mux)
	}
	mux.Handle("/", s.handle(s.notFound))
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

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	return &httpx.Error{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "there is nothing at this path; MCP clients connect to /mcp"}
}

func (s *Server) methodNotAllowed(allow string) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return &httpx.Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Allow: allow,
			Message: "this path does not take " + r.Method + " requests; use " + allow}
	})
}

package web

import (
	"io"
	"net/http"
)

// routes is the whole URL space of cortex, in one place.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mcp := s.handle(s.serveMCP)
	// GET and DELETE are authenticated like POST, then refused: without
	// sessions there is no stream to GET and nothing to DELETE.
	mux.Handle("POST /mcp", mcp)
	mux.Handle("GET /mcp", mcp)
	mux.Handle("DELETE /mcp", mcp)
	mux.Handle("/mcp", s.methodNotAllowed("POST"))
	mux.Handle("GET /healthz", s.handle(s.healthz))
	mux.Handle("/healthz", s.methodNotAllowed("GET, HEAD"))
	if s.opts.Mount != nil {
		s.opts.Mount(mux)
	}
	mux.Handle("/", s.handle(s.notFound))
	return mux
}

// healthz answers "ok" to anyone: it says the process serves HTTP, nothing
// more, so it needs no token.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, err := io.WriteString(w, "ok\n")
	return err
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "there is nothing at this path; MCP clients connect to /mcp"}
}

func (s *Server) methodNotAllowed(allow string) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Allow: allow,
			Message: "this path does not take " + r.Method + " requests; use " + allow}
	})
}

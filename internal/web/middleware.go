package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"
)

// middleware wraps h in cortex's stack, outermost first.
func (s *Server) middleware(h http.Handler) http.Handler {
	stack := []func(http.Handler) http.Handler{
		s.logRequests,   // one line per request, with the final status
		s.recoverPanics, // a panic is a 500 for the client and a stack trace in the log
		s.checkHost,     // DNS-rebinding guard, part one
		s.checkOrigin,   // DNS-rebinding and cross-site guard, part two
		s.limitBody,
	}
	for i := len(stack) - 1; i >= 0; i-- {
		h = stack[i](h)
	}
	return h
}

// logInfo collects, during a request, what the request log line says beyond
// method, path, status and duration.
type logInfo struct {
	app  string // the token's name, once verified
	code string // the error code answered, if any
	err  error  // detail behind it, for the log only
}

type logInfoKey struct{}

func logInfoFrom(ctx context.Context) *logInfo {
	li, _ := ctx.Value(logInfoKey{}).(*logInfo)
	return li
}

// statusWriter remembers the status of a response. It implements Flush and
// Unwrap so that streamed (SSE) responses keep working through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs method, path, status and duration of every request, plus
// the app and error code when known. Never headers, queries or bodies.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.now()
		li := new(logInfo)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), logInfoKey{}, li)))
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", s.now().Sub(start)),
		}
		if li.app != "" {
			attrs = append(attrs, slog.String("app", li.app))
		}
		if li.code != "" {
			attrs = append(attrs, slog.String("code", li.code))
		}
		if li.err != nil {
			attrs = append(attrs, slog.String("error", li.err.Error()))
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		s.logger.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// recoverPanics turns a panic into a 500 that tells the client nothing and
// the log everything. http.ErrAbortHandler keeps its meaning: abort quietly.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
				return // the response has started; nothing sane to add
			}
			s.writeError(w, r, fmt.Errorf("panic: %v", v))
		}()
		next.ServeHTTP(w, r)
	})
}

// checkHost answers only requests addressed to the public host or to a
// loopback host, so that a DNS name rebound to this machine reaches nothing.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if !s.hostAllowed(r.Host) {
			return &Error{Status: http.StatusForbidden, Code: CodeForbiddenHost,
				Message: "this server does not answer for that host name; use its public URL"}
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// checkOrigin refuses requests sent by web pages of other sites. Requests
// without Origin (every non-browser client) pass.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o) && !anyOrigin(r) && !sameOriginNull(r, o) {
			return &Error{Status: http.StatusForbidden, Code: CodeForbiddenOrigin,
				Message: "requests from web pages of other sites are not allowed"}
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// sameOriginNull accepts the "null" Origin that browsers send for a form
// posted from a page with Referrer-Policy: no-referrer (the login and
// consent pages), when the browser itself vouches with Sec-Fetch-Site that
// the page is of this origin; pages cannot set that header, and the Host
// check has already run.
func sameOriginNull(r *http.Request, origin string) bool {
	return origin == "null" && r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// anyOrigin reports the endpoints that browser-based MCP clients call from
// their own origin, without cookies: the OAuth metadata, token, registration
// and revocation endpoints. They carry no ambient authority, so a foreign
// Origin gains nothing there.
func anyOrigin(r *http.Request) bool {
	switch r.URL.Path {
	case "/token", "/register", "/revoke":
		return r.Method == http.MethodPost || r.Method == http.MethodOptions
	}
	return strings.HasPrefix(r.URL.Path, "/.well-known/") && (r.Method == http.MethodGet || r.Method == http.MethodOptions)
}

// limitBody caps request bodies at MaxBody: refused at once when the
// declared length is over, cut off while reading otherwise.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if r.ContentLength > s.opts.MaxBody {
			return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge,
				Message: fmt.Sprintf("the request body is larger than the %d bytes allowed; send less at once", s.opts.MaxBody)}
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
			if r.ContentLength != 0 && r.Body != http.NoBody {
				r.Body = readWithin(w, r.Body, s.opts.BodyReadTimeout)
			}
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// readWithin sets a read deadline on the connection while body is read and
// clears it at the end of the body, so a long response that follows is not
// cut off by it.
func readWithin(w http.ResponseWriter, body io.ReadCloser, d time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return body // not supported by this writer (tests): nothing to clear
	}
	return &deadlineBody{ReadCloser: body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

type deadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		b.clear()
	}
	return n, err
}

func (s *Server) hostAllowed(hostport string) bool {
	host, port, ok := splitHost(strings.ToLower(hostport))
	if !ok {
		return false
	}
	if isLoopbackName(host) {
		return true
	}
	if port == "" {
		// Only the scheme's default port goes unsaid; which scheme the
		// client used is the public one, or a proxy in front speaks it.
		port = defaultPort(s.publicScheme)
	}
	return host == s.publicHost && port == s.publicPort
}

func (s *Server) originAllowed(origin string) bool {
	u, err := url.Parse(strings.ToLower(origin))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(origin, "#?") {
		return false
	}
	host, port, ok := splitHost(u.Host)
	if !ok {
		return false
	}
	if isLoopbackName(host) {
		return true
	}
	def := defaultPort(u.Scheme)
	if port == "" {
		port = def
	}
	return u.Scheme+"://"+joinHost(host, port, def) == s.publicOrigin
}

// splitHost splits "host", "host:port", "[v6]" or "[v6]:port", and reports
// false for anything else (an empty or non-numeric port included).
func splitHost(hp string) (host, port string, ok bool) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		if p == "" || strings.Trim(p, "0123456789") != "" || len(p) > 5 {
			return "", "", false
		}
		return h, p, h != ""
	}
	if strings.HasPrefix(hp, "[") && strings.HasSuffix(hp, "]") {
		return hp[1 : len(hp)-1], "", len(hp) > 2
	}
	if hp == "" || strings.ContainsAny(hp, ":[]/ ") {
		return "", "", false
	}
	return hp, "", true
}

// isLoopbackName reports the host names that can only mean this machine.
func isLoopbackName(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

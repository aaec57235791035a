package web

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// middleware wraps the routes in what every request passes, outermost
// first. What depends on the route (Host, Origin and body checks, and the
// format of refusals) is the route's kind.
func (s *Server) middleware(h http.Handler) http.Handler {
	stack := []func(http.Handler) http.Handler{
		httpx.LogRequests(s.logger, s.now),  // one line per request, with the final status and any error code
		httpx.Recover(s.logger, httpx.JSON), // a panic is a 500 for the client and a stack trace in the log
		httpx.Compress,                      // pages gzipped for browsers that ask, from this site only (BREACH)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		h = stack[i](h)
	}
	return h
}

// Origin policies of a route kind.
const (
	sameOrigin = false
	// anyOrigin marks the endpoints that browser-based MCP clients call from
	// their own origin, without cookies: the OAuth metadata, token,
	// registration and revocation endpoints. They carry no ambient
	// authority, so a foreign Origin gains nothing there.
	anyOrigin = true
)

// kind returns the guard of a kind of route: refusals written with render,
// only the public host or loopback answered (DNS-rebinding guard, part
// one), requests from web pages of other sites refused unless any origin
// may call (part two; requests without Origin, as every non-browser client
// sends, pass), and the body capped at MaxBody.
func (s *Server) kind(render httpx.Renderer, anyOrigin bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return httpx.Handle(render, func(w http.ResponseWriter, r *http.Request) error {
			httpx.SetRenderer(r, render)
			if !s.hostAllowed(r.Host) {
				return &httpx.Error{Status: http.StatusForbidden, Code: CodeForbiddenHost,
					Message: "this server does not answer for that host name; use its public URL"}
			}
			if o := r.Header.Get("Origin"); o != "" && !anyOrigin && !s.originAllowed(o) && !sameOriginNull(r, o) {
				return &httpx.Error{Status: http.StatusForbidden, Code: CodeForbiddenOrigin,
					Message: "requests from web pages of other sites are not allowed"}
			}
			if r.ContentLength > s.opts.MaxBody {
				return &httpx.Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge,
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
}

// sameOriginNull accepts the "null" Origin that browsers send for a form
// posted from a page with Referrer-Policy: no-referrer (the login and
// consent pages), when the browser itself vouches with Sec-Fetch-Site that
// the page is of this origin; pages cannot set that header, and the Host
// check has already run.
func sameOriginNull(r *http.Request, origin string) bool {
	return origin == "null" && r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// readWithin sets a read deadline on the connection while body is read and
// clears it at the end of the body, so a long response that follows is not
// cut off by it. When the handler returns before the end of the body, the
// deadline stays: net/http then reads away the rest of the body (up to
// 256 KiB) under it, so a client that trickles an unread body is still cut
// off, and it sets the connection's own idle and header deadlines before
// reading the next request, so the next request on a keep-alive
// connection never meets this one.
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
		port = defaultPort(s.public.Scheme())
	}
	return host == s.public.Hostname() && port == s.public.Port()
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
	return u.Scheme+"://"+joinHost(host, port, def) == s.public.String()
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

// Package web owns cortex's HTTP surface: every route of the server in one
// function (routes.go: /mcp, /healthz, and the handlers the owner and oauth
// packages expose), the middleware stack and each route kind's guards
// (Host and Origin checks, body cap, the format of refusals), bearer-token
// authentication of /mcp, and the per-token and per-address request
// budgets. It serves every MCP protocol version the SDK knows, without
// sessions, through the SDK's streamable HTTP handler; internal/certs
// serves it on the network.
//
// It must never log a token, an Authorization header or a request or
// response body, and never let a request reach an MCP server without a
// verified token. It does not touch notes or SQL itself: tokens are checked
// through the TokenVerifier it is given, tools live in the MCP server that
// Options.NewMCPServer builds.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/console"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/owner"
)

// Defaults of Options.
const (
	DefaultRatePerMinute = config.DefaultRatePerMinute // serve's --rate-limit default
	DefaultRateBurst     = 60
	DefaultMaxBody       = 4 << 20
)

// Budgets for requests that carry no valid token, per source (an IPv4
// address or an IPv6 /48, see httpx.AddrKey), and the memory bounds of the
// rate limiters.
const (
	authFailPerMinute = 60
	authFailBurst     = 20
	maxSources        = 4096
	maxTokenBuckets   = 1024
)

// Options configures a Server. Zero values mean the defaults noted.
type Options struct {
	// PublicURL is the canonical URL clients use, e.g. "http://127.0.0.1:8080"
	// or "https://notes.example.com". Its host (and loopback hosts) are the
	// only Host headers answered; its origin (and loopback origins) the only
	// Origin headers accepted. Required.
	PublicURL config.PublicURL
	// Verify checks every bearer credential. Required: StoreVerifier for
	// cortex's own bearer tokens alone; cmd composes it from the
	// bearer-token store and the OAuth server.
	Verify Verifier
	// ChallengeScope is announced as scope="…" in 401 challenges, and with
	// WriteScope in 403 ones.
	ChallengeScope string
	// WriteScope, when set, is the scope a credential with limited scopes
	// needs to call a tool for which IsWriteTool is true; without it the call
	// is refused with 403 insufficient_scope before it reaches the tool.
	WriteScope  string
	IsWriteTool func(name string) bool
	// NewMCPServer returns the MCP server for a request; it is asked once
	// per request, so it should hand out a kept one. Required.
	NewMCPServer func(r *http.Request) *mcp.Server
	// Quick, when set, may answer a request to /mcp itself, as the MCP
	// server would (tools.Servers.Quick): it gets the verified token, the
	// headers and the whole body, and appends the JSON answer to answer,
	// or returns false, having written nothing, to leave the request to
	// the MCP server. answer is reused once written out.
	Quick func(ctx context.Context, ti *auth.TokenInfo, h http.Header, body []byte, answer *bytes.Buffer) bool
	// Owner, when set, is the owner's sign-in and passkey enrolment, and
	// OAuth the authorization server: their handlers are routed here, with
	// the rest.
	Owner *owner.Owner
	OAuth *oauth.Server
	// Console, when set, is the owner's console: the note pages and the
	// owner's pages under /console.
	Console *console.Console
	// Health, when set, is asked by /healthz, which fails while it
	// returns an error (cmd passes the vault's Check).
	Health func() error
	// ResourceMetadataURL, when set, is announced in WWW-Authenticate
	// challenges as resource_metadata (RFC 9728) for OAuth discovery.
	ResourceMetadataURL string
	// RatePerMinute is the sustained request rate of one token (default 120).
	RatePerMinute int
	// RateBurst is how many requests a token may make at once after being
	// quiet (default 60: a client's start-up plus a burst of reads).
	RateBurst int
	// MaxBody caps request bodies (default 4 MiB: a write carries up to 1 MiB
	// of text, which JSON escaping can grow).
	MaxBody int64
	// BodyReadTimeout bounds how long a client may take to send a request
	// body (default 30s), so a stranger trickling bytes cannot hold
	// connections forever; the server has no overall ReadTimeout because
	// responses (SSE) may last for hours.
	BodyReadTimeout time.Duration
	Logger          *slog.Logger
	Now             func() time.Time
}

// Server is cortex's HTTP handler with its state: the rate budgets.
type Server struct {
	opts         Options
	logger       *slog.Logger
	now          func() time.Time
	verify       Verifier
	newMCPServer func(r *http.Request) *mcp.Server

	public config.PublicURL // the Host and Origin checks compare against it

	problem   httpx.Renderer // the page of refusals a person sees
	tokenRate *httpx.Limiter[string]
	authFails *httpx.Limiter[netip.Prefix]
	// versions are the MCP protocol versions /mcp serves, newest first.
	versions []string
	mcp      http.Handler
	handler  http.Handler
	// answers are Quick's answer buffers (*bytes.Buffer), reused once an
	// answer is written out (see putAnswer).
	answers sync.Pool
}

// New checks o and builds a Server.
func New(o Options) (*Server, error) {
	if o.Verify == nil {
		return nil, errors.New("web: Options.Verify is required")
	}
	if o.NewMCPServer == nil {
		return nil, errors.New("web: Options.NewMCPServer is required")
	}
	if o.RatePerMinute < 0 || o.RateBurst < 0 || o.MaxBody < 0 {
		return nil, errors.New("web: limits in Options must not be negative")
	}
	o.RatePerMinute = httpx.Or(o.RatePerMinute, DefaultRatePerMinute)
	o.RateBurst = httpx.Or(o.RateBurst, DefaultRateBurst)
	o.MaxBody = httpx.Or(o.MaxBody, DefaultMaxBody)
	o.BodyReadTimeout = httpx.Or(o.BodyReadTimeout, 30*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{
		opts:         o,
		logger:       o.Logger,
		now:          o.Now,
		verify:       o.Verify,
		newMCPServer: o.NewMCPServer,
		public:       o.PublicURL,
		tokenRate: httpx.NewLimiter[string](httpx.Rate{Burst: o.RateBurst, PerMinute: float64(o.RatePerMinute)},
			maxTokenBuckets, o.Now),
		authFails: httpx.NewLimiter[netip.Prefix](httpx.Rate{Burst: authFailBurst, PerMinute: authFailPerMinute},
			maxSources, o.Now),
		versions: mcp.SupportedProtocolVersions(),
	}
	if o.PublicURL.IsZero() {
		return nil, errors.New("web: Options.PublicURL is required")
	}
	s.mcp = bindTokenInfo(mcp.NewStreamableHTTPHandler(s.getServer, &mcp.StreamableHTTPOptions{
		// No sessions, for every protocol version: see mcp.go.
		Stateless: true,
		// cortex checks Host and Origin itself, so that a reverse proxy on
		// the same host may reach it over loopback with the public Host.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        o.MaxBody,
		// A call's answer is one JSON body rather than an SSE stream of
		// one event: cortex's tools send no progress or requests while
		// they run, and a plain body is cheaper for both ends.
		JSONResponse: true,
		Logger:       o.Logger.With("component", "mcp"),
	}))
	pages, err := httpx.NewPages(nil)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.problem = pages.ProblemPage(problemTitle)
	s.handler = s.middleware(s.routes())
	return s, nil
}

// Handler returns the whole HTTP surface: routes behind the middleware stack.
func (s *Server) Handler() http.Handler { return s.handler }

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// joinHost writes host[:port] as it appears in a URL, leaving out the
// scheme's default port.
func joinHost(host, port, def string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == def {
		return host
	}
	return host + ":" + port
}

// problemTitle titles the page of a refusal by the edge itself, on a route
// a person sees.
func problemTitle(_ *http.Request, e *httpx.Error) httpx.Problem {
	switch e.Status {
	case http.StatusForbidden:
		return httpx.Problem{Title: "Not allowed"}
	case http.StatusRequestEntityTooLarge:
		return httpx.Problem{Title: "Too large"}
	default:
		return httpx.Problem{Title: "Something went wrong"}
	}
}

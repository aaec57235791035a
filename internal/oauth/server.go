package oauth

import (
	"context"
	"crypto/tls"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Options configures New. Store, Owner and PublicURL are required; zero
// fields take defaults.
type Options struct {
	Store *store.Store
	Owner *owner.Owner
	// PublicURL is cortex's external URL. Its canonical form is the issuer
	// (clients compare it as a string); PublicURL + "/mcp" is the one
	// resource tokens are issued for.
	PublicURL config.PublicURL
	Logger    *slog.Logger
	Now       func() time.Time
	// RedirectAllowlist lists the redirect URIs clients may use; nil means
	// DefaultRedirectAllowlist. See ParseRedirectAllowlist.
	RedirectAllowlist []string
	Limits            Limits

	// Resolver resolves the hosts of client metadata documents and key
	// sets; nil means net.DefaultResolver. Every address it returns is
	// checked: only public unicast addresses are dialled.
	Resolver Resolver
	// DialContext connects to an already checked "ip:443"; nil means a
	// net.Dialer. Tests point it at a local server.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLSConfig verifies fetched hosts; nil means the system roots.
	TLSConfig *tls.Config

	// TopFolders lists the vault's top folders, offered on the consent
	// page; nil offers patterns only. (This package touches no file.)
	TopFolders func(ctx context.Context) ([]string, error)
}

// Resolver is the part of *net.Resolver the fetcher uses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Server is the authorization server. It is safe for concurrent use.
type Server struct {
	st       *store.Store
	own      *owner.Owner
	issuer   string
	resource string
	log      *slog.Logger
	now      func() time.Time
	allow    *allowlist
	lim      Limits
	guard    *httpx.FormGuard
	pages    *httpx.Pages
	folders  func(ctx context.Context) ([]string, error)
	problem  httpx.Renderer // the error page
	// authorizeProblem is the error page of /authorize, which sends the
	// owner through sign-in when the budget is spent.
	authorizeProblem httpx.Renderer
	fetch            *fetcher
	cimd             *httpx.LRU[string, store.OAuthClient] // documents of clients not yet approved
	jti              *httpx.OnceSet                        // client assertion ids (jti) seen, until their assertion expires
	authorize        *httpx.Budget
	register         *httpx.Budget
	fetches          *httpx.Budget
	tokens           *httpx.Budget

	mu        sync.Mutex
	touched   map[int64]time.Time // grant id → last use written
	lastPrune time.Time
}

// New builds the authorization server.
func New(opts Options) (*Server, error) {
	if opts.Store == nil || opts.Owner == nil {
		return nil, fmt.Errorf("%w: a store and an owner are required", ErrBadConfig)
	}
	if opts.PublicURL.IsZero() {
		return nil, fmt.Errorf("%w: a public URL is required", ErrBadConfig)
	}
	list := opts.RedirectAllowlist
	if list == nil {
		list = DefaultRedirectAllowlist
	}
	allow, err := newAllowlist(list)
	if err != nil {
		return nil, err
	}
	s := &Server{
		st:       opts.Store,
		own:      opts.Owner,
		issuer:   opts.PublicURL.String(),
		resource: opts.PublicURL.JoinPath("/mcp"),
		log:      opts.Logger,
		now:      opts.Now,
		allow:    allow,
		lim:      opts.Limits.withDefaults(),
		touched:  make(map[int64]time.Time),
		folders:  opts.TopFolders,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.guard, err = httpx.NewFormGuard(s.issuer, errCrossOrigin); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	if s.pages, err = httpx.NewPages(assets, "assets/*.html"); err != nil {
		return nil, err
	}
	s.problem = s.pages.ProblemPage(describeProblem)
	s.authorizeProblem = s.pages.ProblemPage(describeAuthorizeProblem)
	l := s.lim
	s.authorize = httpx.NewBudget(l.AuthorizePerSource, l.AuthorizeGlobal, l.MaxSources, s.now)
	s.register = httpx.NewBudget(l.RegisterPerSource, l.RegisterGlobal, l.MaxSources, s.now)
	s.fetches = httpx.NewBudget(l.FetchPerSource, l.FetchGlobal, l.MaxSources, s.now)
	s.tokens = httpx.NewBudget(l.TokenPerSource, Rate{}, l.MaxSources, s.now)
	s.fetch = newFetcher(opts.Resolver, opts.DialContext, opts.TLSConfig, l.FetchTimeout, l.FetchMaxBytes)
	s.cimd = httpx.NewLRU[string, store.OAuthClient](l.DocCacheSize)
	s.jti = httpx.NewOnceSet(l.MaxAssertions)
	return s, nil
}

// Handlers are the authorization server's endpoints, each with its guards
// and the error format of its kind; internal/web routes them (the patterns
// are noted here). The JSON endpoints answer any origin (CORS, no cookies:
// a foreign page gains nothing there); the pages do not.
type Handlers struct {
	ResourceMetadata http.Handler // GET /.well-known/oauth-protected-resource and …/mcp
	ServerMetadata   http.Handler // GET /.well-known/oauth-authorization-server and openid-configuration
	Preflight        http.Handler // OPTIONS of the metadata, /token, /register and /revoke
	Authorize        http.Handler // GET /authorize
	AuthorizeMethod  http.Handler // /authorize with any other method
	ConsentPage      http.Handler // GET /authorize/consent
	ConsentDecision  http.Handler // POST /authorize/consent
	Token            http.Handler // POST /token
	Register         http.Handler // POST /register
	Revoke           http.Handler // POST /revoke
}

// Handlers returns the authorization server's handlers.
func (s *Server) Handlers() Handlers {
	return Handlers{
		ResourceMetadata: http.HandlerFunc(s.resourceMetadata),
		ServerMetadata:   http.HandlerFunc(s.serverMetadata),
		Preflight:        http.HandlerFunc(preflight),
		Authorize:        s.pageWith(s.authorizeProblem, s.authorizeStart),
		AuthorizeMethod:  s.page(func(http.ResponseWriter, *http.Request) error { return errAuthorizeMethod }),
		ConsentPage:      s.page(s.consentPage),
		ConsentDecision:  s.form(s.consentDecision),
		Token:            s.api(s.token),
		Register:         s.api(s.registerClient),
		Revoke:           s.api(s.revoke),
	}
}

//go:embed assets/*.html
var assets embed.FS

// maybePrune deletes dead rows at most every PruneEvery; the requests that
// grow the tables call it, so they also keep them small.
func (s *Server) maybePrune(ctx context.Context) {
	now := s.now()
	s.mu.Lock()
	due := now.Sub(s.lastPrune) >= s.lim.PruneEvery || now.Before(s.lastPrune)
	if due {
		s.lastPrune = now
	}
	s.mu.Unlock()
	if due {
		if err := s.Prune(ctx); err != nil {
			s.log.Warn("prune oauth state", "err", err)
		}
	}
}

// Prune deletes expired requests, codes and tokens and dead grants, and
// forgets expired assertion ids. The server calls it now and then by
// itself; a caller may also run it on a timer.
func (s *Server) Prune(ctx context.Context) error {
	s.jti.Prune(s.now())
	n, err := s.st.PruneOAuth(ctx, codeReplayMemory)
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.Debug("oauth state pruned", "rows", n)
	}
	return nil
}

// codeReplayMemory is how long a used code is remembered after it expired,
// so that a late replay still revokes what it produced.
const codeReplayMemory = 10 * time.Minute

// touch records a grant's use at most once a minute per grant.
func (s *Server) touch(ctx context.Context, grant int64) {
	now := s.now()
	s.mu.Lock()
	last, ok := s.touched[grant]
	fresh := ok && now.Sub(last) < time.Minute && !now.Before(last)
	if !fresh {
		if len(s.touched) >= 1024 {
			clear(s.touched)
		}
		s.touched[grant] = now
	}
	s.mu.Unlock()
	if !fresh {
		if err := s.st.TouchOAuthUse(ctx, grant, now); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("record oauth use", "err", err)
		}
	}
}

package owner

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Default login session lifetimes.
const (
	DefaultSessionIdle = 2 * time.Hour
	DefaultSessionMax  = 24 * time.Hour
	// ceremonyTTL is how long a WebAuthn ceremony may stay open.
	ceremonyTTL = 5 * time.Minute
)

// Options configures New. Store and PublicURL are required; nil or zero
// fields take defaults.
type Options struct {
	Store *store.Store
	// PublicURL is cortex's canonical external URL, e.g. https://notes.example.org.
	// Its host is the WebAuthn relying-party id; with an IP address passkeys
	// are off and TOTP and recovery codes remain.
	PublicURL   config.PublicURL
	Logger      *slog.Logger
	Now         func() time.Time
	Budgets     Budgets
	SessionIdle time.Duration // default DefaultSessionIdle
	SessionMax  time.Duration // default DefaultSessionMax
}

// Owner serves the login and enrolment pages and answers who is signed in.
// It is safe for concurrent use.
type Owner struct {
	st        *store.Store
	log       *slog.Logger
	now       func() time.Time
	publicURL string
	origin    string
	budgets   Budgets
	idle, max time.Duration

	wa       *webauthn.WebAuthn // nil when passkeys are off
	csrfKey  []byte
	guard    *httpx.FormGuard
	pages    *httpx.Pages
	static   fs.FS // the page scripts and style sheet
	problem  httpx.Renderer
	code     *httpx.Budget
	passkey  *httpx.Limiter[netip.Prefix]
	ceremony *ceremonies
	devices  *devices
}

// New builds the owner's web side.
func New(opts Options) (*Owner, error) {
	if opts.Store == nil {
		return nil, errors.New("owner: no store")
	}
	u := opts.PublicURL
	if u.IsZero() {
		return nil, fmt.Errorf("owner: %w: none given", ErrBadPublicURL)
	}
	o := &Owner{
		st:        opts.Store,
		log:       opts.Logger,
		now:       opts.Now,
		publicURL: u.String(),
		origin:    u.String(),
		budgets:   opts.Budgets.withDefaults(),
		idle:      opts.SessionIdle,
		max:       opts.SessionMax,
		csrfKey:   make([]byte, 32),
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.now == nil {
		o.now = time.Now
	}
	o.idle = httpx.Or(o.idle, DefaultSessionIdle)
	o.max = httpx.Or(o.max, DefaultSessionMax)
	rand.Read(o.csrfKey)
	var err error
	if o.guard, err = httpx.NewFormGuard(o.origin, errCrossOrigin); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	b := o.budgets
	o.code = httpx.NewBudget(rate(b.CodeSourceBurst, b.CodeSourcePerMinute),
		rate(b.CodeGlobalBurst, b.CodeGlobalPerMinute), b.MaxSources, o.now)
	o.devices = newDevices(b, o.now)
	o.passkey = httpx.NewLimiter[netip.Prefix](rate(b.PasskeySourceBurst, b.PasskeySourcePerMinute), b.MaxSources, o.now)
	ceremonyKey := make([]byte, 32)
	rand.Read(ceremonyKey)
	o.ceremony = newCeremonies(ceremonyKey)
	if o.pages, err = httpx.NewPages(assets, "assets/*.html"); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	if o.static, err = fs.Sub(assets, "assets"); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	o.problem = o.pages.ProblemPage(describeProblem)
	if PasskeysEnabled(u) {
		o.wa, err = webauthn.New(&webauthn.Config{
			RPID:          u.Hostname(),
			RPDisplayName: "cortex",
			RPOrigins:     []string{o.origin},
			Timeouts: webauthn.TimeoutsConfig{
				Login:        webauthn.TimeoutConfig{Timeout: ceremonyTTL, TimeoutUVD: ceremonyTTL},
				Registration: webauthn.TimeoutConfig{Timeout: ceremonyTTL, TimeoutUVD: ceremonyTTL},
			},
		})
		if err != nil {
			return nil, fmt.Errorf("owner: webauthn: %w", err)
		}
	} else {
		o.log.Warn("passkeys are off: the public URL's host is an IP address; the owner signs in with TOTP or a recovery code",
			"public_url", o.publicURL)
	}
	return o, nil
}

// Handlers are the owner's pages and endpoints, each with its guards and
// the error format of its kind; internal/web routes them (the patterns are
// noted here). None of them creates, resets or replaces the owner; the
// enrolment endpoints add a passkey only with a link from `cortex admin`
// and a current TOTP code.
type Handlers struct {
	LoginPage          http.Handler // GET /login
	Asset              http.Handler // GET /login/assets/{name}
	LoginTOTP          http.Handler // POST /login/totp
	LoginRecovery      http.Handler // POST /login/recovery
	PasskeyLoginBegin  http.Handler // POST /login/passkey/begin
	PasskeyLoginFinish http.Handler // POST /login/passkey/finish
	Logout             http.Handler // POST /logout
	EnrolPage          http.Handler // GET /enrol
	EnrolBegin         http.Handler // POST /enrol/passkey/begin
	EnrolFinish        http.Handler // POST /enrol/passkey/finish
}

// Handlers returns the owner's handlers.
func (o *Owner) Handlers() Handlers {
	return Handlers{
		LoginPage:          o.page(o.loginPage),
		Asset:              httpx.Assets(o.static, assetTypes, httpx.PagePolicy{Scripts: true}),
		LoginTOTP:          o.form(o.loginTOTP),
		LoginRecovery:      o.form(o.loginRecovery),
		PasskeyLoginBegin:  o.api(o.passkeyLoginBegin),
		PasskeyLoginFinish: o.api(o.passkeyLoginFinish),
		Logout:             o.post(o.problem, o.logout),
		EnrolPage:          o.page(o.enrolPage),
		EnrolBegin:         o.api(o.enrolBegin),
		EnrolFinish:        o.api(o.enrolFinish),
	}
}

// LoginURL is the login page that returns to returnTo (a local path such as
// "/authorize?client_id=…") after a successful sign-in. An unsafe returnTo
// is dropped.
func LoginURL(returnTo string) string {
	if p, ok := SafeReturnPath(returnTo); ok && p != "/login" {
		return "/login?return=" + url.QueryEscape(p)
	}
	return "/login"
}

// ReauthURL is the login page for an owner who is signed in but must sign
// in again (an action needs a recent sign-in): it shows the sign-in forms
// instead of sending the owner straight on, and afterwards returns to
// returnTo with a new session that replaces the old one.
func ReauthURL(returnTo string) string {
	if p, ok := SafeReturnPath(returnTo); ok && p != "/login" {
		return "/login?reauth=1&return=" + url.QueryEscape(p)
	}
	return "/login?reauth=1"
}

// SafeReturnPath accepts only a path on this server: it must start with a
// single "/", carry no scheme, host, backslash or control character, and be
// at most 8 KiB. Anything else could send the browser to another site after
// sign-in.
func SafeReturnPath(s string) (string, bool) {
	if s == "" || len(s) > 8<<10 || s[0] != '/' || strings.HasPrefix(s, "//") || strings.ContainsAny(s, "\\") {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return "", false
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	return s, true
}

// Passkeys reports whether passkey sign-in is on (it is off when the server
// is reached by an IP address), for pages that offer the sign-in inline.
func (o *Owner) Passkeys() bool { return o.wa != nil }

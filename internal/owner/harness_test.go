package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

const testPublicURL = "https://cortex.example"

// newClock is the tests' clock, moved by hand.
func newClock() *testkit.Clock { return testkit.NewClock(time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)) }

// harness is one owner (set up as `cortex admin setup` would) served by a
// real mux on a real SQLite file, driven without sockets so that every
// request can come from any address.
type harness struct {
	t   testing.TB
	clk *testkit.Clock
	st  *store.Store
	o   *Owner
	mux *http.ServeMux
	// proxies, when set, are trusted by the serve path in front (see
	// httpx.TrustForwarded), as in proxy mode.
	proxies []netip.Prefix
	setup   SetupResult
}

func newHarness(t testing.TB, mod func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, clk: newClock()}
	var err error
	h.st, err = store.Open(context.Background(), t.TempDir(), store.Options{Now: h.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.st.Close() })
	h.setup, err = Setup(context.Background(), h.st, config.MustParsePublicURL(testPublicURL), false, h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Store: h.st, PublicURL: config.MustParsePublicURL(testPublicURL), Now: h.clk.Now}
	if mod != nil {
		mod(&opts)
	}
	h.o, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.mux = routes(h.o)
	return h
}

// routes routes the owner's handlers as internal/web does, without its
// Host and Origin checks.
func routes(o *Owner) *http.ServeMux {
	mux := http.NewServeMux()
	oh := o.Handlers()
	mux.Handle("GET /login", oh.LoginPage)
	mux.Handle("GET /login/assets/{name}", oh.Asset)
	mux.Handle("POST /login/totp", oh.LoginTOTP)
	mux.Handle("POST /login/recovery", oh.LoginRecovery)
	mux.Handle("POST /login/passkey/begin", oh.PasskeyLoginBegin)
	mux.Handle("POST /login/passkey/finish", oh.PasskeyLoginFinish)
	mux.Handle("POST /logout", oh.Logout)
	mux.Handle("GET /enrol", oh.EnrolPage)
	mux.Handle("POST /enrol/passkey/begin", oh.EnrolBegin)
	mux.Handle("POST /enrol/passkey/finish", oh.EnrolFinish)
	return mux
}

// code is the current TOTP code.
func (h *harness) code() string {
	return testkit.TOTP(h.t, h.setup.TOTPSecret, h.clk.Now())
}

// nextStep moves the clock into the next TOTP step.
func (h *harness) nextStep() { h.clk.Advance(totpPeriod) }

// browser is a visitor of the harness's mux from one address, behind the
// serve path's forwarding rule when the harness trusts proxies.
type browser struct {
	*testkit.Visitor
	h *harness
}

func (h *harness) browser(addr string) *browser {
	return &browser{Visitor: testkit.NewVisitor(http.HandlerFunc(h.serve), addr), h: h}
}

func (h *harness) serve(w http.ResponseWriter, r *http.Request) {
	var handler http.Handler = h.mux
	if h.proxies != nil {
		handler = httpx.TrustForwarded(h.proxies, handler)
	}
	handler.ServeHTTP(w, r)
}

func (b *browser) postJSON(path string, v any) *http.Response {
	body, _ := json.Marshal(v)
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(csrfHeader, b.CSRF)
	return b.Do(r)
}

// signedIn reports whether the browser's session cookie is a live session.
func (b *browser) signedIn() (SessionInfo, bool) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for k, v := range b.Cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	return b.h.o.Session(r)
}

func (b *browser) loginTOTP(code string) *http.Response {
	if b.CSRF == "" {
		b.Get("/login")
	}
	return b.PostForm("/login/totp", url.Values{"code": {code}})
}

func (b *browser) loginRecovery(code string) *http.Response {
	if b.CSRF == "" {
		b.Get("/login")
	}
	return b.PostForm("/login/recovery", url.Values{"code": {code}})
}

func wantStatus(t testing.TB, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, status, testkit.Body(resp))
	}
}

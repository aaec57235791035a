package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

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
	c, err := totp.GenerateCode(h.setup.TOTPSecret, h.clk.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// nextStep moves the clock into the next TOTP step.
func (h *harness) nextStep() { h.clk.Advance(totpPeriod) }

// browser keeps cookies like a browser and comes from one address.
type browser struct {
	h       *harness
	addr    string // RemoteAddr
	cookies map[string]string
	csrf    string
}

func (h *harness) browser(addr string) *browser {
	return &browser{h: h, addr: addr, cookies: make(map[string]string)}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"|data-csrf="([^"]+)"|id="csrf" value="([^"]+)"`)

func (b *browser) do(r *http.Request) *http.Response {
	r.RemoteAddr = b.addr
	for k, v := range b.cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	rec := httptest.NewRecorder()
	var handler http.Handler = b.h.mux
	if b.h.proxies != nil {
		handler = httpx.TrustForwarded(b.h.proxies, handler)
	}
	handler.ServeHTTP(rec, r)
	resp := rec.Result()
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if m := csrfRE.FindSubmatch(body); m != nil {
		b.csrf = string(bytes.Join(m[1:], nil))
	}
	return resp
}

func (b *browser) get(path string) *http.Response {
	return b.do(httptest.NewRequest(http.MethodGet, path, nil))
}

func (b *browser) postForm(path string, v url.Values) *http.Response {
	if _, ok := v["csrf"]; !ok {
		v.Set("csrf", b.csrf)
	}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(r)
}

func (b *browser) postJSON(path string, v any) *http.Response {
	body, _ := json.Marshal(v)
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(csrfHeader, b.csrf)
	return b.do(r)
}

func bodyOf(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// signedIn reports whether the browser's session cookie is a live session.
func (b *browser) signedIn() (SessionInfo, bool) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for k, v := range b.cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	return b.h.o.Session(r)
}

func (b *browser) loginTOTP(code string) *http.Response {
	if b.csrf == "" {
		b.get("/login")
	}
	return b.postForm("/login/totp", url.Values{"code": {code}})
}

func (b *browser) loginRecovery(code string) *http.Response {
	if b.csrf == "" {
		b.get("/login")
	}
	return b.postForm("/login/recovery", url.Values{"code": {code}})
}

func wantStatus(t testing.TB, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, status, bodyOf(resp))
	}
}

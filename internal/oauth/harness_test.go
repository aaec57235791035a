package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

const testPublicURL = "https://cortex.example"

// newClock is the tests' clock, moved by hand.
func newClock() *testkit.Clock { return testkit.NewClock(time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)) }

// harness is cortex's owner and authorization server on one mux over a real
// SQLite file, driven without sockets so requests can come from any address.
type harness struct {
	t    testing.TB
	clk  *testkit.Clock
	st   *store.Store
	own  *owner.Owner
	srv  *Server
	mux  *http.ServeMux
	totp string
	pub  string
	dir  string // the state directory
}

func newHarness(t testing.TB, mod func(*Options)) *harness {
	t.Helper()
	return newHarnessAt(t, testPublicURL, mod)
}

func newHarnessAt(t testing.TB, pub string, mod func(*Options)) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, clk: newClock(), pub: pub, dir: t.TempDir()}
	var err error
	h.st, err = store.Open(ctx, h.dir, store.Options{Now: h.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.st.Close() })
	res, err := owner.Setup(ctx, h.st, config.MustParsePublicURL(pub), false, h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	h.totp = res.TOTPSecret
	h.own, err = owner.New(owner.Options{Store: h.st, PublicURL: config.MustParsePublicURL(pub), Now: h.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Store: h.st, Owner: h.own, PublicURL: config.MustParsePublicURL(pub), Now: h.clk.Now}
	if mod != nil {
		mod(&opts)
	}
	h.srv, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.mux = routes(h.own, h.srv)
	return h
}

// code is the owner's current TOTP code; each call moves to a fresh step,
// since a step is accepted once.
func (h *harness) code() string {
	h.clk.Advance(30 * time.Second)
	return testkit.TOTP(h.t, h.totp, h.clk.Now())
}

// dcr registers a public client with these redirect URIs.
func (h *harness) dcr(name string, redirects ...string) string {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": redirects,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	resp := h.call("203.0.113.9:1", http.MethodPost, "/register", "application/json", string(body), nil)
	if resp.StatusCode != http.StatusCreated {
		h.t.Fatalf("register: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	var out struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return out.ClientID
}

// call makes one request from addr.
func (h *harness) call(addr, method, path, ctype, body string, hdr http.Header) *http.Response {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = addr
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	for k, v := range hdr {
		r.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.mux.ServeHTTP(rec, r)
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp
}

// postForm posts a form to /token or /revoke and decodes the JSON answer.
func (h *harness) postForm(path string, v url.Values) (int, map[string]any) {
	resp := h.call("198.51.100.7:1", http.MethodPost, path, "application/x-www-form-urlencoded", v.Encode(), nil)
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// browser is a visitor of the harness's mux (whichever it serves at the
// time) from one address; it also remembers the consent page's request.
type browser struct {
	*testkit.Visitor
	h       *harness
	request string
}

var requestRE = regexp.MustCompile(`name="request" value="([^"]+)"`)

func (h *harness) browser(addr string) *browser {
	b := &browser{h: h}
	b.Visitor = testkit.NewVisitor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }), addr)
	b.Seen = func(body []byte) {
		if m := requestRE.FindSubmatch(body); m != nil {
			b.request = string(m[1])
		}
	}
	return b
}

// follow GETs path and follows redirects on this server, returning the
// last response (a page, or a redirect leaving the server).
func (b *browser) follow(path string) *http.Response {
	resp := b.Get(path)
	for i := 0; i < 10 && resp.StatusCode == http.StatusSeeOther; i++ {
		loc := resp.Header.Get("Location")
		if !strings.HasPrefix(loc, "/") {
			return resp
		}
		resp = b.Get(loc)
	}
	return resp
}

// signIn signs the browser in with a TOTP code.
func (b *browser) signIn() {
	b.h.t.Helper()
	b.Get("/login")
	resp := b.PostForm("/login/totp", url.Values{"code": {b.h.code()}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("sign-in: %d %s", resp.StatusCode, testkit.Body(resp))
	}
}

// decide answers the consent page last shown; it returns the redirect.
func (b *browser) decide(decision string) *url.URL {
	b.h.t.Helper()
	resp := b.PostForm("/authorize/consent", url.Values{"request": {b.request}, "decision": {decision}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("consent %s: %d %s", decision, resp.StatusCode, testkit.Body(resp))
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		b.h.t.Fatal(err)
	}
	return u
}

// pkce is a verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE(seed string) pkce {
	v := strings.Repeat(seed, 43/len(seed)+1)[:43]
	sum := sha256.Sum256([]byte(v))
	return pkce{v, base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authURL builds an /authorize URL with everything a good client sends.
func authURL(client, redirect string, p pkce, mod func(url.Values)) string {
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"},
		"scope": {DefaultScope}, "resource": {testPublicURL + "/mcp"}}
	if mod != nil {
		mod(q)
	}
	return "/authorize?" + q.Encode()
}

// approve runs the whole browser side for a signed-in owner and returns
// the code.
func (h *harness) approve(b *browser, path string) string {
	h.t.Helper()
	resp := b.follow(path)
	if resp.StatusCode != http.StatusOK || !strings.Contains(testkit.Body(resp), `id="consent-form"`) {
		h.t.Fatalf("consent page: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	u := b.decide("approve")
	code := u.Query().Get("code")
	if code == "" {
		h.t.Fatalf("no code in %s", u)
	}
	return code
}

func (h *harness) exchange(client, code, redirect string, p pkce) (int, map[string]any) {
	return h.postForm("/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
		"redirect_uri": {redirect}, "code_verifier": {p.verifier}, "resource": {h.pub + "/mcp"}})
}

func (h *harness) refresh(client, rt string) (int, map[string]any) {
	return h.postForm("/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {rt}})
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// url1 builds url.Values from key, value pairs.
func url1(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// moveTo restarts the owner and authorization server at another public URL
// over the same state, as `cortex serve` does after its URL changed.
func (h *harness) moveTo(pub string) {
	h.t.Helper()
	var err error
	h.pub = pub
	if h.own, err = owner.New(owner.Options{Store: h.st, PublicURL: config.MustParsePublicURL(pub), Now: h.clk.Now}); err != nil {
		h.t.Fatal(err)
	}
	if h.srv, err = New(Options{Store: h.st, Owner: h.own, PublicURL: config.MustParsePublicURL(pub), Now: h.clk.Now}); err != nil {
		h.t.Fatal(err)
	}
	h.mux = routes(h.own, h.srv)
}

// routes routes the owner's and the authorization server's handlers as
// internal/web does, without its Host and Origin checks.
func routes(o *owner.Owner, s *Server) *http.ServeMux {
	mux := http.NewServeMux()
	oh, h := o.Handlers(), s.Handlers()
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
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		mux.Handle("GET "+p, h.ResourceMetadata)
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		mux.Handle("GET "+p, h.ServerMetadata)
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/token", "/register", "/revoke"} {
		mux.Handle("OPTIONS "+p, h.Preflight)
	}
	mux.Handle("GET /authorize", h.Authorize)
	mux.Handle("/authorize", h.AuthorizeMethod)
	mux.Handle("GET /authorize/consent", h.ConsentPage)
	mux.Handle("POST /authorize/consent", h.ConsentDecision)
	mux.Handle("POST /token", h.Token)
	mux.Handle("POST /register", h.Register)
	mux.Handle("POST /revoke", h.Revoke)
	return mux
}

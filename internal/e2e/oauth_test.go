package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/pquerna/otp/totp"
	"golang.org/x/oauth2"
)

// The refresh grace window is 30 s of real time in the binary; waiting it
// out is opt-in. Without the flag the family is revoked by replaying the
// authorization code instead, which cortex treats the same way.
var waitRefreshGrace = flag.Bool("e2e.refresh-grace", false,
	"wait out the 30 s refresh grace window and replay a spent refresh token")

// ownerSecrets is what `cortex admin setup` shows the owner once.
type ownerSecrets struct {
	totpSecret string
	recovery   []string
	enrol      string // the one-time passkey link, for a host name only
}

var recoveryLine = regexp.MustCompile(`(?m)^\s+\d+\. ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})\s*$`)

// setupOwner enrols the owner on the console for the running instance's
// public URL and reads the TOTP secret and recovery codes from the output.
func setupOwner(t *testing.T, in *instance) ownerSecrets {
	t.Helper()
	return setupOwnerAt(t, in, in.URL)
}

// setupOwnerAt enrols the owner for the public URL publicURL.
func setupOwnerAt(t *testing.T, in *instance, publicURL string) ownerSecrets {
	t.Helper()
	out, errOut, err := in.admin("setup", "--public-url", publicURL)
	if err != nil {
		t.Fatalf("admin setup: %v\n%s", err, errOut)
	}
	all := out + errOut
	raw := regexp.MustCompile(`otpauth://\S+`).FindString(all)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Query().Get("secret") == "" {
		t.Fatalf("setup printed no otpauth URI with a secret:\n%s", all)
	}
	var s ownerSecrets
	s.totpSecret = u.Query().Get("secret")
	s.enrol = regexp.MustCompile(`http://\S+/enrol#[A-Za-z0-9_-]+`).FindString(all)
	for _, m := range recoveryLine.FindAllStringSubmatch(all, -1) {
		s.recovery = append(s.recovery, m[1])
	}
	if len(s.recovery) == 0 {
		t.Fatalf("setup printed no recovery codes:\n%s", all)
	}
	return s
}

// signIn fills the login page: it returns the form to post and its code.
type signIn func() (formID, action, code string)

func (s ownerSecrets) withTOTP() signIn {
	return func() (string, string, string) {
		code, _ := totp.GenerateCode(s.totpSecret, time.Now())
		return "totp-form", "/login/totp", code
	}
}

func (s ownerSecrets) withRecovery(i int) signIn {
	return func() (string, string, string) { return "recovery-form", "/login/recovery", s.recovery[i] }
}

// ownerBrowser is the owner's browser: a cookie jar, same-origin form
// posts, and redirects followed only while they stay on cortex.
type ownerBrowser struct {
	base string
	c    *http.Client
}

func newOwnerBrowser(base string) *ownerBrowser {
	jar, _ := cookiejar.New(nil)
	return &ownerBrowser{base: base, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// visit sends req and follows redirects on cortex. It returns the page it
// ends on, or the first address off cortex it was sent to (not visited).
func (b *ownerBrowser) visit(req *http.Request) (page string, away *url.URL, visited []string, err error) {
	for range 10 {
		visited = append(visited, req.URL.Path)
		resp, err := b.c.Do(req)
		if err != nil {
			return "", nil, visited, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
			if resp.StatusCode != http.StatusOK {
				return "", nil, visited, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, body)
			}
			return string(body), nil, visited, nil
		}
		loc, err := req.URL.Parse(resp.Header.Get("Location"))
		if err != nil {
			return "", nil, visited, err
		}
		if loc.Scheme+"://"+loc.Host != b.base {
			return "", loc, visited, nil
		}
		req, _ = http.NewRequest(http.MethodGet, loc.String(), nil)
	}
	return "", nil, visited, errors.New("too many redirects")
}

func (b *ownerBrowser) post(action string, v url.Values) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, b.base+action, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return req
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// formValues reads the hidden fields of the form with this id.
func formValues(page, id string) (url.Values, bool) {
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		return nil, false
	}
	form := page[i:]
	if j := strings.Index(form, "</form>"); j >= 0 {
		form = form[:j]
	}
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(form, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v, true
}

// approve plays the owner: open the authorization URL, be sent to the login
// page, sign in, read the consent page and press Allow. It returns the
// consent page and where cortex sent the browser back to.
func (b *ownerBrowser) approve(authURL string, login signIn) (consent string, back *url.URL, err error) {
	get, _ := http.NewRequest(http.MethodGet, authURL, nil)
	page, _, visited, err := b.visit(get)
	if err != nil {
		return "", nil, err
	}
	if !slices.Contains(visited, "/login") {
		return "", nil, fmt.Errorf("the app was not sent to the login page (visited %v)", visited)
	}
	formID, action, code := login()
	v, ok := formValues(page, formID)
	if !ok || v.Get("csrf") == "" {
		return "", nil, fmt.Errorf("the login page has no %s with a CSRF token", formID)
	}
	v.Set("code", code)
	if consent, _, _, err = b.visit(b.post(action, v)); err != nil {
		return "", nil, err
	}
	v, ok = formValues(consent, "consent-form")
	if !ok || v.Get("csrf") == "" || v.Get("request") == "" {
		return "", nil, fmt.Errorf("no consent form after sign-in:\n%s", consent)
	}
	v.Set("decision", "approve")
	_, back, _, err = b.visit(b.post("/authorize/consent", v))
	if err == nil && back == nil {
		err = errors.New("approving did not send the browser back to the app")
	}
	return consent, back, err
}

var errOwnerAway = errors.New("the owner did not approve another authorization")

// oauthApp is an MCP client that connects with the go-sdk's client-side
// OAuth: discovery from the 401, dynamic registration, and the owner's
// browser for the authorization code. It records what it was given.
type oauthApp struct {
	t        *testing.T
	in       *instance
	name     string
	redirect string
	browser  *ownerBrowser
	login    signIn
	scope    []string // asked for on the first authorization; nil takes what cortex challenges with
	version  string   // the MCP protocol version the app speaks; "" for the SDK's newest

	mu        sync.Mutex
	approvals int      // authorizations the owner will still approve
	asked     []string // every authorization URL the app sent the owner to
	consent   string   // the last consent page
	code      string   // the last authorization code
	cfg       *oauth2.Config
	tok       *oauth2.Token
}

func (a *oauthApp) fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, args.URL)
	if a.approvals == 0 {
		a.mu.Unlock()
		return nil, errOwnerAway
	}
	a.approvals--
	a.mu.Unlock()
	consent, back, err := a.browser.approve(args.URL, a.login)
	if err != nil {
		return nil, err
	}
	if got := back.Scheme + "://" + back.Host + back.Path; got != a.redirect {
		return nil, fmt.Errorf("sent back to %s, want %s", got, a.redirect)
	}
	q := back.Query()
	for _, k := range []string{"code", "state", "iss"} {
		if len(q[k]) != 1 {
			return nil, fmt.Errorf("the redirect carries %s %d times: %s", k, len(q[k]), back)
		}
	}
	if q.Get("iss") != a.in.URL {
		return nil, fmt.Errorf("iss = %q, want %q", q.Get("iss"), a.in.URL)
	}
	a.mu.Lock()
	a.consent, a.code = consent, q.Get("code")
	a.mu.Unlock()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

func (a *oauthApp) connect(ctx context.Context) *mcp.ClientSession {
	a.t.Helper()
	first := true
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: a.name, RedirectURIs: []string{a.redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		AuthorizationCodeFetcher: a.fetchCode,
		ScopeFilter: func(discovered []string) []string {
			a.mu.Lock()
			defer a.mu.Unlock()
			if first && a.scope != nil {
				first = false
				return a.scope
			}
			return discovered
		},
		Client: &http.Client{Timeout: 30 * time.Second},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			a.mu.Lock()
			a.cfg, a.tok = c, tok
			a.mu.Unlock()
			return c.TokenSource(ctx, tok), nil
		},
	})
	if err != nil {
		a.t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: a.name, Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.in.URL + "/mcp",
		HTTPClient: &http.Client{Timeout: 30 * time.Second}, OAuthHandler: h, MaxRetries: -1, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: a.version})
	if err != nil {
		a.t.Fatalf("connect through OAuth: %v\n%s", err, a.in.logs.String())
	}
	a.t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; a.version != "" && got != a.version {
		a.t.Fatalf("connected with %s, want %s", got, a.version)
	}
	if a.cfg == nil || a.tok == nil || a.tok.AccessToken == "" || a.tok.RefreshToken == "" {
		a.t.Fatalf("no access and refresh token after connecting: %+v", a.tok)
	}
	return cs
}

// mcpStatus posts body to /mcp with tok and returns the status and challenge.
func mcpStatus(t *testing.T, in *instance, tok, body string) (int, string) {
	t.Helper()
	resp := in.postMCP(tok, body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// wantRefused checks that tok no longer opens /mcp: 401 with error="invalid_token".
func wantRefused(t *testing.T, in *instance, what, tok string) {
	t.Helper()
	code, challenge := mcpStatus(t, in, tok, mcpInitialize)
	if code != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) ||
		!strings.Contains(challenge, `resource_metadata="`+in.URL+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("%s: %d %q; want 401 with error=\"invalid_token\"", what, code, challenge)
	}
}

// tokenError posts form to /token and decodes an RFC 6749 error answer.
func tokenError(t *testing.T, in *instance, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(in.URL+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error string `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error
}

// clientRow returns the `clients list` row of the client id, if any.
func clientRow(t *testing.T, in *instance, id string) []string {
	t.Helper()
	out, errOut, err := in.admin("clients", "list")
	if err != nil {
		t.Fatalf("clients list: %v\n%s", err, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == id {
			return f
		}
	}
	return nil
}

func TestOAuthAppSignsInWritesAndRefreshes(t *testing.T) {
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	app := &oauthApp{t: t, in: in, name: "e2e writer", redirect: "http://127.0.0.1:43117/callback",
		browser: newOwnerBrowser(in.URL), login: owner.withTOTP(), approvals: 1, version: "2025-11-25"}
	cs := app.connect(ctx)
	for _, want := range []string{`id="client-name">e2e writer<`, `id="redirect-host">127.0.0.1:43117<`,
		`id="loopback-warning"`, "<code>notes:read</code>", "<code>notes:write</code>", app.cfg.ClientID} {
		if !strings.Contains(app.consent, want) {
			t.Errorf("the consent page lacks %q", want)
		}
	}

	// Tools over /mcp; the journal names the app with its client id.
	must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "Inbox/From the app.md", "content": "# Hello\n\nWritten over OAuth.\n"}), "create_note")
	f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Inbox/From the app.md"}), "fetch")
	meta, _ := f["metadata"].(map[string]any)
	if lw := str(meta, "last_writer"); !strings.Contains(lw, "e2e writer") || !strings.Contains(lw, app.cfg.ClientID) {
		t.Errorf("last_writer = %q; want the app's name and client id %s", lw, app.cfg.ClientID)
	}
	if row := clientRow(t, in, app.cfg.ClientID); row == nil || row[len(row)-1] != "1" {
		t.Errorf("clients list row = %q; want the app with 1 live grant", row)
	}

	// Refresh with the SDK's own configuration: both tokens rotate.
	hc := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	stale := func(refresh string) *oauth2.Token {
		return &oauth2.Token{RefreshToken: refresh, Expiry: time.Now().Add(-time.Minute)}
	}
	first := app.tok
	second, err := app.cfg.TokenSource(hc, stale(first.RefreshToken)).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || second.RefreshToken == "" {
		t.Fatal("refresh did not rotate both tokens")
	}
	if code, _ := mcpStatus(t, in, second.AccessToken, mcpInitialize); code != http.StatusOK {
		t.Fatalf("the refreshed access token gets %d on /mcp", code)
	}
	// Within the grace window the spent token gives the same pair again
	// (clients that refresh twice at once) and revokes nothing.
	again, err := app.cfg.TokenSource(hc, stale(first.RefreshToken)).Token()
	if err != nil || again.AccessToken != second.AccessToken || again.RefreshToken != second.RefreshToken {
		t.Fatalf("replay within the grace window: %v; want the same successor pair", err)
	}
	if code, _ := mcpStatus(t, in, second.AccessToken, mcpInitialize); code != http.StatusOK {
		t.Fatalf("a replay within the grace window revoked the family (%d)", code)
	}

	// A replayed one-time secret revokes the whole family.
	var re *oauth2.RetrieveError
	if *waitRefreshGrace {
		select {
		case <-time.After(31 * time.Second):
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		_, err = app.cfg.TokenSource(hc, stale(first.RefreshToken)).Token()
		if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
			t.Fatalf("refresh token replayed after the grace window: %v; want invalid_grant", err)
		}
	} else {
		code, e := tokenError(t, in, url.Values{"grant_type": {"authorization_code"}, "code": {app.code},
			"redirect_uri": {app.redirect}, "client_id": {app.cfg.ClientID}, "code_verifier": {strings.Repeat("v", 43)}})
		if code != http.StatusBadRequest || e != "invalid_grant" {
			t.Fatalf("authorization code replayed: %d %q; want 400 invalid_grant", code, e)
		}
	}
	wantRefused(t, in, "the first access token of the revoked family", first.AccessToken)
	wantRefused(t, in, "the newest access token of the revoked family", second.AccessToken)
	if _, err := app.cfg.TokenSource(hc, stale(second.RefreshToken)).Token(); !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("the newest refresh token of the revoked family: %v; want invalid_grant", err)
	}
	if row := clientRow(t, in, app.cfg.ClientID); row == nil || row[len(row)-1] != "0" {
		t.Errorf("clients list row after revocation = %q; want the app with 0 live grants", row)
	}
	for what, secret := range map[string]string{"an access token": first.AccessToken, "a refresh token": first.RefreshToken,
		"the authorization code": app.code, "the TOTP secret": owner.totpSecret} {
		if strings.Contains(in.logs.String(), secret) {
			t.Errorf("the server log contains %s", what)
		}
	}
}

func TestOAuthReadOnlyGrantAndConsoleRevoke(t *testing.T) {
	in := newInstance(t)
	if err := os.MkdirAll(in.Vault, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in.Vault, "Shopping.md"), []byte("# Shopping\n\nBread.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in.start()
	owner := setupOwner(t, in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The owner signs in with a recovery code this time and grants reading only.
	app := &oauthApp{t: t, in: in, name: "e2e reader", redirect: "http://localhost:43118/cb",
		browser: newOwnerBrowser(in.URL), login: owner.withRecovery(0), scope: []string{"notes:read"}, approvals: 1,
		version: "2026-07-28"}
	cs := app.connect(ctx)
	if !strings.Contains(app.consent, "<code>notes:read</code>") || strings.Contains(app.consent, "notes:write") {
		t.Errorf("the consent page should list notes:read alone:\n%s", app.consent)
	}
	if f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Shopping.md"}), "fetch"); !strings.Contains(str(f, "text"), "Bread.") {
		t.Errorf("fetch = %v", f)
	}

	// A write is refused with 403 insufficient_scope; the SDK asks the owner
	// to step up to notes:write, and the owner does not.
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": "Nope.md", "content": "x"}}); err == nil {
		t.Fatalf("create_note with notes:read succeeded: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(in.Vault, "Nope.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only app wrote a note: %v", err)
	}
	app.mu.Lock()
	asked := slices.Clone(app.asked)
	app.mu.Unlock()
	if len(asked) != 2 || !strings.Contains(asked[1], "notes%3Awrite") {
		t.Errorf("authorizations asked = %q; want a second one, for notes:write", asked)
	}
	code, challenge := mcpStatus(t, in, app.tok.AccessToken,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"path":"Nope.md","content":"x"}}}`)
	if code != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="notes:read notes:write"`) {
		t.Errorf("create_note with notes:read: %d %q; want 403 insufficient_scope for notes:write", code, challenge)
	}
	// Nor can the call be dressed as a read: the SDK takes "name" in its
	// exact case and the first JSON value alone, and so does the check.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","Name":"fetch","arguments":{"path":"Nope.md","content":"x"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_note","arguments":{"path":"Nope.md","content":"x"}},"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_note","arguments":{"path":"Nope.md","content":"x"}}} x`,
	} {
		if code, _ := mcpStatus(t, in, app.tok.AccessToken, body); code != http.StatusForbidden {
			t.Errorf("%s with notes:read: %d; want 403", body, code)
		}
	}
	if _, err := os.Stat(filepath.Join(in.Vault, "Nope.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only app wrote a note: %v", err)
	}
	if f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Shopping.md"}), "fetch after the refusal"); str(f, "title") != "Shopping" {
		t.Errorf("fetch = %v", f)
	}

	// The console lists the app and revoking it ends its token at once.
	row := clientRow(t, in, app.cfg.ClientID)
	if row == nil || !strings.Contains(strings.Join(row, " "), "e2e reader") || row[len(row)-1] != "1" {
		t.Fatalf("clients list row = %q; want e2e reader with 1 live grant", row)
	}
	if _, errOut, err := in.admin("clients", "revoke", app.cfg.ClientID); err != nil {
		t.Fatalf("clients revoke: %v\n%s", err, errOut)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "Shopping.md"}}); err == nil {
		t.Error("the revoked app still fetches in its open session")
	}
	wantRefused(t, in, "the revoked app's access token", app.tok.AccessToken)
	if row := clientRow(t, in, app.cfg.ClientID); row != nil {
		t.Errorf("clients list still shows the revoked app: %q", row)
	}
	hc := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	_, err := app.cfg.TokenSource(hc, &oauth2.Token{RefreshToken: app.tok.RefreshToken, Expiry: time.Now().Add(-time.Minute)}).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || (re.ErrorCode != "invalid_client" && re.ErrorCode != "invalid_grant") {
		t.Errorf("refresh by the revoked app: %v; want invalid_client or invalid_grant", err)
	}
}

// TestOAuthAtEveryProtocolVersion connects an app through the go-sdk's
// client-side OAuth at every protocol version cortex serves: each is
// registered, approved by the owner, writes a note journaled under its
// name, and reads it back the same way as at the newest version.
func TestOAuthAtEveryProtocolVersion(t *testing.T) {
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var first string
	for i, v := range protocolVersions {
		app := &oauthApp{t: t, in: in, name: "app " + v, redirect: fmt.Sprintf("http://127.0.0.1:%d/callback", 43200+i),
			browser: newOwnerBrowser(in.URL), login: owner.withRecovery(i), approvals: 1, version: v}
		cs := app.connect(ctx)
		path := "OAuth/" + v + ".md"
		must(t, call(t, ctx, cs, "create_note", map[string]any{"path": path, "content": "# Same\n"}), "create_note")
		f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": path}), "fetch")
		meta, _ := f["metadata"].(map[string]any)
		if lw := str(meta, "last_writer"); !strings.Contains(lw, app.name) || !strings.Contains(lw, app.cfg.ClientID) {
			t.Errorf("%s: last_writer = %q; want the app's name and client id", v, lw)
		}
		if got := str(f, "text"); first == "" {
			first = got
		} else if got != first {
			t.Errorf("%s: fetch text %q, want %q as at %s", v, got, first, protocolVersions[0])
		}
	}
}

// TestRefreshAfterPublicURLChange: a grant is for the /mcp URL it was
// approved at. Once cortex serves another public URL (here a restart on
// another port), its refresh token is refused with invalid_grant, so that
// the app authorizes again instead of refreshing into tokens /mcp refuses;
// connecting anew works.
func TestRefreshAfterPublicURLChange(t *testing.T) {
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	app := &oauthApp{t: t, in: in, name: "mover", redirect: "http://127.0.0.1:43130/callback",
		browser: newOwnerBrowser(in.URL), login: owner.withRecovery(0), approvals: 1, version: "2026-07-28"}
	app.connect(ctx)
	old := in.URL
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	in.start()
	if in.URL == old {
		t.Fatalf("the public URL did not change: %s", in.URL)
	}
	resp, err := http.PostForm(in.URL+"/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {app.tok.RefreshToken}, "client_id": {app.cfg.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || e.Error != "invalid_grant" || !strings.Contains(e.Description, "authorize again") {
		t.Errorf("refresh after the public URL changed: %d %+v; want 400 invalid_grant saying to authorize again", resp.StatusCode, e)
	}
	wantRefused(t, in, "an access token for the old URL", app.tok.AccessToken)
	again := &oauthApp{t: t, in: in, name: "mover", redirect: "http://127.0.0.1:43130/callback",
		browser: newOwnerBrowser(in.URL), login: owner.withRecovery(1), approvals: 1, version: "2026-07-28"}
	must(t, call(t, ctx, again.connect(ctx), "list", map[string]any{}), "list at the new URL")
}

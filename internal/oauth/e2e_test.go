package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

type whoami struct {
	App string `json:"app"`
}

// mcpEndpoint is /mcp as cmd/cortex wires it: a 401 with cortex's
// challenge unless the access token verifies, then the SDK's handler with
// the token's identity.
func mcpEndpoint(h *harness) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "cortex-test", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "the app calling"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoami, error) {
			app, _ := req.Extra.TokenInfo.Extra["app"].(string)
			return nil, whoami{App: app}, nil
		})
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	verify := func(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		id, err := h.srv.VerifyAccessToken(ctx, tok)
		if err != nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: id.Scopes, Expiration: id.Expires, UserID: id.Subject, Extra: map[string]any{"app": id.App}}, nil
	}
	sdk := auth.RequireBearerToken(verify, nil)(stream)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := strings.Fields(r.Header.Get("Authorization"))
		if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
			w.Header().Set("WWW-Authenticate", h.srv.Challenge(false))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if _, err := h.srv.VerifyAccessToken(r.Context(), f[1]); err != nil {
			w.Header().Set("WWW-Authenticate", h.srv.Challenge(true))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	})
}

var (
	e2eCSRF    = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	e2eReturn  = regexp.MustCompile(`name="return" value="([^"]+)"`)
	e2eRequest = regexp.MustCompile(`name="request" value="([^"]+)"`)
)

// ownerBrowser approves the authorization request at authURL the way the
// owner does in a browser: sent to the login page, signs in with a TOTP
// code, sees the consent page and presses Allow. It returns where cortex
// sent the browser back to the app.
func ownerBrowser(t *testing.T, h *harness, ts *httptest.Server, authURL string) (*url.URL, error) {
	jar, _ := cookiejar.New(nil)
	c := *ts.Client()
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var sawLogin bool
	do := func(req *http.Request) (string, *url.URL, error) {
		for range 10 {
			resp, err := c.Do(req)
			if err != nil {
				return "", nil, err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				if resp.StatusCode != http.StatusOK {
					return "", nil, fmt.Errorf("%s: %d %s", req.URL.Path, resp.StatusCode, body)
				}
				return string(body), nil, nil
			}
			loc, _ := req.URL.Parse(resp.Header.Get("Location"))
			if loc.Host != req.URL.Host {
				return "", loc, nil
			}
			sawLogin = sawLogin || loc.Path == "/login"
			req, _ = http.NewRequest(http.MethodGet, loc.String(), nil)
		}
		return "", nil, errors.New("too many redirects")
	}
	form := func(path string, v url.Values) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req
	}
	get, _ := http.NewRequest(http.MethodGet, authURL, nil)
	page, _, err := do(get)
	if err != nil {
		return nil, err
	}
	if !sawLogin || !strings.Contains(page, `id="totp-form"`) {
		return nil, errors.New("the app was not sent to the login page")
	}
	page, _, err = do(form("/login/totp", url.Values{"code": {h.code()}, "csrf": {match(e2eCSRF, page)},
		"return": {html.UnescapeString(match(e2eReturn, page))}}))
	if err != nil {
		return nil, err
	}
	if !strings.Contains(page, `id="consent-form"`) {
		return nil, errors.New("no consent page after sign-in")
	}
	_, back, err := do(form("/authorize/consent", url.Values{"decision": {"approve"}, "csrf": {match(e2eCSRF, page)},
		"request": {match(e2eRequest, page)}}))
	return back, err
}

func match(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

func TestEndToEndWithSDKClient(t *testing.T) {
	ctx := t.Context()
	var handler http.Handler
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	defer ts.Close()
	h := newHarnessAt(t, ts.URL, nil)
	// The SDK checks token expiry against the real time; the test clock
	// starts there and is moved by hand from then on.
	h.clk.Advance(time.Since(h.clk.Now()))
	h.mux.Handle("/mcp", mcpEndpoint(h))
	handler = h.mux

	var cfg *oauth2.Config
	var first *oauth2.Token
	redirect := "http://127.0.0.1:43117/callback"
	oh, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "e2e agent", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			back, err := ownerBrowser(t, h, ts, args.URL)
			if err != nil {
				return nil, err
			}
			if got := back.Scheme + "://" + back.Host + back.Path; got != redirect {
				return nil, fmt.Errorf("sent back to %s", got)
			}
			q := back.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
		Client: ts.Client(),
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			cfg, first = c, tok
			return c.TokenSource(ctx, tok), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: ts.Client(),
		OAuthHandler: oh, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect through OAuth: %v", err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	app := res.StructuredContent.(map[string]any)["app"].(string)
	if !strings.HasPrefix(app, "e2e agent (cx_") {
		t.Fatalf("journal name %q", app)
	}
	if first == nil || first.RefreshToken == "" {
		t.Fatal("no refresh token issued")
	}

	// Refresh with the SDK's own OAuth configuration.
	hc := context.WithValue(ctx, oauth2.HTTPClient, ts.Client())
	stale := &oauth2.Token{RefreshToken: first.RefreshToken, Expiry: time.Now().Add(-time.Minute)}
	second, err := cfg.TokenSource(hc, stale).Token()
	if err != nil || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Fatalf("refresh: %v", err)
	}
	if status(t, ts, second.AccessToken) != http.StatusOK {
		t.Fatal("refreshed access token refused on /mcp")
	}
	// The old refresh token again, after the grace window: the whole
	// family is revoked, the current tokens included.
	h.clk.Advance(31 * time.Second)
	_, err = cfg.TokenSource(hc, stale).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("replayed refresh token: %v", err)
	}
	for _, tok := range []string{first.AccessToken, second.AccessToken} {
		if status(t, ts, tok) != http.StatusUnauthorized {
			t.Error("a token of the revoked family still opens /mcp")
		}
	}
	if _, err := cfg.TokenSource(hc, &oauth2.Token{RefreshToken: second.RefreshToken, Expiry: stale.Expiry}).Token(); err == nil {
		t.Error("the newest refresh token of the revoked family still works")
	}
}

// status posts an MCP initialize to /mcp with tok and returns the status;
// a 401 must carry cortex's challenge with error="invalid_token".
func status(t *testing.T, ts *httptest.Server, tok string) int {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		if c := resp.Header.Get("WWW-Authenticate"); !strings.Contains(c, `error="invalid_token"`) ||
			!strings.Contains(c, `resource_metadata="`+ts.URL+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("challenge %q", c)
		}
	}
	return resp.StatusCode
}

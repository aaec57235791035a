package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// appCallback is the app's redirect endpoint on loopback: it hands every
// request to /cb to the test and shows a page the browser can be seen on.
type appCallback struct {
	srv  *httptest.Server
	hits chan url.Values
}

func newAppCallback(t *testing.T) *appCallback {
	t.Helper()
	a := &appCallback{hits: make(chan url.Values, 8)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cb", func(w http.ResponseWriter, r *http.Request) {
		a.hits <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>app</title><p id="app-done">The app got its answer.</p>`))
	})
	a.srv = httptest.NewServer(mux) // 127.0.0.1:0
	t.Cleanup(a.srv.Close)
	return a
}

// next waits for the browser to reach the callback.
func (a *appCallback) next(ctx context.Context, t *testing.T) url.Values {
	t.Helper()
	select {
	case q := <-a.hits:
		return q
	case <-ctx.Done():
		t.Fatalf("the browser never reached the app's callback: %v", ctx.Err())
		return nil
	}
}

// registerPublicClient registers a client without a secret through /register.
func registerPublicClient(t *testing.T, in *instance, name, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}})
	resp, err := http.Post(in.URL+"/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusCreated || got.ClientID == "" {
		t.Fatalf("register: %d %v %+v", resp.StatusCode, err, got)
	}
	return got.ClientID
}

// TestConsentBrowser drives the consent page of the real binary in headless
// Chromium: the owner signs in with TOTP, reads who asks and where the
// answer goes, and allows (then, for a second request, denies). The page's
// CSP must let the form's redirect reach the app on loopback.
func TestConsentBrowser(t *testing.T) {
	testkit.Chromium(t) // skip before any setup when there is none
	in := newInstance(t)
	for _, dir := range []string{"Journal", "Work"} {
		if err := os.MkdirAll(filepath.Join(in.Vault, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in.start()
	owner := setupOwner(t, in)
	app := newAppCallback(t)
	redirect := app.srv.URL + "/cb"
	clientID := registerPublicClient(t, in, "e2e browser app", redirect)

	tab := testkit.NewTab(t, 2*time.Minute, in.logs)
	ctx, do, text, location := tab.Ctx, tab.Do, tab.Text, tab.Location

	authorizeURL := func(state, verifier string) string {
		return in.URL + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {clientID},
			"redirect_uri": {redirect}, "state": {state}, "scope": {"notes:read notes:write"},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"},
			"resource": {in.URL + "/mcp"}}.Encode()
	}
	// answered checks what the app was sent, and that it was sent once:
	// by the time the browser shows the app's page, every request it made
	// to the callback has been handled.
	answered := func(state string) url.Values {
		t.Helper()
		q := app.next(ctx, t)
		do("show the app's page", chromedp.WaitVisible(chromedp.CSS("#app-done")))
		if extra := len(app.hits); extra != 0 {
			t.Errorf("the app's callback was called %d more times", extra)
		}
		if !strings.HasPrefix(location(), redirect+"?") {
			t.Errorf("the browser is at %s; want the app's callback", location())
		}
		for _, k := range []string{"state", "iss"} {
			if len(q[k]) != 1 {
				t.Errorf("the callback carries %s %d times: %v", k, len(q[k]), q)
			}
		}
		if q.Get("state") != state || q.Get("iss") != in.URL {
			t.Errorf("state, iss = %q, %q; want %q, %q", q.Get("state"), q.Get("iss"), state, in.URL)
		}
		return q
	}

	// Allow: sign in with TOTP on the way, read the consent page, approve.
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	code := testkit.TOTP(t, owner.totpSecret, time.Now())
	do("sign in", chromedp.Navigate(authorizeURL(state, verifier)),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#approve")),
	)
	if u, _ := url.Parse(location()); u == nil || u.Path != "/authorize/consent" {
		t.Errorf("after sign-in the browser is at %s; want the consent page", location())
	}
	for sel, want := range map[string]string{"#client-name": "e2e browser app",
		"#redirect-host": strings.TrimPrefix(app.srv.URL, "http://"), "#client-id": clientID} {
		if got := text(sel); got != want {
			t.Errorf("consent page %s = %q; want %q", sel, got, want)
		}
	}
	do("see the loopback warning", chromedp.WaitVisible(chromedp.CSS("#loopback-warning")))
	if got := text("#loopback-warning"); !strings.Contains(got, "local address") {
		t.Errorf("loopback warning = %q", got)
	}
	if got := text("#scopes"); !strings.Contains(got, "notes:read") || !strings.Contains(got, "notes:write") {
		t.Errorf("consent page scopes = %q; want notes:read and notes:write", got)
	}
	// Choose what it may use: Journal to read, Work to change, and the
	// private notes.
	if got := text("#folders"); !strings.Contains(got, "Journal/") || !strings.Contains(got, "Work/") {
		t.Errorf("consent page folders = %q; want Journal/ and Work/", got)
	}
	do("choose folders", chromedp.Click(chromedp.CSS("#access-folders")),
		chromedp.Click(chromedp.CSS(`input[name="read"][value="Journal"]`)),
		chromedp.Click(chromedp.CSS(`input[name="write"][value="Work"]`)),
		chromedp.Click(chromedp.CSS("#private")))
	do("approve", chromedp.Click(chromedp.CSS("#approve")))
	q := answered(state)
	if len(q["code"]) != 1 || q.Get("code") == "" || q.Has("error") {
		t.Fatalf("approval sent %v; want a code and no error", q)
	}

	// The app redeems the code with its verifier.
	resp, err := http.PostForm(in.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}, "resource": {in.URL + "/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || tok.AccessToken == "" || tok.TokenType != "Bearer" {
		t.Fatalf("token exchange: %d %v %+v", resp.StatusCode, err, tok)
	}
	if status, _ := mcpStatus(t, in, tok.AccessToken, mcpInitialize); status != http.StatusOK {
		t.Errorf("the issued access token gets %d on /mcp", status)
	}
	if out, _, err := in.admin("clients", "show", clientID); err != nil || !strings.Contains(out, "read Journal, Work; write Work, private notes included\n") {
		t.Errorf("the chosen scope is not the app's: %v\n%s", err, out)
	}

	// Deny: the owner is still signed in, so the consent page comes at once.
	state, verifier = rand.Text(), oauth2.GenerateVerifier()
	do("open a second request", chromedp.Navigate(authorizeURL(state, verifier)),
		chromedp.WaitVisible(chromedp.CSS("#deny")))
	if got := text("#client-name"); got != "e2e browser app" {
		t.Errorf("second consent page names %q", got)
	}
	do("deny", chromedp.Click(chromedp.CSS("#deny")))
	q = answered(state)
	if q.Get("error") != "access_denied" || q.Has("code") {
		t.Errorf("denial sent %v; want error=access_denied and no code", q)
	}
	if strings.Contains(in.logs.String(), tok.AccessToken) {
		t.Error("the server log contains the access token")
	}
}

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestConsentScopeLeaksNothing is the leak test for an app: the owner
// chooses its folders on the consent page in Chromium (read Work and
// Notes, change Work/Drafts/), and the app's calls, before and after a
// refresh, carry no word of a note outside that choice.
func TestConsentScopeLeaksNothing(t *testing.T) {
	testkit.Chromium(t) // skip before any setup when there is none
	in := newInstance(t)
	words := writeLeakVault(t, in.Vault)
	in.start("--deny", leakDeny(), "--private", leakPrivate, "--rate-limit", "1000000")
	owner := setupOwner(t, in)
	app := newAppCallback(t)
	redirect := app.srv.URL + "/cb"
	clientID := registerPublicClient(t, in, "leak app", redirect)

	tab := testkit.NewTab(t, 2*time.Minute, in.logs)
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	authorize := in.URL + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {clientID},
		"redirect_uri": {redirect}, "state": {state}, "scope": {"notes:read notes:write"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"},
		"resource": {in.URL + "/mcp"}}.Encode()
	tab.Do("sign in", chromedp.Navigate(authorize),
		chromedp.WaitVisible(chromedp.CSS("#totp-code")),
		chromedp.SendKeys(chromedp.CSS("#totp-code"), testkit.TOTP(t, owner.totpSecret, time.Now())),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#approve")))
	tab.Do("choose folders", chromedp.Click(chromedp.CSS("#access-folders")),
		chromedp.Click(chromedp.CSS(`input[name="read"][value="Work"]`)),
		chromedp.Click(chromedp.CSS(`input[name="read"][value="Notes"]`)),
		chromedp.SendKeys(chromedp.CSS("#write-patterns"), leakWrite))
	tab.Do("approve", chromedp.Click(chromedp.CSS("#approve")))
	q := app.next(tab.Ctx, t)
	if q.Get("state") != state || q.Get("code") == "" {
		t.Fatalf("approval sent %v; want a code", q)
	}

	// The token endpoint's answers are read for canaries too.
	tokenWatch := &leakWatch{words: words, base: http.DefaultTransport}
	tok := exchange(t, tokenWatch, in.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}, "resource": {in.URL + "/mcp"}})
	if out, _, err := in.admin("clients", "show", clientID); err != nil || !strings.Contains(out, "write Work/Drafts") {
		t.Errorf("the chosen scope is not the app's: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newLeakWatch(words, tok.AccessToken)
	r := &leakRun{t: t, ctx: ctx, cs: connectWatched(t, ctx, in, w, ""), used: map[string]bool{}}
	before := vaultSnapshot(t, in.Vault)
	r.reads()
	r.fuzz(mrand.New(mrand.NewPCG(19, 7)), 100)
	if diff := snapshotDiff(before, vaultSnapshot(t, in.Vault)); len(diff) > 0 {
		t.Errorf("the app's refused calls changed the vault: %v", diff)
	}
	w.report(t, "app")

	// A refreshed token keeps the scope.
	tok = exchange(t, tokenWatch, in.URL+"/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok.RefreshToken}, "client_id": {clientID}, "resource": {in.URL + "/mcp"}})
	tokenWatch.report(t, "token endpoint")
	w = newLeakWatch(words, tok.AccessToken)
	r.cs = connectWatched(t, ctx, in, w, "")
	r.want("", "fetch", map[string]any{"id": "Work/Plan.md"})
	r.want("not_found", "fetch", map[string]any{"id": hiddenFolder() + "/Ledger.md"})
	r.want("not_found", "fetch", map[string]any{"id": "Diary"})
	r.want("outside_scope", "create_note", map[string]any{"path": "Work/New.md", "content": "# New\n"})
	r.want("", "create_note", map[string]any{"path": "Work/Drafts/From app.md", "content": "# From the app\n"})
	if got := r.pages("search", map[string]any{"query": "gardens"}); !slices.Equal(got, []string{"Notes/Reading.md"}) {
		t.Errorf("after a refresh, search gardens finds %v; want Notes/Reading.md alone", got)
	}

	// The owner widens the app's scope: effective on its next request.
	r.want("not_found", "fetch", map[string]any{"id": "Later/Soon.md"})
	if _, errOut, err := in.admin("clients", "scope", clientID, "--read", leakRead+",Later/"); err != nil {
		t.Fatalf("clients scope: %v\n%s", err, errOut)
	}
	r.want("", "fetch", map[string]any{"id": "Later/Soon.md"})
	w.report(t, "app after refresh")
}

// oauthTokens is a token endpoint's answer.
type oauthTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// exchange posts form to the token endpoint through w.
func exchange(t *testing.T, w *leakWatch, endpoint string, form url.Values) oauthTokens {
	t.Helper()
	resp, err := (&http.Client{Transport: w, Timeout: 20 * time.Second}).PostForm(endpoint, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok oauthTokens
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK || tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token endpoint (%s): %d %v %+v", form.Get("grant_type"), resp.StatusCode, err, tok)
	}
	return tok
}

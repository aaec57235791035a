package admin

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/web"
)

// TestOwnerInRealBrowser is the owner's whole life in headless Chromium with
// a virtual platform authenticator: `cortex admin setup` prints a TOTP URI,
// recovery codes and a one-time link; the browser enrols a passkey through
// the link, then signs in with the passkey, with TOTP and with a recovery
// code, and a reused recovery code is refused.
func TestOwnerInRealBrowser(t *testing.T) {
	testkit.Chromium(t) // skip before any setup when there is none
	clk := testkit.NewClock(time.Now().Truncate(time.Second))
	state := t.TempDir()

	ln := testkit.Listen(t)
	// WebAuthn needs a DNS name: the browser visits localhost, the listener
	// is on 127.0.0.1.
	publicURL := "http://localhost:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")

	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, StateDir: state, Now: clk.Now}
	if code := Run(context.Background(), env, []string{"setup", "--public-url", publicURL}); code != 0 {
		t.Fatalf("cortex admin setup exited %d:\n%s", code, errOut.String())
	}
	totpSecret := regexp.MustCompile(`otpauth://totp/\S*secret=([A-Z2-7]+)`).FindStringSubmatch(out.String())
	link := regexp.MustCompile(`http://localhost:\d+/enrol#[A-Za-z0-9_-]{43}`).FindString(out.String())
	codes := regexp.MustCompile(`(?m)^\s+\d+\. ([0-9A-Z-]{19})$`).FindAllStringSubmatch(out.String(), -1)
	if totpSecret == nil || link == "" || len(codes) != 10 {
		t.Fatalf("setup output lacks the URI, link or ten codes:\n%s", out.String())
	}
	code := func() string {
		return testkit.TOTP(t, totpSecret[1], clk.Now())
	}

	st, err := store.Open(context.Background(), state, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o, err := owner.New(owner.Options{Store: st, PublicURL: config.MustParsePublicURL(publicURL), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	// The owner's pages behind the real route table and edge checks.
	site, err := web.New(web.Options{
		PublicURL:    config.MustParsePublicURL(publicURL),
		Owner:        o,
		Verify:       func(context.Context, string) (web.Identity, error) { return web.Identity{}, web.ErrUnknownToken },
		NewMCPServer: func(*http.Request) *mcp.Server { return mcp.NewServer(&mcp.Implementation{Name: "test"}, nil) },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(site.Handler())
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	tab := testkit.NewTab(t, 2*time.Minute, nil)
	ctx, text, do := tab.Ctx, tab.Text, tab.Do

	tab.AddPasskeyAuthenticator()

	// Enrol a passkey through the console link, with a TOTP code.
	do("enrol", chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS("#enrol-code")),
		chromedp.SendKeys(chromedp.CSS("#enrol-code"), code()),
		chromedp.SendKeys(chromedp.CSS("#enrol-name"), "laptop"),
		chromedp.Click(chromedp.CSS("#enrol-submit")),
		chromedp.WaitVisible(chromedp.CSS("#done")),
	)
	if got := text("#done"); !strings.Contains(got, "laptop") {
		t.Fatalf("enrolment said %q", got)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); strings.Contains(loc, "#") {
		t.Errorf("the link secret stayed in the address bar: %s", loc)
	}
	if keys, err := st.Passkeys(context.Background()); err != nil || len(keys) != 1 || keys[0].Name != "laptop" {
		t.Fatalf("passkeys after enrolment: %+v %v", keys, err)
	}

	// Sign in with the passkey.
	clk.Advance(30 * time.Second)
	do("passkey login", chromedp.Navigate(publicURL+"/login"),
		chromedp.Click(chromedp.CSS("#passkey-login")),
		chromedp.WaitVisible(chromedp.CSS("#signed-in")),
	)
	if got := text("#signed-in"); !strings.Contains(got, "passkey") {
		t.Fatalf("after passkey login: %q", got)
	}
	if keys, _ := st.Passkeys(context.Background()); keys[0].LastUsed.IsZero() {
		t.Error("passkey login did not record its use")
	}

	// Sign out, then in with TOTP.
	// The sign-in form is filled on a page loaded after the sign-out
	// has finished: filled while the sign-out's redirect was still
	// loading, the field could be swapped out under the keys.
	signOut := func() {
		do("logout", chromedp.Click(chromedp.CSS("#logout")), chromedp.WaitNotPresent(chromedp.CSS("#signed-in")),
			chromedp.Navigate(publicURL+"/login"), chromedp.WaitVisible(chromedp.CSS("#totp-code")))
	}
	signOut()
	do("totp login",
		chromedp.SendKeys(chromedp.CSS("#totp-code"), code()),
		chromedp.Click(chromedp.CSS("#totp-submit")),
		chromedp.WaitVisible(chromedp.CSS("#signed-in")),
	)
	if got := text("#signed-in"); !strings.Contains(got, "totp") {
		t.Fatalf("after TOTP login: %q", got)
	}

	// Sign out, then in with a recovery code, typed in lower case. Each
	// submit replaces the page, so every step after one waits for an element
	// that only the new page has (outcome is #signed-in or #error): an
	// element both pages share, such as main, can match the old page while
	// it is being torn down, and acting on it fails with "Could not find
	// node with given id".
	recovery := codes[3][1]
	signInWithRecovery := func(what, outcome string) {
		signOut()
		do(what, chromedp.Click(chromedp.CSS("details summary")),
			chromedp.WaitVisible(chromedp.CSS("#recovery-code")),
			chromedp.SendKeys(chromedp.CSS("#recovery-code"), strings.ToLower(recovery)),
			chromedp.Click(chromedp.CSS("#recovery-submit")),
			chromedp.WaitVisible(chromedp.CSS(outcome)),
		)
	}
	signInWithRecovery("recovery login", "#signed-in")
	if got := text("#signed-in"); !strings.Contains(got, "recovery") {
		t.Fatalf("after recovery login: %q", got)
	}

	// The same code again is refused.
	signInWithRecovery("reused recovery code", "#error")
	if got := text("#error"); !strings.Contains(got, "not accepted") {
		t.Fatalf("reused recovery code: %q", got)
	}
	if _, ok := o.Session(&http.Request{Header: http.Header{}}); ok {
		t.Fatal("a request without cookies has a session")
	}
}

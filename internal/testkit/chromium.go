package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser binary for tests that drive a real browser.
// Without one it skips the test, except in CI (CI=true), where .ci/run
// installs one and its absence is a failure.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH; CI must install the Debian package chromium")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the browser test runs in CI")
	return ""
}

// Browser starts a headless Chromium with a fresh profile and returns a
// chromedp context driving its first tab. The browser ends when the test
// does or after timeout, whichever comes first. Without Chromium the test
// is skipped (failed in CI), as with Chromium.
func Browser(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	chromium := Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(ctx)
	t.Cleanup(cancelCtx)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// Tab is the first tab of a headless Chromium (see Browser) with the steps
// browser tests take. A step that fails fails the test, with Log's text
// (the server's log) when Log is set.
type Tab struct {
	Ctx context.Context
	Log fmt.Stringer
	t   testing.TB
}

// NewTab starts the browser as Browser does and returns its tab.
func NewTab(t testing.TB, timeout time.Duration, log fmt.Stringer) *Tab {
	t.Helper()
	return &Tab{Ctx: Browser(t, timeout), Log: log, t: t}
}

// Do runs steps; what names them in a failure.
func (p *Tab) Do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.Ctx, steps...); err != nil {
		log := ""
		if p.Log != nil {
			log = "\n" + p.Log.String()
		}
		p.t.Fatalf("%s: %v%s", what, err, log)
	}
}

// Text is the visible text of the element sel selects, trimmed.
func (p *Tab) Text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.Ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("read %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// Location is the URL the tab shows.
func (p *Tab) Location() string {
	p.t.Helper()
	loc, err := chromedp.Run(p.Ctx, chromedp.Location())
	if err != nil {
		p.t.Fatalf("location: %v", err)
	}
	return loc
}

// Count is how many elements sel selects.
func (p *Tab) Count(sel string) int {
	p.t.Helper()
	n, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		p.t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// AddPasskeyAuthenticator gives the browser a virtual platform
// authenticator that holds resident keys and verifies its user without
// asking, so passkey ceremonies complete on their own.
func (p *Tab) AddPasskeyAuthenticator() {
	p.t.Helper()
	if _, err := chromedp.Call(p.Ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		p.t.Fatalf("enable webauthn: %v", err)
	}
	if _, err := chromedp.Call(p.Ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol:                    webauthn.AuthenticatorProtocolCtap2,
			Transport:                   webauthn.AuthenticatorTransportInternal,
			HasResidentKey:              true,
			HasUserVerification:         true,
			IsUserVerified:              true,
			AutomaticPresenceSimulation: true,
		},
	}); err != nil {
		p.t.Fatalf("add virtual authenticator: %v", err)
	}
}

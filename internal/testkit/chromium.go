package testkit

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

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

package testkit

import (
	"os"
	"os/exec"
	"testing"
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

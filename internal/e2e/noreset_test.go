package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// No request to the running server, on any route and with any method, may
// create the owner, add a factor or reset anything: that takes the console.
func TestNoWebRouteCreatesOrResetsTheOwner(t *testing.T) {
	in := newInstance(t)
	in.start()
	paths := []string{"/", "/setup", "/admin", "/admin/setup", "/reset", "/owner", "/enrol", "/enrol/passkey/begin",
		"/enrol/passkey/finish", "/login", "/login/totp", "/login/recovery", "/login/passkey/begin", "/login/passkey/finish",
		"/logout", "/authorize", "/authorize/consent", "/token", "/register", "/revoke", "/mcp", "/healthz",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp", "/notes/x.md"}
	bodies := []string{"", "code=123456", `{"force":true}`, "totp=1&recovery=1&secret=x&link=x"}
	probe := func() {
		t.Helper()
		for _, p := range paths {
			for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
				for _, b := range bodies {
					req, _ := http.NewRequest(m, in.URL+p, strings.NewReader(b))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if m != http.MethodGet && resp.StatusCode < 300 && p != "/mcp" {
						t.Logf("%s %s answered %d", m, p, resp.StatusCode)
					}
				}
			}
		}
	}

	probe()
	if _, errOut, err := in.admin("unlock-totp"); err == nil || !strings.Contains(errOut, "no owner") {
		t.Fatalf("an owner exists after web requests alone: %v %s", err, errOut)
	}

	_, errOut, err := in.admin("setup", "--public-url", in.URL)
	if err != nil {
		t.Fatalf("setup: %v %s", err, errOut)
	}
	before, _, _ := in.admin("passkey", "list")
	probe()
	after, _, err := in.admin("passkey", "list")
	if err != nil || after != before {
		t.Errorf("the owner's passkeys changed through the web: %q → %q (%v)", before, after, err)
	}
	// The factors printed by setup still are the only ones: setup without
	// --force still refuses, so the owner was neither reset nor replaced.
	if _, errOut, err := in.admin("setup", "--public-url", in.URL); err == nil || !strings.Contains(errOut, "--force") {
		t.Errorf("setup after web requests: %v %s", err, errOut)
	}
}

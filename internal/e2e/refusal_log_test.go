package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestRefusedSignInIsLoggedWithItsCode: the real binary's request log line
// of a refused sign-in carries the refusal's stable code, as the line of
// every refused request does, and never the code that was tried.
func TestRefusedSignInIsLoggedWithItsCode(t *testing.T) {
	seen := make(chan string, 1)
	srv := testkit.StartServer(t, testkit.ServerOptions{
		Args: []string{"--vault", t.TempDir(), "--state", t.TempDir()},
		OnLine: func(line string) {
			if strings.Contains(line, "path=/login/totp") {
				select {
				case seen <- line:
				default:
				}
			}
		},
	})
	resp, err := http.PostForm(srv.URL+"/login/totp", url.Values{"code": {"493817"}, "csrf": {"from-another-page"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in with a stale page's token: %d, want 403", resp.StatusCode)
	}
	select {
	case line := <-seen:
		for _, want := range []string{"method=POST", "status=403", "code=bad_csrf"} {
			if !strings.Contains(line, want) {
				t.Errorf("the request's log line lacks %q: %s", want, line)
			}
		}
		if strings.Contains(line, "493817") {
			t.Errorf("the log line carries the code tried: %s", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no log line for the refused sign-in:\n%s", srv.Logs.String())
	}
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestConformanceAuthorizationServer runs the suite's authorization-server
// scenarios against cortex's own authorization server, at each version:
// the metadata document, and a whole authorization code grant in which the
// test plays the owner's browser (sign-in, consent) on the URL the suite
// prints, and the redirect then reaches the suite's callback server.
func TestConformanceAuthorizationServer(t *testing.T) {
	suite := requireConformanceSuite(t)
	work := t.TempDir()
	in := newInstance(t)
	in.start()
	owner := setupOwner(t, in)

	// The suite's callback server listens on 127.0.0.1:PORT/callback; the
	// client is registered for it as a native app.
	ln := testkit.Listen(t)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	body := fmt.Sprintf(`{"client_name":"conformance","redirect_uris":["http://127.0.0.1:%d/callback"],"token_endpoint_auth_method":"none","application_type":"native"}`, port)
	resp, err := http.Post(in.URL+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || reg.ClientID == "" {
		t.Fatalf("register: %d %+v", resp.StatusCode, reg)
	}

	// Both scenarios at once: the grant reads the metadata the first one
	// fetched.
	for i, v := range conformanceVersions {
		t.Run(v, func(t *testing.T) {
			// Each run signs in afresh, with a recovery code of its own (a TOTP
			// step is accepted once).
			browse := func(authURL string) error {
				_, back, err := newOwnerBrowser(in.URL).approve(authURL, owner.withRecovery(i))
				if err != nil {
					return err
				}
				r, err := http.Get(back.String())
				if err != nil {
					return fmt.Errorf("delivering the code to the suite's callback: %w", err)
				}
				return r.Body.Close()
			}
			results := runAuthScenarios(t, suite, work, v, browse,
				"--url", in.URL, "--client-id", reg.ClientID, "--resource", in.URL+"/mcp", "--port", fmt.Sprint(port))
			for _, name := range []string{"authorization-server-metadata-endpoint", "authorization-code-grant"} {
				t.Run(name, func(t *testing.T) {
					if len(results[name]) == 0 {
						t.Fatalf("no result for %s (have %d scenarios)", name, len(results))
					}
					judgeConformance(t, results[name], nil, name)
					if !slices.ContainsFunc(results[name], func(c conformanceCheck) bool { return c.ID == "authorization-server-metadata" || c.ID == name }) ||
						slices.ContainsFunc(results[name], func(c conformanceCheck) bool { return c.Status == "SKIPPED" }) {
						t.Errorf("%s did not run in full: %+v", name, results[name])
					}
				})
			}
		})
	}
}

// runAuthScenarios runs every authorization-server scenario in one process
// and returns each one's checks. browse is called with the authorization
// URL the suite prints for a person to open.
func runAuthScenarios(t *testing.T, suite conformanceSuite, work, version string, browse func(string) error, args ...string) map[string][]conformanceCheck {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), conformanceScenarioTimeout)
	defer cancel()
	outDir := filepath.Join(work, "auth", version)
	cmd := suite.command(ctx, work, append([]string{"authorization", "--spec-version", version, "--output-dir", outDir}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	// The owner opens the URL once the suite says its callback server
	// listens (it prints that when it does, before or after the URL).
	browsed := make(chan error, 1)
	started, listening, authURL := false, false, ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := ansiEscape.ReplaceAllString(sc.Text(), "")
		printed.WriteString(line + "\n")
		u := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(u, "Callback server started:"):
			listening = true
		case strings.HasPrefix(u, "http") && strings.Contains(u, "/authorize?"):
			authURL = u
		}
		if !started && listening && authURL != "" {
			go func() { browsed <- browse(authURL) }()
			started = true
		}
	}
	runErr := cmd.Wait()
	if !started {
		t.Errorf("the suite printed no authorization URL")
	} else {
		select {
		case err := <-browsed:
			if err != nil {
				t.Errorf("the owner's browser: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the owner's browser did not finish")
		}
	}
	results, err := readConformanceResults(outDir)
	if err != nil || len(results) == 0 {
		t.Fatalf("results: %v (exit: %v); suite output:\n%s", err, runErr, printed.String())
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", printed.String())
	}
	return results
}

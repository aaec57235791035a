package e2e

// This file runs the official MCP conformance suite (the npm package
// @modelcontextprotocol/conformance, in server mode) against the real
// cortex binary. The suite and the Node 22 it needs live outside the
// repository, in CORTEX_CONFORMANCE_DIR (default: the user cache folder's
// cortex-conformance); docs/conformance.md says how to install them.
//
// The suite cannot send a bearer token, so a small reverse proxy on loopback
// adds one. It forwards the suite's Host and Origin headers untouched, so the
// dns-rebinding-protection scenario tests cortex's own Host/Origin checks.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

const (
	// conformanceDirEnv names the folder holding node_modules with the
	// suite and Node 22.
	conformanceDirEnv = "CORTEX_CONFORMANCE_DIR"
	// conformanceAllEnv, set to 1, also runs the baseline's scenarios and
	// logs how they fare, to see whether an entry is still needed.
	conformanceAllEnv = "CORTEX_CONFORMANCE_ALL"
	// conformanceBaselineFile lists the scenarios that do not apply.
	conformanceBaselineFile = "testdata/conformance-baseline.txt"
	// conformanceScenarioTimeout bounds one scenario, Node start included.
	conformanceScenarioTimeout = 2 * time.Minute
	// conformanceSuiteTimeout is the suite's own limit on one scenario
	// (--timeout). Its default, 30 s, is for a quiet machine: a scenario
	// takes 1-4 s here, but CI runs every package at once with the race
	// detector on two cores, and there a scenario has run past 30 s and
	// failed as "did not complete" although cortex answered every request.
	// The limit is raised for slowness only: a failed check, a refused or
	// cut connection still fails the test, and a scenario that hangs is
	// still stopped, by this limit and by conformanceScenarioTimeout.
	conformanceSuiteTimeout = 90 * time.Second
	// conformanceMinNode is the oldest Node major the suite runs on.
	conformanceMinNode = 22
	// conformanceWholeTimeout bounds one run of every scenario at once.
	conformanceWholeTimeout = 5 * time.Minute
)

// conformanceVersions are the protocol versions cortex is tested at: each
// scenario runs at every one of them that it applies to.
var conformanceVersions = []string{"2025-11-25", "2026-07-28"}

// suiteTimeoutArg is conformanceSuiteTimeout as the suite's --timeout
// takes it, in milliseconds.
var suiteTimeoutArg = strconv.FormatInt(conformanceSuiteTimeout.Milliseconds(), 10)

// conformanceScenario is a server scenario with the spec versions it
// applies to, as the suite lists them ("extension" for an extension's).
type conformanceScenario struct {
	name     string
	versions []string
}

// conformanceSuite is an installed copy of the suite and the Node that runs it.
type conformanceSuite struct {
	node   string // the node executable
	script string // the suite's CLI entry point
}

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// conformanceDir is where the suite is installed.
func conformanceDir() (string, error) {
	if d := os.Getenv(conformanceDirEnv); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder (%w); set %s", err, conformanceDirEnv)
	}
	return filepath.Join(cache, "cortex-conformance"), nil
}

// findConformanceSuite locates the installed suite and a Node new enough for
// it, or says what is missing.
func findConformanceSuite() (conformanceSuite, error) {
	dir, err := conformanceDir()
	if err != nil {
		return conformanceSuite{}, err
	}
	mods := filepath.Join(dir, "node_modules")
	script := filepath.Join(mods, "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		return conformanceSuite{}, fmt.Errorf("the conformance suite is not installed in %s (%s)", dir, conformanceDirEnv)
	}
	nodes, _ := filepath.Glob(filepath.Join(mods, "node-linux-*", "bin", "node"))
	nodes = append(nodes, "node") // a Node on PATH, if it is new enough
	var tried []string
	for _, n := range nodes {
		major, err := nodeMajor(n)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		if major < conformanceMinNode {
			tried = append(tried, fmt.Sprintf("%s: version %d", n, major))
			continue
		}
		return conformanceSuite{node: n, script: script}, nil
	}
	return conformanceSuite{}, fmt.Errorf("no Node %d or newer in %s or on PATH (%s)", conformanceMinNode, mods, strings.Join(tried, "; "))
}

// nodeMajor runs `node --version` and returns the major version.
func nodeMajor(node string) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return 0, err
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0, fmt.Errorf("unexpected version %q", out)
	}
	return n, nil
}

// requireConformanceSuite skips the test when the suite is not installed,
// except in CI, where a missing suite is a failure.
func requireConformanceSuite(t *testing.T) conformanceSuite {
	t.Helper()
	s, err := findConformanceSuite()
	if err == nil {
		return s
	}
	msg := fmt.Sprintf("%v; install it as docs/conformance.md shows", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return conformanceSuite{}
}

func (s conformanceSuite) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.node, append([]string{s.script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// ansiEscape matches the colour codes the suite prints whatever NO_COLOR says.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

var conformanceScenarioLine = regexp.MustCompile(`^\s+- ([a-z0-9][a-z0-9-]*)(?:\s+\[([^\]]*)\])?(\s|$)`)

// scenarios asks the suite for its server scenarios, pending ones included.
func (s conformanceSuite) scenarios(ctx context.Context, dir string) ([]conformanceScenario, error) {
	out, err := s.command(ctx, dir, "list", "--server").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("listing scenarios: %w\n%s", err, out)
	}
	var names []conformanceScenario
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := conformanceScenarioLine.FindStringSubmatch(sc.Text()); m != nil {
			names = append(names, conformanceScenario{m[1], strings.Split(m[2], ",")})
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the suite listed no server scenario:\n%s", out)
	}
	return names, nil
}

// run runs one scenario at one spec version against url and returns its
// checks and the suite's printed report.
func (s conformanceSuite) run(ctx context.Context, dir, url, scenario, version string) ([]conformanceCheck, string, error) {
	ctx, cancel := context.WithTimeout(ctx, conformanceScenarioTimeout)
	defer cancel()
	outDir := filepath.Join(dir, version, scenario)
	cmd := s.command(ctx, dir, "server", "--url", url, "--scenario", scenario, "--spec-version", version, "--output-dir", outDir,
		"--timeout", suiteTimeoutArg)
	out, runErr := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, string(out), fmt.Errorf("scenario did not finish within %v", conformanceScenarioTimeout)
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "server-"+scenario+"-*", "checks.json"))
	if len(files) != 1 {
		return nil, string(out), fmt.Errorf("want one checks.json, found %d (exit: %v)", len(files), runErr)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, string(out), err
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(data, &checks); err != nil {
		return nil, string(out), fmt.Errorf("reading %s: %w", files[0], err)
	}
	failed := 0
	for _, c := range checks {
		if c.Status == "FAILURE" {
			failed++
		}
	}
	// The suite exits 1 exactly when a check failed; anything else is a
	// disagreement worth seeing.
	if (runErr != nil) != (failed > 0) {
		return checks, string(out), fmt.Errorf("suite exit %v with %d failed checks", runErr, failed)
	}
	return checks, string(out), nil
}

// readConformanceBaseline reads the scenarios that do not apply to cortex,
// each with the reason. Lines are "scenario reason...", or
// "scenario:check-id reason..." for one check of a scenario that otherwise
// applies; # starts a comment.
func readConformanceBaseline(r io.Reader) (map[string]string, error) {
	base := make(map[string]string)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		scenario, check, one := strings.Cut(name, ":")
		if !conformanceScenarioLine.MatchString("  - "+scenario) || (one && !conformanceCheckID.MatchString(check)) {
			return nil, fmt.Errorf("line %d: %q is not a scenario name", n, name)
		}
		if reason == "" {
			return nil, fmt.Errorf("line %d: %s has no reason; say why it does not apply", n, name)
		}
		if _, dup := base[name]; dup {
			return nil, fmt.Errorf("line %d: %s is listed twice", n, name)
		}
		base[name] = reason
	}
	return base, sc.Err()
}

func loadConformanceBaseline(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(conformanceBaselineFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base, err := readConformanceBaseline(f)
	if err != nil {
		t.Fatalf("%s: %v", conformanceBaselineFile, err)
	}
	return base
}

// newTokenProxy serves, on loopback, a reverse proxy to target that adds
// the bearer token and changes nothing else the server judges: Host and
// Origin reach the server as the client sent them, and no X-Forwarded-*
// header is added (the request must look direct, as from a local client).
// What the proxy reports (a failed request to cortex answered 502, a copy
// cut short) goes to errLog.
func newTokenProxy(t *testing.T, target *url.URL, token string, errLog io.Writer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(tokenProxy(target, token, errLog))
	t.Cleanup(srv.Close)
	return srv
}

// tokenProxy is the handler of newTokenProxy.
func tokenProxy(target *url.URL, token string, errLog io.Writer) http.Handler {
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // SSE events pass at once
		// Shown when a test fails; clients closing SSE streams make the
		// proxy log aborted copies, which are harmless.
		ErrorLog: log.New(errLog, "proxy: ", log.Ltime|log.Lmicroseconds),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The transport may still read the request body (once more, at its
		// end) after cortex's answer has started; without full duplex the
		// server closes the body when the answer starts, that read fails,
		// and the transport drops the connection the answer is coming on
		// (TestConformanceProxyFinishesAnswers).
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		p.ServeHTTP(w, r)
	})
}

func TestConformance(t *testing.T) {
	suite := requireConformanceSuite(t)
	base := loadConformanceBaseline(t)
	work := t.TempDir()
	ctx := t.Context()

	names, err := suite.scenarios(ctx, work)
	if err != nil {
		t.Fatal(err)
	}
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n.name] = true
	}
	var stale []string
	for n := range base {
		if sc, _, _ := strings.Cut(n, ":"); !known[sc] {
			stale = append(stale, n)
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		t.Errorf("%s names scenarios the suite no longer has: %s; remove them", conformanceBaselineFile, strings.Join(stale, ", "))
	}

	// A fresh cortex on a loopback port. The suite sends its requests in
	// quick succession (about 65 in a second for the whole suite); the
	// per-token request budget is not what is tested here.
	srv := newInstance(t)
	token := srv.token("conformance")
	srv.start("--rate-limit", "1000000")
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatalf("cortex printed an unusable URL %q: %v", srv.URL, err)
	}
	proxyLog := new(testkit.Buffer)
	proxy := newTokenProxy(t, target, token, proxyLog)
	endpoint := proxy.URL + "/mcp"

	all := os.Getenv(conformanceAllEnv) == "1"
	for _, sc := range names {
		t.Run(sc.name, func(t *testing.T) {
			reason, excluded := base[sc.name]
			if excluded && !all {
				t.Skipf("not applicable: %s", reason)
			}
			ran := false
			for _, v := range conformanceVersions {
				if !slices.Contains(sc.versions, v) {
					continue
				}
				ran = true
				t.Run(v, func(t *testing.T) {
					start := time.Now()
					checks, out, err := suite.run(ctx, work, endpoint, sc.name, v)
					t.Logf("ran in %v", time.Since(start).Round(time.Millisecond))
					judgeConformance(t, checks, base, sc.name)
					if excluded {
						t.Logf("baseline scenario (%s): err=%v", reason, err)
						return
					}
					if err != nil {
						t.Error(err)
					}
					if t.Failed() {
						t.Logf("suite output:\n%s\nproxy log:\n%s\ncortex log:\n%s", ansiEscape.ReplaceAllString(out, ""), proxyLog.String(), srv.logs.String())
					}
				})
			}
			if !ran {
				t.Skipf("applies to %s, none of the versions tested (%s)", strings.Join(sc.versions, ", "), strings.Join(conformanceVersions, ", "))
			}
		})
	}

	// The whole suite in one Node process at each version: one client that
	// runs every scenario, one after another, against the same cortex.
	for _, v := range conformanceVersions {
		t.Run("whole-suite/"+v, func(t *testing.T) {
			wctx, cancel := context.WithTimeout(ctx, conformanceWholeTimeout)
			defer cancel()
			outDir := filepath.Join(work, "whole-"+v)
			start := time.Now()
			out, runErr := suite.command(wctx, work, "server", "--url", endpoint, "--spec-version", v, "--suite", "all", "--output-dir", outDir,
				"--timeout", suiteTimeoutArg).CombinedOutput()
			t.Logf("ran in %v (exit: %v)", time.Since(start).Round(time.Millisecond), runErr)
			results, err := readConformanceResults(outDir)
			if err != nil {
				t.Fatal(err)
			}
			if len(results) == 0 {
				t.Fatalf("the suite ran no scenario:\n%s", ansiEscape.ReplaceAllString(string(out), ""))
			}
			for name, checks := range results {
				if _, excluded := base[name]; excluded && !all {
					continue
				}
				t.Run(name, func(t *testing.T) { judgeConformance(t, checks, base, name) })
			}
			if t.Failed() {
				t.Logf("suite output:\n%s\nproxy log:\n%s\ncortex log:\n%s", ansiEscape.ReplaceAllString(string(out), ""), proxyLog.String(), srv.logs.String())
			}
		})
	}
}

// judgeConformance fails t for each failed check, unless the scenario is in
// the baseline, whose failures are only logged.
func judgeConformance(t *testing.T, checks []conformanceCheck, base map[string]string, scenario string) {
	t.Helper()
	reason, excluded := base[scenario]
	for _, c := range checks {
		switch c.Status {
		case "FAILURE":
			if why, ok := base[scenario+":"+c.ID]; ok {
				t.Logf("check %s fails, as the baseline says (%s): %s", c.ID, why, c.ErrorMessage)
			} else if excluded {
				t.Logf("check %s fails (%s): %s", c.ID, reason, c.ErrorMessage)
			} else {
				t.Errorf("check %s failed: %s", c.ID, c.ErrorMessage)
			}
		case "WARNING":
			t.Logf("check %s warns: %s", c.ID, c.ErrorMessage)
		}
	}
}

var conformanceCheckID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// conformanceResultDir is the folder the suite writes a scenario's
// checks.json to: server-<scenario>-<timestamp>, or
// authorization-server-<scenario>-<timestamp>.
var conformanceResultDir = regexp.MustCompile(`^(?:authorization-server|server)-([a-z0-9][a-z0-9-]*?)-\d{4}-\d{2}-\d{2}T`)

// readConformanceResults reads every scenario's checks from a run's output
// folder.
func readConformanceResults(outDir string) (map[string][]conformanceCheck, error) {
	files, err := filepath.Glob(filepath.Join(outDir, "*", "checks.json"))
	if err != nil {
		return nil, err
	}
	results := make(map[string][]conformanceCheck, len(files))
	for _, f := range files {
		m := conformanceResultDir.FindStringSubmatch(filepath.Base(filepath.Dir(f)))
		if m == nil {
			return nil, fmt.Errorf("unexpected result folder %s", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		results[m[1]] = append(results[m[1]], checks...)
	}
	return results, nil
}

// TestConformanceProxyKeepsHostAndOrigin makes sure the token proxy does not
// hide what the DNS-rebinding scenario tests: the server must see the
// client's Host and Origin, the token, and no forwarding headers.
func TestConformanceProxyKeepsHostAndOrigin(t *testing.T) {
	type seen struct {
		host, origin, auth, xff, xfh string
	}
	got := make(chan seen, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Host, r.Header.Get("Origin"), r.Header.Get("Authorization"),
			r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Forwarded-Host")}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	proxy := newTokenProxy(t, target, "ctx_test", io.Discard)

	tests := []struct {
		name, host, origin, auth string
	}{
		{"foreign host", "evil.example.com", "http://evil.example.com", ""},
		{"loopback host of the proxy", strings.TrimPrefix(proxy.URL, "http://"), proxy.URL, ""},
		{"client token replaced", "localhost:1", "", "Bearer other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, proxy.URL+"/mcp", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			s := <-got
			want := seen{host: tt.host, origin: tt.origin, auth: "Bearer ctx_test"}
			if s != want {
				t.Errorf("backend saw %+v, want %+v", s, want)
			}
		})
	}
}

// TestConformanceProxyFinishesAnswers: the proxy passes cortex's whole
// answer even when the answer starts before the proxy's transport has done
// with the request body. The transport reads the body once more after
// sending it, to check that it is not longer than declared; an HTTP/1
// server drains and closes the request body when the answer starts, so that
// read could fail, and the transport then closed its connection to cortex
// while the answer was still being copied: the suite saw "terminated", or
// waited for the end of an answer until its 90-second timeout
// (go.dev/issue/40747). Here the last read of the body waits until the
// client has the answer's headers, which makes that order certain.
func TestConformanceProxyFinishesAnswers(t *testing.T) {
	more := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Errorf("backend: reading the request: %v", err)
		}
		io.WriteString(w, "first\n")
		http.NewResponseController(w).Flush()
		<-more
		io.WriteString(w, "second\n")
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	gotHeaders, reread := make(chan struct{}), make(chan struct{})
	proxyLog := new(testkit.Buffer)
	h := tokenProxy(target, "ctx_test", proxyLog)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &lastReadWaits{ReadCloser: r.Body, wait: gotHeaders, done: reread}
		h.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	resp, err := http.Post(proxy.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		close(more)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	close(gotHeaders)
	<-reread // the transport's last read of the request body is done
	close(more)
	body, err := io.ReadAll(resp.Body)
	if err != nil || string(body) != "first\nsecond\n" {
		t.Errorf("client read %q, %v; want the whole answer\nproxy log:\n%s", body, err, proxyLog.String())
	}
}

// lastReadWaits is a request body whose reads after its end wait for wait,
// then close done.
type lastReadWaits struct {
	io.ReadCloser
	wait <-chan struct{}
	done chan struct{}
	end  bool
	once sync.Once
}

func (b *lastReadWaits) Read(p []byte) (int, error) {
	if !b.end {
		n, err := b.ReadCloser.Read(p)
		b.end = err != nil
		return n, err
	}
	<-b.wait
	defer b.once.Do(func() { close(b.done) })
	return b.ReadCloser.Read(p)
}

func TestConformanceBaselineIsWellFormed(t *testing.T) {
	base := loadConformanceBaseline(t)
	if len(base) == 0 {
		t.Fatalf("%s lists no scenario", conformanceBaselineFile)
	}
	// These never need the reference server's fixtures; they must run.
	for _, must := range []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"} {
		if _, ok := base[must]; ok {
			t.Errorf("%s excludes %s, which applies to every server", conformanceBaselineFile, must)
		}
	}
	bad := []struct{ name, in string }{
		{"no reason", "ping\n"},
		{"twice", "ping a\nping b\n"},
		{"not a name", "Ping! a\n"},
	}
	for _, tt := range bad {
		if _, err := readConformanceBaseline(strings.NewReader(tt.in)); err == nil {
			t.Errorf("%s: %q was accepted", tt.name, tt.in)
		}
	}
	if _, err := readConformanceBaseline(strings.NewReader("# c\n\nping  why\n")); err != nil {
		t.Errorf("a valid baseline was refused: %v", err)
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The parts of the MCP App test host (mcpapp_host_browser_test.go) that
// are not the test's steps.

// extAppsDir is the folder .ci/install-test-deps installs the official
// MCP Apps package in (pinned by testdata/extapps-package-lock.json).
// Without it the test is skipped, except in CI (CI=true), where its
// absence is a failure.
func extAppsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CORTEX_EXTAPPS_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		dir = filepath.Join(cache, "cortex-extapps")
	}
	modules := filepath.Join(dir, "node_modules")
	_, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "ext-apps", "dist", "src", "app-bridge.js"))
	if err == nil {
		return modules
	}
	msg := fmt.Sprintf("@modelcontextprotocol/ext-apps is not installed in %s (%v); run .ci/install-test-deps", dir, err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// hostCase is what the test host page shows: the view as resources/read
// returned it, the tools as tools/list did, the tool call the view shows,
// the host context and the sandbox proxy's address.
type hostCase struct {
	Resource  *mcp.ReadResourceResult `json:"resource"`
	Tools     []*mcp.Tool             `json:"tools"`
	Arguments map[string]any          `json:"arguments"`
	Result    json.RawMessage         `json:"result"`
	Context   map[string]any          `json:"context"`
	Sandbox   string                  `json:"sandbox"`
}

// sandboxCSP is the policy the sandbox proxy frames a view under: the
// spec's restrictive default, widened by nothing but the domains the view
// declared in its _meta.ui.csp.
func sandboxCSP(declared string) string {
	var d struct{ ConnectDomains, ResourceDomains, FrameDomains, BaseURIDomains []string }
	_ = json.Unmarshal([]byte(declared), &d)
	or := func(list []string, none string) string {
		if len(list) == 0 {
			return none
		}
		return strings.Join(list, " ")
	}
	res := strings.Join(d.ResourceDomains, " ")
	return strings.Join([]string{"default-src 'none'",
		"script-src 'self' 'unsafe-inline' " + res, "style-src 'self' 'unsafe-inline' " + res,
		"img-src 'self' data: " + res, "media-src 'self' data: " + res, "font-src 'self' " + res,
		"connect-src " + or(d.ConnectDomains, "'none'"), "frame-src " + or(d.FrameDomains, "'none'"),
		"base-uri " + or(d.BaseURIDomains, "'self'"), "object-src 'none'"}, "; ")
}

// hostileNotes builds n notes from pieces that a renderer building markup
// from text would get wrong, in a fixed pseudo-random order.
func hostileNotes(n int) []string {
	pieces := []string{"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", `"><svg onload=alert(1)>`, "'", "&lt;b&gt;",
		"# ", "## Heading", "- ", "1. ", "* item", "```", "~~~", "---", "[link](javascript:alert(1))", "<a href=\"javascript:x\">x</a>",
		"<!--", "-->", "<style>*{}</style>", "\u202e", "é", "\t", "    code", "> quote", "| a | b |", "<iframe src=//x>", "&#60;p&#62;",
		"[[Other|<b>x</b>]]", "[x](Other.md)", "**", "`<i>`"}
	r := rand.New(rand.NewPCG(24, 24))
	seps := []string{"\n", " ", "", "\n\n"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		out[i] = b.String()
	}
	return out
}

package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// connectUI connects as a host that offers the MCP Apps extension.
func (in *instance) connectUI(ctx context.Context, token, version string) *mcp.ClientSession {
	in.t.Helper()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension("io.modelcontextprotocol/ui", map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}})
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: in.URL + "/mcp",
		HTTPClient: &http.Client{Transport: testkit.Bearer{Token: token}}, MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		in.t.Fatalf("connect: %v\n%s", err, in.logs.String())
	}
	in.t.Cleanup(func() { cs.Close() })
	return cs
}

// The real binary, through /mcp (which keeps no sessions): a 2025-11-25
// host that offered the extension when it initialized gets the views on
// its later requests; the view's undo reverts the app's change, is
// journaled as the app's undo, and `cortex admin undo` (the console's
// undo) takes the undo back in turn.
func TestMCPAppUndoThroughTheBinary(t *testing.T) {
	in := newInstance(t)
	in.start()
	tok := in.token("phone")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		cs := in.connectUI(ctx, tok, v)
		tl, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		named := 0
		for _, tool := range tl.Tools {
			if ui, _ := tool.Meta["ui"].(map[string]any); ui["resourceUri"] != nil {
				named++
			}
		}
		if named != 9 {
			t.Fatalf("%s: %d tools name a view; want 9", v, named)
		}
	}
	cs := in.connectUI(ctx, tok, "2025-11-25")
	const before = "# Plan\n\nSow beans in May.\n"
	c := must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "Plan.md", "content": before}), "create_note")
	e := must(t, call(t, ctx, cs, "edit_note", map[string]any{"id": "Plan.md", "version": c["version"], "old_text": "May", "new_text": "June"}), "edit_note")
	if view, _ := e["view"].(map[string]any); view == nil || view["undoable"] != true {
		t.Fatalf("edit_note's result has no undoable view: %v", e)
	}
	must(t, call(t, ctx, cs, "undo_change", map[string]any{"id": "Plan.md", "version": e["version"], "previous_version": c["version"]}), "undo_change")
	disk := func() string {
		b, err := os.ReadFile(filepath.Join(in.Vault, "Plan.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := disk(); got != before {
		t.Fatalf("after the view's undo the note is %q", got)
	}
	out, errOut, err := in.admin("changes")
	if err != nil {
		t.Fatalf("changes: %v\n%s", err, errOut)
	}
	id := ""
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.Contains(line, " phone ") && strings.Contains(line, " undo ") {
			id = f[0]
		}
	}
	if id == "" {
		t.Fatalf("the journal shows no undo by phone:\n%s", out)
	}
	if _, errOut, err := in.admin("undo", "--change", id); err != nil {
		t.Fatalf("admin undo --change %s: %v\n%s", id, err, errOut)
	}
	if got := disk(); !strings.Contains(got, "June") {
		t.Errorf("undoing the view's undo left %q", got)
	}
}

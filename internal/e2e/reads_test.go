package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadsRecorded: what a token's agent read is written by the server,
// at the latest when it stops, and `cortex admin clients reads` shows it.
func TestReadsRecorded(t *testing.T) {
	in := newInstance(t)
	tok := in.token("laptop")
	in.start()
	ctx := context.Background()
	cs := in.connect(ctx, tok)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list: %v %+v", err, res)
	}
	var listed struct {
		Entries []struct{ Path, Type string } `json:"entries"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &listed); err != nil || len(listed.Entries) == 0 {
		t.Fatalf("list: %s (%v)", b, err)
	}
	note := listed.Entries[0].Path // the welcome note serve wrote
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": note}}); err != nil || res.IsError {
		t.Fatalf("fetch: %v %+v", err, res)
	}
	cs.Close()
	if err := in.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, in.logs.String())
	}

	out, errOut, err := in.admin("clients", "reads", "laptop")
	if err != nil {
		t.Fatalf("clients reads: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], note+" ") || !strings.Contains(lines[1], " 2 ") ||
		!strings.HasSuffix(lines[1], " fetch,list") {
		t.Errorf("clients reads laptop:\n%s\nwant %s read twice, by fetch and list", out, note)
	}
}

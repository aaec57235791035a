package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A model that guesses a tool's name (read_note for fetch) is told which
// tools there are, so that its next call can be right without a tools/list.
func TestUnknownToolNamesTheTools(t *testing.T) {
	e := newEnv(t)
	_, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"id": "a.md"}})
	if err == nil {
		t.Fatal("an unknown tool was answered")
	}
	msg := err.Error()
	for _, want := range []string{`unknown tool "read_note"`, "fetch", "search", "edit_note", "delete_note", "tools/list"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %s", want, msg)
		}
	}
}

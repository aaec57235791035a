package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestOutputsMatchSchemas checks every tool's results, successes and
// failures, against the output schema it advertises: addTool does not
// validate them per call, so this is where a drift between an output type
// and what it encodes to would show.
func TestOutputsMatchSchemas(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "---\ntags: [x]\ntitle: A\n---\n# A\n\nSee [[b]].\n\n## Plan\n\nGarden plan.\n")
	e.write("b.md", "# B\n\nBack to [[a]]. #garden\n")
	tl, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tl.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve output schema: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	calls := []struct {
		tool string
		args func() map[string]any
	}{
		{"search", func() map[string]any { return map[string]any{"query": "garden"} }},
		{"fetch", func() map[string]any { return map[string]any{"id": "a.md"} }},
		{"fetch", func() map[string]any { return map[string]any{"id": "a.md", "section": "Plan", "max_chars": 3} }},
		{"fetch", func() map[string]any { return map[string]any{"id": "missing.md"} }},
		{"fetch", func() map[string]any { return map[string]any{"id": 7} }},
		{"list", func() map[string]any { return map[string]any{} }},
		{"links", func() map[string]any { return map[string]any{"id": "a.md"} }},
		{"recent", func() map[string]any { return map[string]any{} }},
		{"create_note", func() map[string]any { return map[string]any{"path": "c.md", "content": "# C\n"} }},
		{"append", func() map[string]any { return map[string]any{"id": "c.md", "text": "more\n"} }},
		{"edit_note", func() map[string]any {
			return map[string]any{"id": "c.md", "version": e.version("c.md"), "old_text": "more", "new_text": "less"}
		}},
		{"edit_note", func() map[string]any {
			return map[string]any{"id": "c.md", "version": "stale", "old_text": "less", "new_text": "more"}
		}},
		{"replace_section", func() map[string]any {
			return map[string]any{"id": "a.md", "version": e.version("a.md"), "heading": "Plan", "content": "New plan.\n"}
		}},
		{"update_frontmatter", func() map[string]any {
			return map[string]any{"id": "a.md", "version": e.version("a.md"), "set": map[string]any{"k": "v"}}
		}},
		{"move_note", func() map[string]any {
			return map[string]any{"id": "c.md", "to": "d.md", "version": e.version("c.md")}
		}},
		{"delete_note", func() map[string]any { return map[string]any{"id": "d.md", "version": e.version("d.md")} }},
	}
	for _, c := range calls {
		r := e.call(c.tool, c.args())
		var v any
		if err := json.Unmarshal(r.raw, &v); err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.tool].Validate(&v); err != nil {
			t.Errorf("%s (error %v): output does not match its schema: %v\n%s", c.tool, r.isError, err, r.raw)
		}
	}
}

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var wantTools = map[string]struct{ readOnly, destructive, idempotent bool }{
	"search":             {true, false, true},
	"fetch":              {true, false, true},
	"list":               {true, false, true},
	"links":              {true, false, true},
	"recent":             {true, false, true},
	"create_note":        {false, false, true},
	"append":             {false, false, false},
	"edit_note":          {false, true, true},
	"replace_section":    {false, true, true},
	"update_frontmatter": {false, true, true},
	"move_note":          {false, true, true},
	"delete_note":        {false, true, true},
}

func TestToolList(t *testing.T) {
	e := newEnv(t)
	res, err := e.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(wantTools) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(wantTools))
	}
	for _, tool := range res.Tools {
		want, ok := wantTools[tool.Name]
		a := tool.Annotations
		if !ok || a == nil || tool.Title == "" || tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s incomplete: %+v", tool.Name, tool)
			continue
		}
		if a.ReadOnlyHint != want.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != want.destructive ||
			a.IdempotentHint != want.idempotent || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title != tool.Title {
			t.Errorf("tool %s annotations = %+v", tool.Name, a)
		}
		if len(tool.Description) > 300 {
			t.Errorf("tool %s description is %d bytes long", tool.Name, len(tool.Description))
		}
	}
	init := e.cs.InitializeResult()
	if init.Instructions != "Keep notes short." || init.ServerInfo.Name != "cortex" || init.ServerInfo.Version != "test" {
		t.Errorf("initialize = %+v", init)
	}
	// Nothing a client may subscribe to: without list changes or resource
	// subscriptions, a 2026-07-28 subscriptions/listen ends at once, so no
	// stream outlives the token it was opened with (/mcp checks the token
	// only when a request comes in).
	if c := init.Capabilities; c.Tools == nil || c.Tools.ListChanged || (c.Prompts != nil && c.Prompts.ListChanged) || c.Resources != nil {
		t.Errorf("capabilities = %+v; want tools, no list changes, no resources", c)
	}
	// From 2025-11-25: a one-line description, the website, and an icon on
	// every tool (a small SVG as a data URI, so no request leaves the app).
	if si := init.ServerInfo; si.Description == "" || strings.Contains(si.Description, "\n") || si.WebsiteURL != "https://github.com/cortex-mcp/cortex" {
		t.Errorf("server info = %+v; want a one-line description and the website", si)
	}
	for _, tool := range res.Tools {
		if len(tool.Icons) != 1 || !strings.HasPrefix(tool.Icons[0].Source, "data:image/svg+xml;base64,") ||
			tool.Icons[0].MIMEType != "image/svg+xml" || len(tool.Icons[0].Source) > 2048 {
			t.Errorf("%s: icons %+v; want one small SVG data URI", tool.Name, tool.Icons)
		}
	}

	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tools/list differs from %s; if the change is intended, run go test ./internal/tools/ -update and review the diff", golden)
	}
}

func TestNoInstructions(t *testing.T) {
	srv := NewServer(Deps{}, "")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().Instructions; got != "" {
		t.Errorf("instructions = %q", got)
	}
}

// BenchmarkNewServer measures the per-session cost of building the server
// with its twelve tools and their schemas.
func BenchmarkNewServer(b *testing.B) {
	for b.Loop() {
		NewServer(Deps{App: "bench"}, "")
	}
}

// BenchmarkListTools is one tools/list through a real client session:
// every client asks for it when it starts, and it carries every tool's
// schemas.
func BenchmarkListTools(b *testing.B) {
	e := newEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.cs.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetch is one fetch through a real MCP client session (in-memory
// transport): the tool layer's and the SDK's cost per read.
func BenchmarkFetch(b *testing.B) {
	e := newEnv(b)
	e.write("a.md", "---\ntags: [x]\n---\n# A\n\n"+strings.Repeat("Some words about the garden and the plan.\n", 200))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "a.md"}})
		if err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

func TestIsWriteToolMatchesAnnotations(t *testing.T) {
	e := newEnv(t)
	tl, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if IsWriteTool(tool.Name) == tool.Annotations.ReadOnlyHint {
			t.Errorf("IsWriteTool(%q) = %v but readOnlyHint = %v", tool.Name, IsWriteTool(tool.Name), tool.Annotations.ReadOnlyHint)
		}
	}
}

// TestWhatAModelIsShown measures what every conversation carries: the
// names, descriptions and input schemas of the twelve tools, as compact
// JSON. It must stay under 8 KB, and every property must have one type.
func TestWhatAModelIsShown(t *testing.T) {
	e := newEnv(t)
	res, err := e.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tool := range res.Tools {
		b, err := json.Marshal(struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		}{tool.Name, tool.Description, tool.InputSchema})
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				if _, list := x["type"].([]any); list {
					t.Errorf("%s has a list of types: %v", path, x["type"])
				}
				for k, c := range x {
					walk(path+"/"+k, c)
				}
			case []any:
				for _, c := range x {
					walk(path, c)
				}
			}
		}
		var in, out any
		bi, _ := json.Marshal(tool.InputSchema)
		bo, _ := json.Marshal(tool.OutputSchema)
		_ = json.Unmarshal(bi, &in)
		_ = json.Unmarshal(bo, &out)
		walk(tool.Name+" input", in)
		walk(tool.Name+" output", out)
	}
	t.Logf("names, descriptions and input schemas of the %d tools: %d bytes (about %d tokens)", len(res.Tools), total, total/4)
	if total > 8<<10 {
		t.Errorf("the tool list a model is shown is %d bytes, over 8 KB", total)
	}
}

// IsWriteTool needs no server: it answers from the tools' annotations
// alone, seven writers, and no to a name that is no tool.
func TestIsWriteToolWithoutAServer(t *testing.T) {
	n := 0
	for name := range writeTools() {
		if IsWriteTool(name) {
			n++
		}
	}
	if n != 7 || IsWriteTool("fetch") || IsWriteTool("nope") || !IsWriteTool("delete_note") {
		t.Errorf("%d write tools, fetch %v, nope %v, delete_note %v", n, IsWriteTool("fetch"), IsWriteTool("nope"), IsWriteTool("delete_note"))
	}
}

// Arguments of null are no arguments, also for a schema with defaults,
// which decodeArgs once applied into a nil map, and panicked.
func TestNullArgumentsTakeDefaults(t *testing.T) {
	type withDefault struct {
		N int `json:"n,omitempty"`
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"n": {Type: "integer", Default: json.RawMessage(`7`)},
	}}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{``, `{}`, `null`, ` null `, `{"n":null}`} {
		if in, err := decodeArgs[withDefault](json.RawMessage(raw), r); err != nil || in.N != 7 {
			t.Errorf("%q: %+v, %v; want n 7", raw, in, err)
		}
	}
}

package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// callRaw sends arguments exactly as given, bytes included, as a client
// with a broken encoder would.
func (e *env) callRaw(name, args string) result {
	e.t.Helper()
	res, err := e.cs.CallTool(e.t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		e.t.Fatalf("%s: protocol error: %v", name, err)
	}
	r := result{isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	r.raw, _ = json.Marshal(res.StructuredContent)
	return r
}

func TestInvalidUTF8ArgumentsRefused(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "a\n")
	tests := []struct{ tool, args, arg string }{
		{"create_note", `{"path":"bad` + "\xff" + `.md","content":"x"}`, "path"},
		{"create_note", `{"path":"bad\ud800.md","content":"x"}`, "path"},
		{"create_note", `{"path":"ok.md","content":"lone \udc00 low"}`, "content"},
		{"create_note", `{"path":"ok.md","content":"high then text \ud83dx"}`, "content"},
		{"append", `{"id":"a.md","text":"` + "\xc3\x28" + `"}`, "text"},
		{"fetch", `{"id":"a` + "\xe2\x82" + `.md"}`, "id"},
	}
	for _, tt := range tests {
		r := e.callRaw(tt.tool, tt.args)
		if !r.isError || !strings.HasPrefix(r.text, "invalid_argument: "+tt.arg+" is not valid UTF-8") {
			t.Errorf("%s %q = %s", tt.tool, tt.args, r.text)
		}
	}
	names, _ := e.v.List(t.Context(), "", false)
	if len(names) != 1 {
		t.Errorf("vault holds %v", names)
	}
	// A refused write is journaled like any other refusal.
	refused := 0
	for _, j := range e.j.all() {
		if j.Result == "invalid_argument" {
			refused++
		}
	}
	if refused != 5 {
		t.Errorf("%d refused writes journaled, want 5", refused)
	}
	// Valid pairs and escapes pass.
	var out writeOut
	e.ok("create_note", map[string]any{"path": "ok.md", "content": "rocket \U0001F680 and \\ud800 as text"}, &out)
	r := e.callRaw("create_note", `{"path":"pair.md","content":"\ud83d\ude80 \\ud800"}`)
	if r.isError || e.read("pair.md") != "\U0001F680 \\ud800" {
		t.Errorf("valid escapes: %s", r.text)
	}
}

func TestLoneSurrogate(t *testing.T) {
	for in, want := range map[string]bool{
		`"a"`: false, `"\u00e9"`: false, `"\ud83d\ude80"`: false, `"\\ud800"`: false, `"\\\ud800"`: true,
		`"\ud800"`: true, `"\udc00"`: true, `"\ud800\u0041"`: true, `"\ud800x"`: true, `"x\ud800`: true,
	} {
		if got := loneSurrogate([]byte(in)); got != want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	e := newEnv(t)
	doc := "# Garden\nintro\n## Budget\n100\n## Plants\nroses\n"
	e.write("g.md", doc)
	v := e.version("g.md")

	te := e.fail("fetch", map[string]any{"id": "g.md", "section": "Costs"}, "section_not_found")
	if strings.Join(te.Candidates, "|") != "# Garden (line 1)|## Budget (line 3)|## Plants (line 5)" ||
		!strings.Contains(te.Message, "candidates") {
		t.Errorf("section_not_found = %+v", te)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "g.md", "section": "budget"}, &f)
	if f.Text != "## Budget\n100\n" {
		t.Errorf("fetch section budget = %q", f.Text)
	}

	te = e.fail("update_frontmatter", map[string]any{"id": "g.md", "version": v, "set": map[string]any{"tags": []string{"x"}}, "remove": []string{"tags"}}, "invalid_argument")
	if !strings.Contains(te.Message, `"tags" is both in set and in remove`) {
		t.Errorf("set and remove: %q", te.Message)
	}

	te = e.fail("create_note", map[string]any{"path": "big.md", "content": strings.Repeat("x", 1<<20+1)}, "write_too_large")
	if !strings.Contains(te.Message, "1.0 MiB (1048577 bytes)") || !strings.Contains(te.Message, "limit of 1 MiB (1048576 bytes)") {
		t.Errorf("write_too_large: %q", te.Message)
	}

	var many strings.Builder
	for range 300 {
		many.WriteString("## Same\n")
	}
	e.write("many.md", many.String())
	r := e.call("fetch", map[string]any{"id": "many.md", "section": "Same"})
	var out errorOutput
	if err := json.Unmarshal(r.raw, &out); err != nil || out.Error.Code != "section_ambiguous" ||
		len(out.Error.Candidates) != 50 || out.Error.More != 250 || !strings.Contains(r.text, "and 250 more") {
		t.Errorf("capped candidates: %s", r.text)
	}
}

// TestFolderIsNoNote: a folder named as a note is answered as a folder,
// which list shows, not as a file without .md.
func TestFolderIsNoNote(t *testing.T) {
	e := newEnv(t, func(o *vault.Options) { o.Index = true })
	e.write("Projects/a.md", "a\n")
	e.write("Archive/b.md", "b\n")
	if err := e.v.WaitIndexed(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"Projects", "Archive"} {
		te := e.fail("fetch", map[string]any{"id": id}, "not_a_note")
		if !strings.Contains(te.Message, "folder") || !strings.Contains(te.Message, "list") {
			t.Errorf("fetch %s: %q", id, te.Message)
		}
	}
}

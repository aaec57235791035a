package tools

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// Open tasks across the vault, as a model asks for them: task-todo: finds
// the notes with an open task holding the words and names each such line
// with its number; task-done: the done ones; line: words on one line.
func TestSearchTasks(t *testing.T) {
	e := newEnv(t)
	e.write("Home/House.md", "# House\n- [ ] call the roofer\n- [x] call the painter\nCall me maybe.\n")
	e.write("Work/Week.md", "---\ntags: [work]\n---\n## Mon\n- [ ] call Ana about the budget\n- [ ] send notes\n")
	e.write("Other.md", "Nothing to call here.\n")

	var out searchOut
	e.ok("search", map[string]any{"query": "task-todo:call"}, &out)
	got := map[string][]foundLine{}
	for _, r := range out.Results {
		got[r.ID] = r.Lines
	}
	if len(out.Results) != 2 || len(got["Home/House.md"]) != 1 || got["Home/House.md"][0] != (foundLine{2, "- [ ] call the roofer"}) ||
		len(got["Work/Week.md"]) != 1 || got["Work/Week.md"][0] != (foundLine{5, "- [ ] call Ana about the budget"}) {
		t.Errorf("task-todo:call = %+v", out.Results)
	}
	out = searchOut{}
	e.ok("search", map[string]any{"query": "task-done:call"}, &out)
	if len(out.Results) != 1 || out.Results[0].Lines[0] != (foundLine{3, "- [x] call the painter"}) {
		t.Errorf("task-done:call = %+v", out.Results)
	}
	out = searchOut{}
	e.ok("search", map[string]any{"query": "line:(call maybe)"}, &out)
	if len(out.Results) != 1 || out.Results[0].Lines[0].Line != 4 {
		t.Errorf("line:(call maybe) = %+v", out.Results)
	}
	// Plain searches name no lines.
	var plain searchOut
	e.ok("search", map[string]any{"query": "call"}, &plain)
	for _, r := range plain.Results {
		if r.Lines != nil {
			t.Errorf("plain search names lines: %+v", r)
		}
	}
	te := e.fail("search", map[string]any{"query": "task-todo:"}, "invalid_argument")
	if !strings.Contains(te.Message, "task-todo:") {
		t.Errorf("task-todo: alone: %s", te.Message)
	}
}

// With lines, any search names the lines of each note that hold what it
// was found by, numbered, at most ten a note: words in any case or
// accent, phrases, OR, tags and properties; without lines, only line
// filters name lines. A private note is neither a hit nor a source of
// lines for an app without private notes.
func TestSearchLines(t *testing.T) {
	e := newEnv(t)
	e.write("Home/House.md", "---\ntags: [home]\nstatus: active\n---\n# House\nThe Roofer comes Monday.\nPaint the fence.\nCall the roofer back.\n#home ideas\n")
	e.write("Work/Week.md", "## Mon\nroofer budget\n")
	e.write("Work/Secret.md", "---\nprivate: true\n---\nthe roofer is my cousin\n")
	var many strings.Builder
	for i := range 15 {
		fmt.Fprintf(&many, "line %d of the ROOFER log\n", i+1)
	}
	e.write("Log.md", many.String())

	search := func(e *env, args map[string]any) map[string][]foundLine {
		t.Helper()
		var out searchOut
		e.ok("search", args, &out)
		got := map[string][]foundLine{}
		for _, r := range out.Results {
			got[r.ID] = r.Lines
		}
		return got
	}
	got := search(e, map[string]any{"query": "roofer", "lines": true})
	if want := []foundLine{{6, "The Roofer comes Monday."}, {8, "Call the roofer back."}}; !reflect.DeepEqual(got["Home/House.md"], want) {
		t.Errorf("roofer: House lines %+v, want %+v", got["Home/House.md"], want)
	}
	if l := got["Log.md"]; len(l) != 10 || l[9] != (foundLine{10, "line 10 of the ROOFER log"}) {
		t.Errorf("roofer: Log lines %+v, want the first 10", l)
	}
	for query, want := range map[string][]foundLine{
		`"roofer back"`:         {{8, "Call the roofer back."}},
		"paint OR monday":       {{6, "The Roofer comes Monday."}, {7, "Paint the fence."}},
		"tag:#home":             {{2, "tags: [home]"}, {9, "#home ideas"}},
		"[status:active] fence": {{3, "status: active"}, {7, "Paint the fence."}},
		"task-todo:x OR fence":  {{7, "Paint the fence."}},
		"fence folder:Home":     {{7, "Paint the fence."}},
		"fence path:Home":       {{7, "Paint the fence."}},
	} {
		if got := search(e, map[string]any{"query": query, "lines": true}); !reflect.DeepEqual(got["Home/House.md"], want) {
			t.Errorf("%s: %+v, want %+v", query, got["Home/House.md"], want)
		}
	}
	if got := search(e, map[string]any{"query": "roofer"}); got["Home/House.md"] != nil {
		t.Errorf("lines without asking: %+v", got)
	}
	// Scoped as the rest: the private note names no line.
	app := e.scoped(t, scope.Scope{})
	got = search(app, map[string]any{"query": "cousin OR roofer", "lines": true})
	if _, ok := got["Work/Secret.md"]; ok || len(got["Work/Week.md"]) != 1 {
		t.Errorf("an app without private notes: %+v", got)
	}
	owner := e.scoped(t, scope.Scope{Private: true})
	if got := search(owner, map[string]any{"query": "cousin", "lines": true}); !reflect.DeepEqual(got["Work/Secret.md"], []foundLine{{4, "the roofer is my cousin"}}) {
		t.Errorf("with private notes: %+v", got)
	}
}

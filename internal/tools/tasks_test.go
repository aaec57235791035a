package tools

import (
	"strings"
	"testing"
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

package tools

import "testing"

// recent says what kind of change made each note's current version.
func TestRecentSaysTheKindOfChange(t *testing.T) {
	e := newEnv(t)
	var w writeOut
	e.ok("create_note", map[string]any{"path": "made.md", "content": "# Made\n"}, nil)
	e.ok("create_note", map[string]any{"path": "grown.md", "content": "# Grown\n"}, nil)
	e.ok("append", map[string]any{"id": "grown.md", "text": "more\n"}, nil)
	e.ok("create_note", map[string]any{"path": "edited.md", "content": "# Edited\nold\n"}, &w)
	e.ok("edit_note", map[string]any{"id": "edited.md", "version": w.Version, "old_text": "old", "new_text": "new"}, nil)
	e.ok("create_note", map[string]any{"path": "from.md", "content": "# Moved\n"}, &w)
	e.ok("create_note", map[string]any{"path": "linking.md", "content": "See [[from]].\n"}, nil)
	e.ok("move_note", map[string]any{"id": "from.md", "to": "moved.md", "version": w.Version, "update_links": true}, nil)
	if e.read("linking.md") != "See [[moved]].\n" {
		t.Fatalf("the link was not rewritten: %q", e.read("linking.md"))
	}
	e.write("outside.md", "# Outside\n")
	var out recentOut
	e.ok("recent", nil, &out)
	got := map[string]string{}
	for _, n := range out.Notes {
		got[n.ID] = n.Change
	}
	want := map[string]string{"made.md": "create", "grown.md": "append", "edited.md": "edit", "moved.md": "move", "linking.md": "relink", "outside.md": ""}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("%s: change %q, want %q (all: %+v)", p, got[p], k, out.Notes)
		}
	}
}

package tools

import (
	"strings"
	"testing"
)

// A write sent without its version (left out or null) is told, as with an
// empty one, to read the note and pass the version it read: the schema's
// "missing properties" does not say where a version comes from.
func TestMissingVersionSaysWhereItComesFrom(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\nx\n")
	for _, args := range []map[string]any{
		{"id": "a.md", "old_text": "x", "new_text": "y"},
		{"id": "a.md", "old_text": "x", "new_text": "y", "version": nil},
	} {
		te := e.fail("edit_note", args, "version_required")
		if !strings.Contains(te.Message, "pass its metadata.version as version") {
			t.Errorf("%v: %q", args, te.Message)
		}
	}
	// Another missing argument beside it is still named.
	te := e.fail("edit_note", map[string]any{"id": "a.md"}, "invalid_argument")
	if !strings.Contains(te.Message, "old_text") {
		t.Errorf("missing old_text too: %q", te.Message)
	}
}

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A version sent as null is absent, and a change without a version is
// refused: null never writes past the version check.
func TestNullVersionIsNoVersion(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\none\n")
	for tool, args := range map[string]map[string]any{
		"edit_note":          {"id": "a.md", "version": nil, "old_text": "one", "new_text": "two"},
		"replace_section":    {"id": "a.md", "version": nil, "heading": "A", "content": "two\n"},
		"update_frontmatter": {"id": "a.md", "version": nil, "set": map[string]any{"k": "v"}},
		"move_note":          {"id": "a.md", "version": nil, "to": "b.md"},
		"delete_note":        {"id": "a.md", "version": nil},
	} {
		if r := e.call(tool, args); !r.isError || !strings.Contains(r.text, "version") {
			t.Errorf("%s with a null version: %s; want it refused for the missing version", tool, r.text)
		}
	}
	if got := e.read("a.md"); got != "# A\none\n" {
		t.Fatalf("a.md = %q after changes with a null version", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "b.md")); !os.IsNotExist(err) {
		t.Errorf("b.md: %v; want no such note", err)
	}
}

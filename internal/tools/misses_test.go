package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// A miss helps the next call: a name that names nothing answers with the
// close names the index knows, a block that is not there with the note's
// blocks, and a search for [[Name]] with the tool that follows links.
func TestMissesHelpTheNextCall(t *testing.T) {
	files := map[string]string{
		"Projects/Garden Planning.md": "# Garden Planning\n",
		"Projects/Garden Redesign.md": "---\naliases: [backyard plan]\n---\n# Garden Redesign\nSee [[Homelab]].\n",
		"Homelab.md":                  "# Homelab\n\nRack it. ^rack\n\n- disks ^disks\n\n```\nnot ^code\n```\n",
	}
	// The notes are there before the vault opens, so the index holds them.
	e := newEnv(t, func(o *vault.Options) {
		o.Index = true
		for name, text := range files {
			p := filepath.Join(o.Dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := e.v.WaitIndexed(t.Context()); err != nil {
		t.Fatal(err)
	}
	te := e.fail("fetch", map[string]any{"id": "Garden Plann"}, "not_found")
	if len(te.Candidates) == 0 || te.Candidates[0] != "Projects/Garden Planning.md" || len(te.Candidates) > 5 ||
		!strings.Contains(te.Message, "candidates") {
		t.Errorf("fetch Garden Plann: %+v", te)
	}
	te = e.fail("fetch", map[string]any{"id": "backyard plann"}, "not_found")
	if !slices.Contains(te.Candidates, "Projects/Garden Redesign.md") {
		t.Errorf("fetch by a misspelt alias: %+v", te)
	}
	te = e.fail("edit_note", map[string]any{"id": "Garden Plann", "version": "0123456789ab", "old_text": "a", "new_text": "b"}, "not_found")
	if len(te.Candidates) == 0 || te.Candidates[0] != "Projects/Garden Planning.md" {
		t.Errorf("edit_note of a near miss: %+v", te)
	}
	if te := e.fail("fetch", map[string]any{"id": "Zzyzx"}, "not_found"); len(te.Candidates) != 0 || !strings.Contains(te.Message, "search or list") {
		t.Errorf("fetch of a name close to nothing: %+v", te)
	}

	te = e.fail("fetch", map[string]any{"id": "Homelab#^rak"}, "section_not_found")
	if !slices.Equal(te.Candidates, []string{"^rack", "^disks"}) || !strings.Contains(te.Message, "^rak") {
		t.Errorf("missing block: %+v", te)
	}

	for _, q := range []string{"[[Garden Redesign]]", "tomatoes [[Garden Redesign|the garden]]"} {
		te = e.fail("search", map[string]any{"query": q}, "invalid_argument")
		if !strings.Contains(te.Message, "links") || !strings.Contains(te.Message, `id "Garden Redesign"`) {
			t.Errorf("search %s: %q", q, te.Message)
		}
	}
}

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// answerNotes is a small vault with the shapes fetch and search answer
// about: frontmatter of several kinds, tags, aliases, headings, long text,
// accents, CJK, a task list, an emoji, a private note and a nested folder.
var answerNotes = map[string]string{
	"Projects/Garden Plan.md": "---\ntitle: Garden plan 2026\ntags: [garden, plan/spring]\naliases: [Backyard]\nstatus: active\npriority: 2\ndue: 2026-04-01\nrelated: \"[[Budget]]\"\n---\n# Garden plan\n\nRaised beds by the fence; tomatoes, garlic and onions.\n\n## Budget\n\nAbout 300 € for soil and wood. See [[Budget]].\n\n- [ ] order the wood 🚀\n- [x] measure the yard\n",
	"Budget.md":               "# Budget\n\nThe garden takes 300 € this spring; the kitchen waits until winter.\n\n#money #plan\n",
	"Daily/2026-03-02.md":     "Met Ana about the garden. Action items: buy seeds, call the plumber.\n\nNext steps: the fence.\n",
	"Notas/Reunión semanal.md": "---\ntags: [reunión]\n---\n# Reunión semanal\n\nLa reunión semanal trató el jardín y la cocina. Información: el año que viene.\n" +
		strings.Repeat("Palabras de relleno para una nota larga que sigue y sigue. ", 60) + "\nAl final, el jardín otra vez.\n",
	"会议记录/东京.md":          "# 東京で打ち合わせ\n\n会議の記録：项目预算と学习计划。garden\n",
	"Private/Diary.md":    "---\nprivate: true\n---\nThe garden at night.\n",
	"Broken.md":           "---\ntags: [unclosed\n---\nGarden notes with a broken header.\n",
	"Archive/Old Plan.md": "Old garden plan, kept for reference. Plan plan plan.\n",
	// The words asked for far into the text, and once close together.
	"Reading/Long.md": "# Long\n\n" + strings.Repeat("Filler words in a paragraph,\twith  odd   spacing.\n", 40) + "The kitchen is small.\n" +
		strings.Repeat("More filler for the reader. ", 50) + "\n\nThe garden and the kitchen, together at last.\n" + strings.Repeat("Tail text. ", 30),
}

// answerEnv serves answerNotes, indexed, each note modified at a fixed
// time, with one note's current version journaled as written by an app.
func answerEnv(t *testing.T) *env {
	t.Helper()
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, func(o *vault.Options) {
		o.Index = true
		i := 0
		// In path order, so that modification times are the same on every run.
		for _, rel := range slices.Sorted(maps.Keys(answerNotes)) {
			content := answerNotes[rel]
			p := filepath.Join(o.Dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			mod := base.Add(time.Duration(i) * time.Hour)
			if err := os.Chtimes(p, mod, mod); err != nil {
				t.Fatal(err)
			}
			i++
		}
	})
	if err := e.v.WaitIndexed(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := e.version("Projects/Garden Plan.md")
	if err := e.j.RecordWrite(context.Background(), store.JournalEntry{Time: base, App: "planner", Tool: "edit_note",
		Path: "Projects/Garden Plan.md", NewVersion: v, Result: store.ResultOK}); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAnswersGolden: the bytes a client gets for fetch and search, the
// JSON text of each result (the same bytes as its structuredContent), stay
// what testdata/answers.golden holds. Work on how answers are built must
// not change one byte of them; run go test -update only for a change of
// answer that is meant.
func TestAnswersGolden(t *testing.T) {
	e := answerEnv(t)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"fetch", map[string]any{"id": "Projects/Garden Plan.md"}},
		{"fetch", map[string]any{"id": "Backyard"}},
		{"fetch", map[string]any{"id": "Budget"}},
		{"fetch", map[string]any{"id": "Broken.md"}},
		{"fetch", map[string]any{"id": "Notas/Reunión semanal.md", "max_chars": 500}},
		{"fetch", map[string]any{"id": "Notas/Reunión semanal.md", "offset": 300, "max_chars": 200}},
		{"fetch", map[string]any{"id": "Projects/Garden Plan.md", "section": "Budget"}},
		{"fetch", map[string]any{"id": "会议记录/东京.md"}},
		{"fetch", map[string]any{"id": "Private/Diary.md"}},
		{"search", map[string]any{"query": "garden"}},
		{"search", map[string]any{"query": "garden", "limit": 2}},
		{"search", map[string]any{"query": "garden plan"}},
		{"search", map[string]any{"query": "gard"}},
		{"search", map[string]any{"query": `"garden plan"`}},
		{"search", map[string]any{"query": "garden OR cocina"}},
		{"search", map[string]any{"query": "garden -fence"}},
		{"search", map[string]any{"query": "[status:active]"}},
		{"search", map[string]any{"query": "tag:#plan"}},
		{"search", map[string]any{"query": "#reunión"}},
		{"search", map[string]any{"query": "reunion semanal"}},
		{"search", map[string]any{"query": "会议"}},
		{"search", map[string]any{"query": "🚀"}},
		{"search", map[string]any{"query": "- [ ]"}},
		{"search", map[string]any{"query": "garden", "folder": "Projects"}},
		{"search", map[string]any{"query": "jardín", "tag": "reunión"}},
		{"search", map[string]any{"query": "path:Daily garden"}},
		{"search", map[string]any{"query": "kitchen"}},
		{"search", map[string]any{"query": "kitchen garden"}},
		{"search", map[string]any{"query": "together"}},
		{"search", map[string]any{"query": `"the kitchen"`}},
		{"search", map[string]any{"query": "night"}},
		{"search", map[string]any{"query": "nothingmatches"}},
	}
	var got bytes.Buffer
	for _, c := range calls {
		res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		args, _ := json.Marshal(c.args)
		fmt.Fprintf(&got, "### %s %s error=%v\n", c.tool, args, res.IsError)
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				got.WriteString(tc.Text)
				got.WriteByte('\n')
			}
		}
		// The next page too, when there is one.
		if c.tool == "search" && !res.IsError {
			var out searchOut
			if tc, ok := res.Content[0].(*mcp.TextContent); ok && json.Unmarshal([]byte(tc.Text), &out) == nil && out.NextCursor != "" {
				more := map[string]any{"cursor": out.NextCursor}
				maps.Copy(more, c.args)
				r := e.ok("search", more, nil)
				fmt.Fprintf(&got, "### next page\n%s\n", r.text)
			}
		}
	}
	golden := filepath.Join("testdata", "answers.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("answers differ from %s:\n%s", golden, firstDiff(string(want), got.String()))
	}
}

// firstDiff shows the first line where want and got part.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\nwant %s\n got %s", i+1, a, b)
		}
	}
	return ""
}

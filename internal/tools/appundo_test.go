package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
)

// callErr calls a tool that must fail and returns its structured error.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) toolError {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out errorOutput
	if !res.IsError || json.Unmarshal(b, &out) != nil || out.Error == nil {
		t.Fatalf("%s succeeded or gave no error: %s", name, b)
	}
	return *out.Error
}

func (h *httpEnv) disk(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The change view's Undo takes the app's own change back, byte for byte,
// as the app's write of kind restore, which can itself be undone.
func TestUndoOwnChange(t *testing.T) {
	h := newHTTPEnv(t)
	for i, v := range versions {
		ui := h.dial(t, "ui-token", v, true)
		p := fmt.Sprintf("Plan%d.md", i)
		before := "# Plan\r\n\r\nSow beans in May.\r\nno newline at end"
		var c, e writeOut
		_, sc := callRaw(t, ui, "create_note", map[string]any{"path": p, "content": before})
		json.Unmarshal(sc, &c)
		_, sc = callRaw(t, ui, "edit_note", map[string]any{"id": p, "version": c.Version, "old_text": "May", "new_text": "June"})
		json.Unmarshal(sc, &e)

		var u viewResult
		_, sc = callRaw(t, ui, "undo_change", map[string]any{"id": p, "version": e.Version, "previous_version": c.Version})
		json.Unmarshal(sc, &u)
		if got := h.disk(t, p); got != before {
			t.Fatalf("%s: after undo the note is %q, want %q", v, got, before)
		}
		if u.Version != c.Version || u.PreviousVersion != e.Version || u.View == nil || u.View.Change != "restore" {
			t.Errorf("%s: undo answered %s", v, sc)
		}
		last := h.j.all()[len(h.j.all())-1]
		if last.App != "phone" || last.Tool != "undo" || last.Path != p || last.OldVersion != e.Version ||
			last.NewVersion != c.Version || last.Result != store.ResultOK || changeKind(last) != "restore" {
			t.Errorf("%s: journaled %+v", v, last)
		}
		// Undoing the undo is the app's own last change too.
		callRaw(t, ui, "undo_change", map[string]any{"id": p, "version": c.Version, "previous_version": e.Version})
		if got := h.disk(t, p); !strings.Contains(got, "June") {
			t.Errorf("%s: undoing the undo left %q", v, got)
		}
	}
}

// An undo of a note created by the change puts the note in the trash.
func TestUndoCreate(t *testing.T) {
	h := newHTTPEnv(t)
	ui := h.dial(t, "ui-token", versions[0], true)
	var c writeOut
	_, sc := callRaw(t, ui, "create_note", map[string]any{"path": "New.md", "content": "hello\n"})
	json.Unmarshal(sc, &c)
	callRaw(t, ui, "undo_change", map[string]any{"id": "New.md", "version": c.Version})
	if _, err := os.Stat(filepath.Join(h.dir, "New.md")); !os.IsNotExist(err) {
		t.Errorf("the created note is still there: %v", err)
	}
}

// What the app may not undo: a change made after its own, someone
// else's change, a note outside its scope. Each is refused and changes
// nothing.
func TestUndoRefusals(t *testing.T) {
	h := newHTTPEnv(t)
	for i, v := range versions {
		ui := h.dial(t, "ui-token", v, true)
		other := h.dial(t, "other-token", v, false)
		owner := h.dial(t, "owner-token", v, false)
		p := fmt.Sprintf("Shared%d.md", i)
		var c, e, o writeOut
		_, sc := callRaw(t, ui, "create_note", map[string]any{"path": p, "content": "one\ntwo\n"})
		json.Unmarshal(sc, &c)
		_, sc = callRaw(t, ui, "edit_note", map[string]any{"id": p, "version": c.Version, "old_text": "one", "new_text": "ONE"})
		json.Unmarshal(sc, &e)
		_, sc = callRaw(t, other, "edit_note", map[string]any{"id": p, "version": e.Version, "old_text": "two", "new_text": "TWO"})
		json.Unmarshal(sc, &o)
		now := h.disk(t, p)

		te := callErr(t, ui, "undo_change", map[string]any{"id": p, "version": e.Version, "previous_version": c.Version})
		if te.Code != codeUndoConflict || !strings.Contains(te.Message, testURL+"/notes/"+p) || te.CurrentVersion != o.Version {
			t.Errorf("%s: undo after another change: %+v", v, te)
		}
		te = callErr(t, ui, "undo_change", map[string]any{"id": p, "version": o.Version, "previous_version": e.Version})
		if te.Code != codeNotUndoable || !strings.Contains(te.Message, testURL+"/notes/"+p) {
			t.Errorf("%s: undo of another app's change: %+v", v, te)
		}
		if h.disk(t, p) != now {
			t.Errorf("%s: a refused undo changed the note", v)
		}

		// A private note does not exist for the app, even one it saw
		// made.
		s := fmt.Sprintf("Secret%d.md", i)
		var sec writeOut
		_, sc = callRaw(t, owner, "create_note", map[string]any{"path": s, "content": "---\nprivate: true\n---\nsecret\n"})
		json.Unmarshal(sc, &sec)
		if te := callErr(t, ui, "undo_change", map[string]any{"id": s, "version": sec.Version}); te.Code != "not_found" {
			t.Errorf("%s: undo of a private note: %+v", v, te)
		}
		if !strings.Contains(h.disk(t, s), "secret") {
			t.Errorf("%s: the private note was changed", v)
		}
	}
}

package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callRaw calls a tool and returns its text content and structured
// content as sent.
func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (text string, structured []byte) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %v", name, res.Content[0].(*mcp.TextContent).Text)
	}
	structured, err = json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text, structured
}

type viewResult struct {
	writeOut
	View *changeView `json:"view"`
}

// A write by a client with the extension hands the view the change: the
// versions before and after and the diff with the changed words marked;
// the text the model reads is what a plain client gets.
func TestWriteResultCarriesTheChange(t *testing.T) {
	h := newHTTPEnv(t)
	for i, v := range versions {
		ui := h.dial(t, "ui-token", v, true)
		plain := h.dial(t, "plain-token", v, false)
		p := fmt.Sprintf("Garden/Plan%d.md", i)
		_, sc := callRaw(t, ui, "create_note", map[string]any{"path": p, "content": "# Plan\n\nSow beans in May.\nWater daily.\n"})
		var created viewResult
		if err := json.Unmarshal(sc, &created); err != nil || created.View == nil || created.View.Change != "create" ||
			created.View.Added != 4 || created.View.Removed != 0 || !created.View.Undoable {
			t.Fatalf("%s: create view %s", v, sc)
		}
		text, sc := callRaw(t, ui, "edit_note", map[string]any{"id": p, "version": created.Version, "old_text": "May", "new_text": "June"})
		var got viewResult
		if err := json.Unmarshal(sc, &got); err != nil {
			t.Fatal(err)
		}
		cv := got.View
		if cv == nil || cv.Path != p || cv.Title != "Plan" || cv.App != "phone" || cv.Change != "edit" ||
			cv.Before != created.Version || cv.After != got.Version || cv.Summary != "+1 \u22121 lines" || !cv.Undoable ||
			cv.URL != testURL+"/notes/Garden/Plan"+fmt.Sprint(i)+".md" {
			t.Fatalf("%s: view %s", v, sc)
		}
		var marked []string
		for _, r := range cv.Rows {
			for _, s := range r.Spans {
				if s.Changed {
					marked = append(marked, r.Op+s.Text)
				}
			}
		}
		if strings.Join(marked, ",") != "-May,+June" {
			t.Errorf("%s: marked words %v in %s", v, marked, sc)
		}
		var rest map[string]any
		json.Unmarshal(sc, &rest)
		delete(rest, "view")
		if bare, _ := json.Marshal(rest); strings.Contains(text, `"view"`) || !jsonEqual(text, string(bare)) {
			t.Errorf("%s: the model's text is %s; want the result without the view, %s", v, text, bare)
		}
		// A dry run changes nothing, and has no change to show.
		_, sc = callRaw(t, ui, "edit_note", map[string]any{"id": p, "version": got.Version, "old_text": "June", "new_text": "July", "dry_run": true})
		if strings.Contains(string(sc), `"view"`) {
			t.Errorf("%s: a dry run's result has a view: %s", v, sc)
		}
		// A plain client's result: the text, and the same as structured
		// content, as before.
		text, sc = callRaw(t, plain, "edit_note", map[string]any{"id": p, "version": got.Version, "old_text": "daily", "new_text": "weekly"})
		if !jsonEqual(text, string(sc)) || strings.Contains(text, "view") {
			t.Errorf("%s: plain result text %s, structured %s", v, text, sc)
		}
	}
}

// A large change is summed up, as the console does, not sent whole.
func TestLargeChangeIsSummarised(t *testing.T) {
	h := newHTTPEnv(t)
	ui := h.dial(t, "ui-token", versions[1], true)
	var a strings.Builder
	for i := range 400 {
		fmt.Fprintf(&a, "line %d of the old text\n", i)
	}
	_, sc := callRaw(t, ui, "create_note", map[string]any{"path": "Big.md", "content": a.String()})
	var c viewResult
	json.Unmarshal(sc, &c)
	if c.View == nil || len(c.View.Rows) != 0 || c.View.Summary != "+400 \u22120 lines" || c.View.Note == "" || len(sc) > 4<<10 {
		t.Errorf("create of 400 lines: %d bytes, view %+v", len(sc), c.View)
	}
	_, sc = callRaw(t, ui, "edit_note", map[string]any{"id": "Big.md", "version": c.Version, "old_text": "old", "new_text": "new", "replace_all": true})
	var e viewResult
	json.Unmarshal(sc, &e)
	if e.View == nil || len(e.View.Rows) != 0 || e.View.Summary != "+400 \u2212400 lines" || len(sc) > 4<<10 {
		t.Errorf("edit of 400 lines: %d bytes, view %+v", len(sc), e.View)
	}
}

// A move and a delete show what they did but offer no undo in the view:
// they touch more than one path, which the console undoes.
func TestMoveAndDeleteViews(t *testing.T) {
	h := newHTTPEnv(t)
	ui := h.dial(t, "ui-token", versions[1], true)
	var c viewResult
	_, sc := callRaw(t, ui, "create_note", map[string]any{"path": "A.md", "content": "one\ntwo\n"})
	json.Unmarshal(sc, &c)
	_, sc = callRaw(t, ui, "move_note", map[string]any{"id": "A.md", "version": c.Version, "to": "B.md"})
	var m struct {
		View *changeView `json:"view"`
	}
	json.Unmarshal(sc, &m)
	if m.View == nil || m.View.Change != "move" || m.View.From != "A.md" || m.View.Path != "B.md" || m.View.Undoable || m.View.Note != "Moved from A.md." {
		t.Errorf("move view %s", sc)
	}
	_, sc = callRaw(t, ui, "delete_note", map[string]any{"id": "B.md", "version": c.Version})
	m.View = nil
	json.Unmarshal(sc, &m)
	if m.View == nil || m.View.Change != "delete" || m.View.Removed != 2 || m.View.Added != 0 || m.View.Undoable {
		t.Errorf("delete view %s", sc)
	}
}

package tools

import (
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

func TestWriteTools(t *testing.T) {
	e := newEnv(t)
	var w writeOut
	e.ok("create_note", map[string]any{"path": "Projects/Garden.md",
		"content": "---\ntags: [home]\n---\n# Garden\n\nPlant in May.\n\n## Plan\n\nDig.\n\n## Log\n\nStarted in May.\n"}, &w)
	if w.ID != "Projects/Garden.md" || w.Version == "" || w.PreviousVersion != "" {
		t.Fatalf("create = %+v", w)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": w.ID}, &f)
	if f.Metadata.Version != w.Version || f.Metadata.LastWriter != "tester" {
		t.Errorf("after create: %+v", f.Metadata)
	}

	steps := []struct {
		tool string
		args map[string]any
		want string // on disk afterwards
	}{
		{"edit_note", map[string]any{"old_text": "Plant in May", "new_text": "Plant in early May"}, "Plant in early May."},
		{"append", map[string]any{"text": "Watered.", "section": "Log"}, "Watered."},
		{"replace_section", map[string]any{"heading": "Plan", "content": "Dig two beds.\n"}, "Dig two beds."},
		{"update_frontmatter", map[string]any{"set": map[string]any{"status": "active"}, "remove": []string{"tags"}}, "status: active"},
		{"edit_note", map[string]any{"old_text": "May", "new_text": "June", "replace_all": true}, "early June.\n"},
	}
	version := w.Version
	for _, s := range steps {
		args := map[string]any{"id": w.ID}
		for k, v := range s.args {
			args[k] = v
		}
		if s.tool != "append" {
			args["version"] = version
		}
		var out writeOut
		e.ok(s.tool, args, &out)
		if out.ID != w.ID || out.PreviousVersion != version || out.Version == version {
			t.Errorf("%s = %+v (had %s)", s.tool, out, version)
		}
		version = out.Version
		if body := e.read("Projects/Garden.md"); !strings.Contains(body, s.want) {
			t.Errorf("after %s the note lacks %q:\n%s", s.tool, s.want, body)
		}
	}
	if body := e.read("Projects/Garden.md"); strings.Contains(body, "tags:") || !strings.Contains(body, "Started in June.") {
		t.Errorf("tags not removed:\n%s", body)
	}

	entries := e.j.all()
	if len(entries) != 1+len(steps) {
		t.Fatalf("journal has %d entries: %+v", len(entries), entries)
	}
	prev := ""
	for i, en := range entries {
		if en.App != "tester" || en.Path != w.ID || en.Result != store.ResultOK || en.OldVersion != prev || en.NewVersion == "" || en.Time.IsZero() {
			t.Errorf("entry %d = %+v", i, en)
		}
		prev = en.NewVersion
	}
	if entries[0].Tool != "create_note" || entries[2].Tool != "append" || entries[len(entries)-1].NewVersion != version {
		t.Errorf("journal = %+v", entries)
	}
}

func TestMoveAndDelete(t *testing.T) {
	e := newEnv(t)
	e.ok("create_note", map[string]any{"path": "Garden.md", "content": "# Garden\n"}, nil)
	e.ok("create_note", map[string]any{"path": "Ideas.md", "content": "See [[Garden]].\n"}, nil)
	e.ok("create_note", map[string]any{"path": "More.md", "content": "Also [[Garden]].\n"}, nil)
	before := len(e.j.all())

	var mv moveOut
	e.ok("move_note", map[string]any{"id": "Garden.md", "to": "Home/Garden plan.md", "version": e.version("Garden.md"), "update_links": true}, &mv)
	if mv.ID != "Home/Garden plan.md" || mv.From != "Garden.md" || mv.Version == "" || len(mv.Rewritten) != 2 || len(mv.StillLinking) != 0 {
		t.Fatalf("move = %+v", mv)
	}
	if body := e.read("Ideas.md"); !strings.Contains(body, "Garden plan") {
		t.Errorf("link not rewritten: %q", body)
	}
	moved := e.j.all()[before:]
	paths := map[string]store.JournalEntry{}
	for _, en := range moved {
		if en.Tool != "move_note" || en.Result != "ok" {
			t.Errorf("move entry %+v", en)
		}
		paths[en.Path] = en
	}
	if len(moved) != 4 || paths["Home/Garden plan.md"].NewVersion != mv.Version || paths["Garden.md"].NewVersion != "" ||
		paths["Ideas.md"].NewVersion == "" || paths["More.md"].OldVersion == "" {
		t.Errorf("move journal = %+v", moved)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "Ideas.md"}, &f)
	if f.Metadata.LastWriter != "tester" {
		t.Errorf("rewritten note's last_writer = %q", f.Metadata.LastWriter)
	}

	// Without link rewriting the linking notes are reported.
	var mv2 moveOut
	e.ok("move_note", map[string]any{"id": mv.ID, "to": "Garden.md", "version": mv.Version, "update_links": false}, &mv2)
	if len(mv2.Rewritten) != 0 || len(mv2.StillLinking) != 2 {
		t.Errorf("move without links = %+v", mv2)
	}

	var d deleteOut
	e.ok("delete_note", map[string]any{"id": "Garden.md", "version": mv2.Version}, &d)
	if d.ID != "Garden.md" || !strings.HasPrefix(d.TrashedTo, ".trash/") || d.PreviousVersion != mv2.Version {
		t.Fatalf("delete = %+v", d)
	}
	if body := e.read(d.TrashedTo); body != "# Garden\n" {
		t.Errorf("trashed note = %q", body)
	}
	all := e.j.all()
	gone, trashed := all[len(all)-2], all[len(all)-1]
	if gone.Tool != "delete_note" || gone.Path != "Garden.md" || gone.OldVersion != mv2.Version || gone.NewVersion != "" {
		t.Errorf("delete entry = %+v", gone)
	}
	if trashed.Tool != "delete_note" || trashed.Path != d.TrashedTo || trashed.NewVersion != mv2.Version {
		t.Errorf("trash entry = %+v", trashed)
	}
	var tf fetchOut
	e.ok("fetch", map[string]any{"id": d.TrashedTo}, &tf)
	if tf.Metadata.LastWriter != "tester" {
		t.Errorf("trashed note's last writer = %q, want tester", tf.Metadata.LastWriter)
	}
	e.fail("fetch", map[string]any{"id": "Garden.md"}, "not_found")
}

func TestSchemaRefusedWritesAreJournaled(t *testing.T) {
	e := newEnv(t)
	e.ok("create_note", map[string]any{"path": "a.md", "content": "x\n"}, nil)
	n := len(e.j.all())
	e.fail("edit_note", map[string]any{"id": "a.md", "version": 5, "old_text": "x", "new_text": "y"}, "invalid_argument")
	e.fail("delete_note", map[string]any{"id": "a.md"}, "version_required")
	got := e.j.all()[n:]
	if len(got) != 2 || got[0].Tool != "edit_note" || got[0].Path != "a.md" || got[0].Result != "invalid_argument" ||
		got[1].Tool != "delete_note" || got[1].App != "tester" || got[1].Result != "version_required" {
		t.Errorf("journal = %+v", got)
	}
	e.fail("fetch", map[string]any{"id": 5}, "invalid_argument")
	if len(e.j.all()) != n+2 {
		t.Error("a refused read was journaled")
	}
}

func TestRefusedWritesAreJournaled(t *testing.T) {
	e := newEnv(t)
	e.ok("create_note", map[string]any{"path": "a.md", "content": "one two two\n"}, nil)
	v := e.version("a.md")
	n := len(e.j.all())
	e.fail("edit_note", map[string]any{"id": "a.md", "version": "0123456789ab", "old_text": "one", "new_text": "1"}, "note_changed")
	e.fail("create_note", map[string]any{"path": "a.md", "content": "again"}, "note_exists")
	e.fail("edit_note", map[string]any{"id": "a.md", "version": v, "old_text": "", "new_text": "1"}, "invalid_argument")
	got := e.j.all()[n:]
	want := []struct{ tool, old, result string }{
		{"edit_note", "0123456789ab", "note_changed"},
		{"create_note", "", "note_exists"},
		{"edit_note", v, "invalid_argument"},
	}
	if len(got) != len(want) {
		t.Fatalf("journal = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Tool != w.tool || g.OldVersion != w.old || g.Result != w.result || g.NewVersion != "" || g.Path != "a.md" {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	if e.read("a.md") != "one two two\n" {
		t.Error("a refused write changed the note")
	}
}

func TestJournalFailureDoesNotFailTheWrite(t *testing.T) {
	e := newEnv(t)
	e.j.fail = errJournalDown
	var w writeOut
	e.ok("create_note", map[string]any{"path": "a.md", "content": "x"}, &w)
	if w.Version == "" || e.read("a.md") != "x" {
		t.Errorf("create = %+v", w)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "a.md"}, &f)
	if f.Metadata.LastWriter != "external" {
		t.Errorf("last_writer = %q", f.Metadata.LastWriter)
	}
	if !strings.Contains(e.log.String(), "journal write failed") {
		t.Errorf("journal failure not logged:\n%s", e.log.String())
	}
}

// TestReplaceTopHeading: replace_section on a note's top heading, whose
// section holds every other section of the note, is refused with the
// sections it would erase; with include_subsections it replaces them.
func TestReplaceTopHeading(t *testing.T) {
	e := newEnv(t)
	const doc = "# Garden\n\nIntro.\n\n## Plan\n\nDig.\n\n## Budget\n\n100\n\n## Log\n\nWatered.\n"
	e.write("g.md", doc)
	v := e.version("g.md")
	te := e.fail("replace_section", map[string]any{"id": "g.md", "version": v, "heading": "Garden", "content": "New intro.\n"}, "section_has_subsections")
	if strings.Join(te.Candidates, "|") != "## Plan (line 5)|## Budget (line 9)|## Log (line 13)" {
		t.Errorf("candidates = %v", te.Candidates)
	}
	if got := e.read("g.md"); got != doc {
		t.Fatalf("a refused replace changed the note:\n%s", got)
	}
	var out writeOut
	e.ok("replace_section", map[string]any{"id": "g.md", "version": v, "heading": "Garden", "content": "New intro.\n",
		"include_subsections": true}, &out)
	if got := e.read("g.md"); got != "# Garden\n\nNew intro.\n" || out.PreviousVersion != v {
		t.Errorf("note = %q, previous_version %q", got, out.PreviousVersion)
	}
}

// delete_note by an app without private notes answers the same trash path
// whether or not the trash already holds a private note of that name, and
// leaves that note as it was.
func TestDeleteTrashNameHidesPrivate(t *testing.T) {
	const hidden = "---\nprivate: true\n---\nzebra\n"
	names := map[bool]string{}
	for _, withHidden := range []bool{false, true} {
		base := newEnv(t)
		base.write("Work/Note.md", "# Note\n")
		if withHidden {
			base.write(".trash/Work/Note.md", hidden)
		}
		app := base.scoped(t, scope.Scope{})
		var d deleteOut
		app.ok("delete_note", map[string]any{"id": "Work/Note.md", "version": app.version("Work/Note.md")}, &d)
		names[withHidden] = d.TrashedTo
		if got := base.read(d.TrashedTo); got != "# Note\n" {
			t.Errorf("the trashed note at %s reads %q", d.TrashedTo, got)
		}
		if withHidden && base.read(".trash/Work/Note.md") != hidden {
			t.Errorf("the hidden trashed note changed")
		}
	}
	if names[true] != names[false] {
		t.Errorf("trashed to %s beside a private note, %s without it", names[true], names[false])
	}
}

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Names Obsidian cannot link (# ^ [ ] |) are refused for new notes and move
// targets, saying why; a note that has such a name already stays readable
// and movable to a good name.
func TestUnlinkableNamesRefused(t *testing.T) {
	e := newEnv(t)
	e.write("C#/Plan #2.md", "# Plan\n")
	e.write("a.md", "# A\n")
	for _, p := range []string{"Plan #2.md", "see ^here.md", "[draft].md", "Plan [2].md", "a|b.md", "F#/x.md"} {
		te := e.fail("create_note", map[string]any{"path": p, "content": "x"}, "invalid_path")
		if !strings.Contains(te.Message, "Obsidian cannot link") || !strings.Contains(te.Message, "choose a name without them") {
			t.Errorf("create %s: %q", p, te.Message)
		}
		if _, err := os.Stat(filepath.Join(e.dir, p)); err == nil {
			t.Errorf("create %s wrote the note", p)
		}
	}
	v := e.version("a.md")
	te := e.fail("move_note", map[string]any{"id": "a.md", "version": v, "to": "Done/a #1.md"}, "invalid_path")
	if !strings.Contains(te.Message, `"#"`) {
		t.Errorf("move to a # name: %q", te.Message)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "C#/Plan #2.md"}, &f)
	e.ok("move_note", map[string]any{"id": "C#/Plan #2.md", "version": f.Metadata.Version, "to": "C#/Plan 2.md"}, nil)
}

// today, yesterday, tomorrow and a date are the daily note for every tool,
// even with a note of the same date's name elsewhere, whether the daily
// note exists or not.
func TestDayWordsAreTheDailyNote(t *testing.T) {
	e := newEnv(t, at)
	for _, d := range []string{"2026-11-30", "2026-12-01", "2026-12-02"} {
		e.write("Projects/"+d+".md", "# Launch day\n")
	}
	e.write("Daily/2026-11-30.md", "# Monday\n")
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "yesterday"}, &f)
	if f.ID != "Daily/2026-11-30.md" {
		t.Errorf("fetch yesterday = %s", f.ID)
	}
	for _, day := range []string{"today", "tomorrow"} {
		if te := e.fail("fetch", map[string]any{"id": day}, "not_found"); !strings.Contains(te.Message, "no daily note") {
			t.Errorf("fetch %s before its daily note exists: %q", day, te.Message)
		}
	}
	var w writeOut
	e.ok("append", map[string]any{"id": "today", "text": "- standup"}, &w)
	if w.ID != "Daily/2026-12-01.md" || e.read("Projects/2026-12-01.md") != "# Launch day\n" {
		t.Errorf("append today went to %s", w.ID)
	}
	e.ok("fetch", map[string]any{"id": "Today"}, &f)
	if f.ID != "Daily/2026-12-01.md" {
		t.Errorf("fetch today = %s", f.ID)
	}
	// The other tools take a day as fetch and append do, a note named
	// "today" notwithstanding.
	e.write("Notes/today.md", "# Not a daily note\n")
	var l linksOut
	e.ok("links", map[string]any{"id": "today"}, &l)
	if l.ID != "Daily/2026-12-01.md" {
		t.Errorf("links today = %s", l.ID)
	}
	e.ok("edit_note", map[string]any{"id": "2026-11-30", "version": e.version("yesterday"), "old_text": "Monday", "new_text": "Mon"}, &w)
	if w.ID != "Daily/2026-11-30.md" || e.read("Projects/2026-11-30.md") != "# Launch day\n" {
		t.Errorf("edit_note of a date edited %s", w.ID)
	}
	if te := e.fail("links", map[string]any{"id": "tomorrow"}, "not_found"); !strings.Contains(te.Message, "Daily/2026-12-02.md") {
		t.Errorf("links tomorrow before its daily note exists: %q", te.Message)
	}
}

// A version that is no version at all is an invalid argument, not a sign
// that the note changed: reading it again would not help the next call.
func TestMalformedVersionIsInvalidArgument(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\none\n")
	for _, v := range []string{"v1", "2026-12-01", "ABCDEF012345", "0123456789abc", "latest"} {
		te := e.fail("edit_note", map[string]any{"id": "a.md", "version": v, "old_text": "one", "new_text": "1"}, "invalid_argument")
		if !strings.Contains(te.Message, "not a note version") || !strings.Contains(te.Message, "metadata.version") || te.CurrentVersion != "" {
			t.Errorf("version %q: %+v", v, te)
		}
		e.fail("move_note", map[string]any{"id": "a.md", "version": v, "to": "b.md"}, "invalid_argument")
	}
	// A well-formed version the note no longer has is still note_changed.
	e.fail("edit_note", map[string]any{"id": "a.md", "version": "0123456789ab", "old_text": "one", "new_text": "1"}, "note_changed")
	if e.read("a.md") != "# A\none\n" {
		t.Error("a refused edit changed the note")
	}
}

// A move into .trash/ says to delete the note; a move within it, to move
// it out to restore it.
func TestMoveIntoTrashSaysDelete(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\n")
	e.write(".trash/old.md", "# Old\n")
	te := e.fail("move_note", map[string]any{"id": "a.md", "version": e.version("a.md"), "to": ".trash/a.md"}, "protected_path")
	if !strings.Contains(te.Message, "delete_note") {
		t.Errorf("move into .trash/: %q", te.Message)
	}
	te = e.fail("move_note", map[string]any{"id": ".trash/old.md", "version": e.version(".trash/old.md"), "to": ".trash/x/old.md"}, "protected_path")
	if !strings.Contains(te.Message, "outside .trash/") {
		t.Errorf("move within .trash/: %q", te.Message)
	}
	if e.read("a.md") != "# A\n" {
		t.Error("a refused move changed the note")
	}
}

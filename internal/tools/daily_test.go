package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// at is the clock of the daily-note tests: a Tuesday afternoon.
func at(o *vault.Options) {
	o.Now = func() time.Time { return time.Date(2026, 12, 1, 14, 3, 0, 0, time.Local) }
}

func TestDailyNotes(t *testing.T) {
	e := newEnv(t, at)
	today, yesterday := "2026-12-01", "2026-11-30"
	e.write(".obsidian/daily-notes.json", `{"folder":"Journal","format":"YYYY-MM-DD","template":"Templates/Daily"}`)
	e.write("Templates/Daily.md", "# {{date:dddd}}\n\n## Log\n\n## Tasks\n")
	e.write("Journal/"+yesterday+".md", "# Yesterday\nwent well\n")

	te := e.fail("fetch", map[string]any{"id": "today"}, "not_found")
	if !strings.Contains(te.Message, "Journal/"+today+".md") || !strings.Contains(te.Message, "append") {
		t.Errorf("fetch today before it exists: %q", te.Message)
	}
	var w writeOut
	e.ok("append", map[string]any{"id": "today", "text": "- called the plumber"}, &w)
	want := "# Tuesday\n\n## Log\n\n## Tasks\n- called the plumber\n"
	if w.ID != "Journal/"+today+".md" || e.read(w.ID) != want {
		t.Fatalf("append today created %s: %q", w.ID, e.read(w.ID))
	}
	e.ok("append", map[string]any{"id": "Today", "text": "met Ana", "section": "Log"}, &w)
	if got := e.read(w.ID); !strings.Contains(got, "## Log\nmet Ana\n\n## Tasks") {
		t.Errorf("append to today's Log: %q", got)
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "yesterday"}, &f)
	if f.ID != "Journal/"+yesterday+".md" || !strings.Contains(f.Text, "went well") {
		t.Errorf("fetch yesterday = %+v", f)
	}
	e.ok("fetch", map[string]any{"id": yesterday}, &f)
	if f.ID != "Journal/"+yesterday+".md" {
		t.Errorf("fetch by date = %q", f.ID)
	}
	// The template is never changed, and the settings stay out of reach.
	if e.read("Templates/Daily.md") != "# {{date:dddd}}\n\n## Log\n\n## Tasks\n" {
		t.Error("template changed")
	}
	e.fail("fetch", map[string]any{"id": ".obsidian/daily-notes.json"}, "protected_path")
}

func TestDailyNotesWithoutSettings(t *testing.T) {
	e := newEnv(t, at)
	today := "2026-12-01"
	var w writeOut
	e.ok("append", map[string]any{"id": "today", "text": "first line"}, &w)
	if w.ID != "Daily/"+today+".md" || e.read(w.ID) != "first line\n" {
		t.Errorf("append today = %+v: %q", w, e.read(w.ID))
	}
	// A section the new note does not have yet: the note is created and
	// the error lists its headings.
	e.write("Daily/2020-01-01.md", "x\n")
	e.fail("append", map[string]any{"id": "2021-01-01", "text": "y", "section": "Log"}, "section_not_found")
}

// TestDailyNoteNotCreatedForMissingSection: appending under a section the
// template does not hold is refused without leaving a new daily note
// behind, as a refused call changes nothing.
func TestDailyNoteNotCreatedForMissingSection(t *testing.T) {
	e := newEnv(t, at)
	e.write(".obsidian/daily-notes.json", `{"folder":"Journal","template":"Templates/Daily"}`)
	e.write("Templates/Daily.md", "# {{date}}\n\n## Log\n")
	te := e.fail("append", map[string]any{"id": "today", "text": "- x", "section": "Tasks"}, "section_not_found")
	if !strings.Contains(strings.Join(te.Candidates, " "), "Log") {
		t.Errorf("candidates %q do not name the template's headings", te.Candidates)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "Journal", "2026-12-01.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused append left today's note behind: %v", err)
	}
}

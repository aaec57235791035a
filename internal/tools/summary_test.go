package tools

import (
	"fmt"
	"strings"
	"testing"
)

// Every write that changes text says what it changed: lines removed and
// added, and those lines; a dry run says the same and writes nothing, not
// even a journal entry.
func TestWritesSayWhatChanged(t *testing.T) {
	e := newEnv(t)
	var c writeOut
	e.ok("create_note", map[string]any{"path": "Plan.md", "content": "# Plan\n\n## Garden\nTomatoes.\n\n## House\nPaint.\n"}, &c)
	if c.Change == nil || c.Change.Added != 7 || c.Change.Removed != 0 || !strings.HasPrefix(c.Change.Diff, "@@ line 1 @@\n+# Plan\n") {
		t.Errorf("create: %+v", c.Change)
	}

	var ed writeOut
	e.ok("edit_note", map[string]any{"id": "Plan.md", "version": c.Version, "old_text": "Tomatoes.", "new_text": "Beans."}, &ed)
	if ed.Change == nil || ed.Change.Added != 1 || ed.Change.Removed != 1 || ed.Change.Diff != "@@ line 4 @@\n-Tomatoes.\n+Beans.\n" {
		t.Errorf("edit: %+v", ed.Change)
	}

	var rs writeOut
	e.ok("replace_section", map[string]any{"id": "Plan.md", "version": ed.Version, "heading": "House", "content": "Roof.\nWindows.\n"}, &rs)
	if rs.Change == nil || rs.Change.Diff != "@@ line 7 @@\n-Paint.\n+Roof.\n+Windows.\n" {
		t.Errorf("replace_section (it must say what it removed): %+v", rs.Change)
	}

	var ap writeOut
	e.ok("append", map[string]any{"id": "Plan.md", "text": "- [ ] call the roofer"}, &ap)
	if ap.Change == nil || ap.Change.Added != 1 || ap.Change.Removed != 0 || ap.Change.Diff != "@@ line 9 @@\n+- [ ] call the roofer\n" {
		t.Errorf("append: %+v", ap.Change)
	}
}

// dry_run on the five tools that change text: the answer shows the change
// and the version to make it with; the note, the journal and the history
// stay as they were; a dry run that would fail fails the same way.
func TestDryRun(t *testing.T) {
	e := newEnv(t)
	e.write("Plan.md", "---\nstatus: open\n---\n# Plan\n\n## House\nPaint.\n")
	v := e.version("Plan.md")
	before := len(e.j.all())
	calls := []struct {
		tool string
		args map[string]any
		diff string
	}{
		{"create_note", map[string]any{"path": "New.md", "content": "hello\n"}, "@@ line 1 @@\n+hello\n"},
		{"append", map[string]any{"id": "Plan.md", "text": "More."}, "@@ line 8 @@\n+More.\n"},
		{"edit_note", map[string]any{"id": "Plan.md", "version": v, "old_text": "Paint.", "new_text": "Roof."}, "@@ line 7 @@\n-Paint.\n+Roof.\n"},
		{"replace_section", map[string]any{"id": "Plan.md", "version": v, "heading": "House", "content": "Roof.\n"}, "@@ line 7 @@\n-Paint.\n+Roof.\n"},
		{"update_frontmatter", map[string]any{"id": "Plan.md", "version": v, "set": map[string]any{"status": "done"}}, "@@ line 2 @@\n-status: open\n+status: done\n"},
	}
	for _, tc := range calls {
		tc.args["dry_run"] = true
		var out writeOut
		e.ok(tc.tool, tc.args, &out)
		if !out.DryRun || out.Change == nil || out.Change.Diff != tc.diff {
			t.Errorf("%s dry run = %+v (change %+v)", tc.tool, out, out.Change)
		}
		if tc.tool != "create_note" && out.Version != v {
			t.Errorf("%s dry run version = %q, want the note's version now %q", tc.tool, out.Version, v)
		}
	}
	if got := e.version("Plan.md"); got != v {
		t.Errorf("a dry run changed Plan.md")
	}
	if _, err := e.v.Read(t.Context(), "New.md"); err == nil {
		t.Errorf("a dry run created New.md")
	}
	if n := len(e.j.all()); n != before {
		t.Errorf("dry runs were journaled: %d entries, want %d", n, before)
	}
	e.fail("edit_note", map[string]any{"id": "Plan.md", "version": v, "old_text": "absent", "new_text": "x", "dry_run": true}, "no_match")
	e.fail("edit_note", map[string]any{"id": "Plan.md", "version": "0123456789ab", "old_text": "Paint.", "new_text": "x", "dry_run": true}, "note_changed")
	e.fail("create_note", map[string]any{"path": "Plan.md", "content": "x", "dry_run": true}, "note_exists")
}

// The summary of a change to a long note stays small, and says it was cut.
func TestSummaryIsBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d changed %s\n", i, strings.Repeat("x", 300))
	}
	s := summarize(a.String(), b.String())
	if s.Added != 5000 || s.Removed != 5000 || !s.Cut || len(s.Diff) > maxSummaryChars {
		t.Errorf("summary: added %d removed %d cut %v, %d chars", s.Added, s.Removed, s.Cut, len(s.Diff))
	}
	if s := summarize("a\nb\n", "a\nb"); s.Added != 1 || s.Removed != 1 {
		t.Errorf("a change of the final line end: %+v", s)
	}
}

// An append to a long note costs a pass over its lines, not a diff of
// the whole: the lines it shares at both ends are set aside first.
func BenchmarkSummaryAppendToLongNote(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "line %d of a long note with some words\n", i)
	}
	before := sb.String()
	after := before + "- [ ] one more task\n"
	for b.Loop() {
		summarize(before, after)
	}
}

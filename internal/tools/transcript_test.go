package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestModelSessionTranscript plays a session as a model has it with a
// realistic vault, and keeps what each call answered in a golden file that
// a person can read: find the open tasks, read two notes at once, try an
// edit as a dry run and then make it, read the version before, and put a
// line after a block. Times and the versions they change with are masked;
// everything else must stay byte for byte, or the diff says what changed.
func TestModelSessionTranscript(t *testing.T) {
	e := newHistoryEnv(t)
	e.write("Projects/Garden.md", "---\ntags: [garden]\n---\n# Garden\n\n## Tasks\n- [ ] buy seeds\n- [x] dig the beds\n- [ ] call Ana about the fence ^fence\n\n## Notes\nClay soil.\n")
	e.write("Projects/House.md", "# House\n- [ ] call the roofer\n- [x] paint the door\n")
	e.write("Daily/2026-11-30.md", "# Monday\nMet Ana; she can fix the fence on Friday.\n")

	var log bytes.Buffer
	step := func(note, tool string, args map[string]any) result {
		t.Helper()
		r := e.call(tool, args)
		a, _ := json.Marshal(args)
		log.WriteString("## " + note + "\n> " + tool + " " + string(a) + "\n")
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, r.raw, "", "  "); err != nil {
			pretty.Write(r.raw)
		}
		log.Write(pretty.Bytes())
		log.WriteString("\n\n")
		return r
	}
	version := func(r result) string {
		var w writeOut
		if err := json.Unmarshal(r.raw, &w); err != nil {
			t.Fatal(err)
		}
		return w.Version
	}

	step("What is still open?", "search", map[string]any{"query": "task-todo:call"})
	step("Read both notes at once", "fetch", map[string]any{"ids": []string{"Projects/Garden.md", "House"}})
	v := e.version("Projects/Garden.md")
	step("Try the edit first", "edit_note", map[string]any{"id": "Garden", "version": v, "old_text": "- [ ] buy seeds", "new_text": "- [x] buy seeds", "dry_run": true})
	done := step("Then make it", "edit_note", map[string]any{"id": "Garden", "version": v, "old_text": "- [ ] buy seeds", "new_text": "- [x] buy seeds"})
	step("What did it say before?", "fetch", map[string]any{"id": "Garden", "version": v, "section": "Tasks"})
	step("Its versions", "recent", map[string]any{"id": "Garden"})
	step("Note what Ana said, under her task", "append", map[string]any{"id": "Garden#^fence", "text": "  - Ana: Friday (see [[2026-11-30]])"})
	step("The task list now", "fetch", map[string]any{"id": "Garden", "section": "Tasks"})
	_ = version(done)

	got := mask(log.Bytes())
	golden := filepath.Join("testdata", "transcript.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/tools -run TestModelSessionTranscript -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the session's answers changed; if that is intended, run go test ./internal/tools -run TestModelSessionTranscript -update and review the diff.\ngot:\n%s", got)
	}
}

var (
	timestamps = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"`)
)

// mask hides what changes from run to run: times.
func mask(b []byte) []byte {
	return timestamps.ReplaceAll(b, []byte(`"<time>"`))
}

package vault

import (
	"strings"
	"testing"
)

func TestCreateRefusesUnportableNames(t *testing.T) {
	files := map[string]string{
		"Inbox.md":         "inbox",
		"Projects/a.md":    "a",
		"Old: notes/x.md":  "made elsewhere",
		"Legacy/CON.md":    "made elsewhere",
		"Trailing./old.md": "made elsewhere",
		"C#/Plan #2.md":    "made elsewhere",
	}
	tests := []struct{ path, code, rule string }{
		{"a:b?.md", CodeInvalidPath, `":"`},
		{"q?.md", CodeInvalidPath, "< > :"},
		{"pipe|x.md", CodeInvalidPath, "Obsidian cannot link"},
		{"Plan #2.md", CodeInvalidPath, `"#"`},
		{"Plan #2 [draft].md", CodeInvalidPath, "Obsidian cannot link"},
		{"see ^here.md", CodeInvalidPath, `"^"`},
		{"draft].md", CodeInvalidPath, `"]"`},
		{"F#/x.md", CodeInvalidPath, "heading, block or alias"},
		{`say "hi".md`, CodeInvalidPath, "Windows or Android"},
		{"new<folder>/x.md", CodeInvalidPath, "Windows or Android"},
		{"star*.md", CodeInvalidPath, "Windows or Android"},
		{"Projects/CON.md", CodeInvalidPath, "device name"},
		{"nul.md", CodeInvalidPath, "device name"},
		{"com1.md", CodeInvalidPath, "device name"},
		{"LPT9.notes.md", CodeInvalidPath, "device name"},
		{"Aux/x.md", CodeInvalidPath, "device name"},
		{"dots./x.md", CodeInvalidPath, "ends in a dot or a space"},
		{"space /x.md", CodeInvalidPath, "ends in a dot or a space"},
		{"Inbox.MD", CodeNoteExists, `"Inbox.md"`},
		{"inbox.md", CodeNoteExists, "differing only in case"},
		{"projects/b.md", CodeInvalidPath, `"Projects"`},
		{"INBOX.md/x.md", CodeInvalidPath, "differing only in case"},
		// Allowed: existing folders keep their names; close calls pass.
		{"Old: notes/y.md", "", ""},
		{"Legacy/z.md", "", ""},
		{"Trailing./new.md", "", ""},
		{"Console.md", "", ""},
		{"COM.md", "", ""},
		{"Company/COMX.md", "", ""},
		{"C#/y.md", "", ""},
	}
	for _, tt := range tests {
		v, dir := newTestVault(t, files, nil)
		_, err := v.Create(ctx, tt.path, "new")
		wantCode(t, err, tt.code)
		if err != nil {
			if e := err.(*Error); !strings.Contains(e.Message, tt.rule) {
				t.Errorf("Create(%q): %q, want it to name %s", tt.path, e.Message, tt.rule)
			}
			if exists(dir, tt.path) {
				t.Errorf("Create(%q) wrote the note", tt.path)
			}
		}
	}
	// Notes that already have such names stay readable and editable.
	v, _ := newTestVault(t, files, nil)
	for _, p := range []string{"Old: notes/x.md", "Legacy/CON.md", "Trailing./old.md", "C#/Plan #2.md"} {
		n, err := v.Read(ctx, p)
		if err != nil || n.Content != "made elsewhere" {
			t.Errorf("Read(%q) = %v", p, err)
		}
		if _, err := v.Append(ctx, p, "more", ""); err != nil {
			t.Errorf("Append(%q) = %v", p, err)
		}
	}
	if _, err := v.Delete(ctx, "Legacy/CON.md", ver("made elsewhere\nmore\n")); err != nil {
		t.Errorf("Delete = %v", err)
	}
}

func TestMoveRefusesUnportableNames(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a", "Inbox.md": "i", "Notes/b.md": "b"}, nil)
	for to, code := range map[string]string{
		"a?.md": CodeInvalidPath, "PRN.md": CodeInvalidPath, "a#1.md": CodeInvalidPath, "[a].md": CodeInvalidPath, "Notes/a|b.md": CodeInvalidPath, "INBOX.md": CodeNoteExists, "notes/a.md": CodeInvalidPath, "x./a.md": CodeInvalidPath,
	} {
		_, err := v.Move(ctx, "a.md", to, ver("a"), false)
		wantCode(t, err, code)
	}
	if !exists(dir, "a.md") {
		t.Fatal("a.md moved")
	}
	// A case-only rename of the note itself is no twin.
	if _, err := v.Move(ctx, "a.md", "A.md", ver("a"), false); err != nil {
		t.Errorf("case rename: %v", err)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHiddenVersionsLeakNothing runs against the real binary, at both
// protocol versions: a token without private notes, asking recent for the
// versions of a note that was private for a while, is shown only the
// versions from before and after, and fetch of one of the private ones
// answers byte for byte as a made-up version does. Deleting the note
// beside a private note in the trash of the same name takes the name it
// would take without it.
func TestHiddenVersionsLeakNothing(t *testing.T) {
	in := newInstance(t)
	keeper := in.scopedToken("keeper", "--private")
	app := in.token("app")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	k := in.connect(ctx, keeper)
	version := func(r result) string { return str(r.data, "version") }
	v1 := version(call(t, ctx, k, "create_note", map[string]any{"path": "Work/plan.md", "content": "# Plan\n\nopen start\n"}))
	v2 := version(call(t, ctx, k, "update_frontmatter", map[string]any{"id": "Work/plan.md", "version": v1, "set": map[string]any{"private": true}}))
	v3 := version(call(t, ctx, k, "edit_note", map[string]any{"id": "Work/plan.md", "version": v2, "old_text": "open start", "new_text": "zebra salary, a much longer line"}))
	v4 := version(call(t, ctx, k, "update_frontmatter", map[string]any{"id": "Work/plan.md", "version": v3, "remove": []string{"private"}}))
	if v1 == "" || v2 == "" || v3 == "" || v4 == "" {
		t.Fatalf("versions %q %q %q %q", v1, v2, v3, v4)
	}
	all := must(t, call(t, ctx, k, "recent", map[string]any{"id": "Work/plan.md"}), "recent")
	if vs, _ := all["versions"].([]any); len(vs) != 4 {
		t.Fatalf("with private notes: %v, want 4 versions", all["versions"])
	}

	for _, pv := range []string{"2025-11-25", "2026-07-28"} {
		cs := in.connectAs(ctx, app, pv)
		r := call(t, ctx, cs, "recent", map[string]any{"id": "Work/plan.md"})
		var got []string
		vs, _ := r.data["versions"].([]any)
		for _, v := range vs {
			m, _ := v.(map[string]any)
			got = append(got, str(m, "version"))
		}
		if strings.Join(got, " ") != v4+" "+v1 {
			t.Errorf("%s: recent lists %v, want %s %s", pv, got, v4, v1)
		}
		if b, _ := json.Marshal(r.data); strings.Contains(string(b)+r.text, v2) || strings.Contains(string(b)+r.text, v3) {
			t.Errorf("%s: recent names a private version: %s", pv, b)
		}
		const madeUp = "0123456789ab"
		made := call(t, ctx, cs, "fetch", map[string]any{"id": "Work/plan.md", "version": madeUp})
		mb, _ := json.Marshal(made.data)
		for _, hidden := range []string{v2, v3} {
			f := call(t, ctx, cs, "fetch", map[string]any{"id": "Work/plan.md", "version": hidden})
			fb, _ := json.Marshal(f.data)
			if !f.isError || f.text != strings.ReplaceAll(made.text, madeUp, hidden) || string(fb) != strings.ReplaceAll(string(mb), madeUp, hidden) {
				t.Errorf("%s: fetch of a private version = %s %s, want as a made-up one: %s", pv, f.text, fb, made.text)
			}
		}
	}

	// The trash already holds a private note of that name; the app's
	// delete goes to the name it would take were it not there.
	hidden := "---\nprivate: true\n---\nzebra\n"
	if err := os.MkdirAll(filepath.Join(in.Vault, ".trash", "Work"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in.Vault, ".trash", "Work", "plan.md"), []byte(hidden), 0o600); err != nil {
		t.Fatal(err)
	}
	d := must(t, call(t, ctx, in.connect(ctx, app), "delete_note", map[string]any{"id": "Work/plan.md", "version": v4}), "delete_note")
	if got, want := str(d, "trashed_to"), ".trash/Work/plan ("+v4+").md"; got != want {
		t.Errorf("trashed to %s, want %s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(in.Vault, ".trash", "Work", "plan.md")); err != nil || string(b) != hidden {
		t.Errorf("the private trashed note became %q, %v", b, err)
	}
}

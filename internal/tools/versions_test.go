package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// newHistoryEnv is newEnv with the note history kept in a real history
// database, as serve keeps it, and given to the tools.
func newHistoryEnv(t *testing.T) *env {
	t.Helper()
	return newHistoryEnvDeps(t, nil)
}

// newHistoryEnvDeps is newHistoryEnv with deps seeing (and changing) the
// tools' dependencies.
func newHistoryEnvDeps(t *testing.T, deps func(*Deps)) *env {
	t.Helper()
	h, err := store.OpenHistory(t.Context(), t.TempDir(), store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvDeps(t, func(d *Deps) {
		d.History = history.New(history.Options{Vault: d.Vault, History: h, Journal: nil})
		if deps != nil {
			deps(d)
		}
	}, func(o *vault.Options) { o.History = history.Keeper(h) })
	t.Cleanup(func() { h.Close() })
	return e
}

// scoped is the env as an app with scope s sees it.
func (e *env) scoped(t *testing.T, s scope.Scope) *env {
	t.Helper()
	c := *e
	c.cs = connectCtx(t, scope.NewContext(context.Background(), s), e.srv)
	return &c
}

// A model can look back: recent with an id lists the note's versions
// (newest first, the current one marked, who and what, size change), and
// fetch with one of them reads the note as it was, saying which version is
// current so that an edit can follow.
func TestFetchEarlierVersion(t *testing.T) {
	e := newHistoryEnv(t)
	var c writeOut
	e.ok("create_note", map[string]any{"path": "Garden/Plan.md", "content": "# Plan\n\nTomatoes by the wall.\n"}, &c)
	var ed writeOut
	e.ok("edit_note", map[string]any{"id": "Garden/Plan.md", "version": c.Version, "old_text": "Tomatoes by the wall.", "new_text": "Beans by the wall, tomatoes in pots."}, &ed)

	var r recentOut
	e.ok("recent", map[string]any{"id": "Plan"}, &r)
	if len(r.Versions) != 2 {
		t.Fatalf("versions = %+v, want 2", r.Versions)
	}
	now, first := r.Versions[0], r.Versions[1]
	if now.Version != ed.Version || !now.Current || now.Change != "edit" || now.ChangedBy != "tester" ||
		now.SizeChange != int64(len("Beans by the wall, tomatoes in pots.")-len("Tomatoes by the wall.")) {
		t.Errorf("newest = %+v", now)
	}
	if first.Version != c.Version || first.Current || first.Change != "create" || first.SizeChange != first.Size {
		t.Errorf("first = %+v", first)
	}

	var f fetchOut
	e.ok("fetch", map[string]any{"id": "Garden/Plan", "version": c.Version}, &f)
	if !strings.Contains(f.Text, "Tomatoes by the wall.") || f.Metadata.Version != c.Version ||
		f.Metadata.CurrentVersion != ed.Version || f.Metadata.LastWriter != "tester" || f.Title != "Plan" {
		t.Errorf("earlier fetch = %+v", f)
	}
	// The current version read by version is the plain fetch: no
	// current_version, since it is current.
	var cur fetchOut
	e.ok("fetch", map[string]any{"id": "Garden/Plan.md", "version": ed.Version}, &cur)
	if cur.Metadata.CurrentVersion != "" || !strings.Contains(cur.Text, "Beans") {
		t.Errorf("current fetch by version = %+v", cur.Metadata)
	}
	// Restoring is writing: the earlier text written back is a new
	// version, journaled like any write.
	var back writeOut
	e.ok("edit_note", map[string]any{"id": "Garden/Plan.md", "version": f.Metadata.CurrentVersion, "old_text": "Beans by the wall, tomatoes in pots.", "new_text": "Tomatoes by the wall."}, &back)
	e.ok("recent", map[string]any{"id": "Garden/Plan.md", "limit": 2}, &r)
	if len(r.Versions) != 2 || r.Versions[0].Version != c.Version || !r.Versions[0].Current {
		t.Errorf("after writing the old text back: %+v", r.Versions)
	}
}

// Bad versions are told apart: a malformed one is the call's mistake, one
// the history does not hold (or holds for another note) is unknown, and
// neither changes anything.
func TestFetchVersionRefusals(t *testing.T) {
	e := newHistoryEnv(t)
	var a, b writeOut
	e.ok("create_note", map[string]any{"path": "A.md", "content": "alpha\n"}, &a)
	e.ok("create_note", map[string]any{"path": "B.md", "content": "beta\n"}, &b)
	for _, bad := range []string{"xyz", "ABCDEF012345", "0123456789abc", "12345678901"} {
		te := e.fail("fetch", map[string]any{"id": "A.md", "version": bad}, vault.CodeInvalidArgument)
		if !strings.Contains(te.Message, "12 hexadecimal digits") {
			t.Errorf("%q: %s", bad, te.Message)
		}
	}
	for _, unknown := range []string{b.Version, "0123456789ab"} {
		te := e.fail("fetch", map[string]any{"id": "A.md", "version": unknown}, codeUnknownVersion)
		if !strings.Contains(te.Message, "recent") {
			t.Errorf("%q: %s", unknown, te.Message)
		}
	}
	e.write("pic.png", "\x89PNG\r\n\x1a\n")
	e.fail("fetch", map[string]any{"id": "pic.png", "version": a.Version}, vault.CodeInvalidArgument)
	e.fail("recent", map[string]any{"id": "Nowhere.md"}, vault.CodeNotFound)
}

// Without a history the tools say so rather than pretend.
func TestFetchVersionWithoutHistory(t *testing.T) {
	e := newEnv(t)
	var a writeOut
	e.ok("create_note", map[string]any{"path": "A.md", "content": "alpha\n"}, &a)
	e.fail("fetch", map[string]any{"id": "A.md", "version": "0123456789ab"}, codeNoHistory)
	e.fail("recent", map[string]any{"id": "A.md"}, codeNoHistory)
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "A.md", "version": a.Version}, &f)
}

// An app sees the past of a note only as its scope lets it see the note:
// a version marked private is unknown to an app without private notes,
// and so is every version of a note outside its scope.
func TestFetchVersionFollowsScope(t *testing.T) {
	base := newHistoryEnv(t)
	e := base.scoped(t, scope.Scope{Private: true})
	var a writeOut
	e.ok("create_note", map[string]any{"path": "Work/plan.md", "content": "---\nprivate: true\n---\nsalary zebra\n"}, &a)
	var b writeOut
	e.ok("update_frontmatter", map[string]any{"id": "Work/plan.md", "version": a.Version, "remove": []string{"private"}}, &b)
	sc, err := scope.Parse("Work/**", "", false)
	if err != nil {
		t.Fatal(err)
	}
	app := e.scoped(t, sc)
	var f fetchOut
	app.ok("fetch", map[string]any{"id": "Work/plan.md", "version": b.Version}, &f)
	e.ok("fetch", map[string]any{"id": "Work/plan.md", "version": a.Version}, &f)
	if !strings.Contains(f.Text, "salary") {
		t.Errorf("an app with private notes reads the private version as %q", f.Text)
	}
	te := app.fail("fetch", map[string]any{"id": "Work/plan.md", "version": a.Version}, codeUnknownVersion)
	if strings.Contains(te.Message, "private") || strings.Contains(te.Message, "zebra") {
		t.Errorf("refusal tells of the hidden version: %s", te.Message)
	}
	other, err := scope.Parse("Home/**", "", false)
	if err != nil {
		t.Fatal(err)
	}
	e.scoped(t, other).fail("recent", map[string]any{"id": "Work/plan.md"}, vault.CodeNotFound)
}

// A version that was private is not listed to an app without private
// notes (neither when, nor which app, nor its size), and fetch of it
// answers exactly as a version that never was; the sizes of the versions
// it does list tell nothing of the hidden one.
func TestRecentVersionsHidePrivate(t *testing.T) {
	base := newHistoryEnv(t)
	e := base.scoped(t, scope.Scope{Private: true})
	var a, b, c writeOut
	e.ok("create_note", map[string]any{"path": "Work/plan.md", "content": "# Plan\n\nopen start\n"}, &a)
	e.ok("update_frontmatter", map[string]any{"id": "Work/plan.md", "version": a.Version, "set": map[string]any{"private": true}}, &b)
	e.ok("edit_note", map[string]any{"id": "Work/plan.md", "version": b.Version, "old_text": "open start", "new_text": "salary zebra, a much longer secret line"}, &c)
	var d writeOut
	e.ok("update_frontmatter", map[string]any{"id": "Work/plan.md", "version": c.Version, "remove": []string{"private"}}, &d)

	var all recentOut
	e.ok("recent", map[string]any{"id": "Work/plan.md"}, &all)
	if len(all.Versions) != 4 {
		t.Fatalf("with private notes: %+v, want 4 versions", all.Versions)
	}
	app := base.scoped(t, scope.Scope{})
	var r recentOut
	app.ok("recent", map[string]any{"id": "Work/plan.md"}, &r)
	if len(r.Versions) != 2 || r.Versions[0].Version != d.Version || !r.Versions[0].Current || r.Versions[1].Version != a.Version {
		t.Fatalf("without private notes: %+v, want %s then %s", r.Versions, d.Version, a.Version)
	}
	if got, want := r.Versions[0].SizeChange, r.Versions[0].Size-r.Versions[1].Size; got != want {
		t.Errorf("size_change = %d, want %d (against the version listed before it)", got, want)
	}
	one := recentOut{}
	app.ok("recent", map[string]any{"id": "Work/plan.md", "limit": 2}, &one)
	if len(one.Versions) != 2 || one.Versions[1].Version != a.Version {
		t.Errorf("limit 2 without private notes: %+v", one.Versions)
	}
	made := app.call("fetch", map[string]any{"id": "Work/plan.md", "version": "0123456789ab"})
	for _, hidden := range []string{b.Version, c.Version} {
		got := app.call("fetch", map[string]any{"id": "Work/plan.md", "version": hidden})
		want := strings.ReplaceAll(made.text, "0123456789ab", hidden)
		if !got.isError || got.text != want || string(got.raw) != strings.ReplaceAll(string(made.raw), "0123456789ab", hidden) {
			t.Errorf("fetch of the private version %s = %s, want as a made-up one: %s", hidden, got.raw, made.raw)
		}
	}
	var f fetchOut
	app.ok("fetch", map[string]any{"id": "Work/plan.md", "version": a.Version}, &f)
	if !strings.Contains(f.Text, "open start") {
		t.Errorf("the version before it was private: %q", f.Text)
	}
}

// A note moved into an app's scope from a folder outside it keeps its past
// there to itself: the versions kept at the old path are neither listed
// nor read.
func TestRecentVersionsHideOtherPaths(t *testing.T) {
	e := newHistoryEnv(t)
	var a, b, m writeOut
	e.ok("create_note", map[string]any{"path": "Secret/plan.md", "content": "# Plan\n\nzebra\n"}, &a)
	e.ok("edit_note", map[string]any{"id": "Secret/plan.md", "version": a.Version, "old_text": "zebra", "new_text": "plans"}, &b)
	e.ok("move_note", map[string]any{"id": "Secret/plan.md", "version": b.Version, "to": "Work/plan.md"}, &m)
	var all recentOut
	e.ok("recent", map[string]any{"id": "Work/plan.md"}, &all)
	if len(all.Versions) < 2 || all.Versions[len(all.Versions)-1].Path != "Secret/plan.md" {
		t.Fatalf("owner's listing = %+v, want the versions at Secret/ too", all.Versions)
	}
	sc, err := scope.Parse("Work/**", "", false)
	if err != nil {
		t.Fatal(err)
	}
	app := e.scoped(t, sc)
	var r recentOut
	app.ok("recent", map[string]any{"id": "Work/plan.md"}, &r)
	for _, v := range r.Versions {
		if v.Path != "" {
			t.Errorf("listed a version kept outside the scope: %+v", v)
		}
	}
	if len(r.Versions) == 0 || !r.Versions[0].Current {
		t.Errorf("the app's listing = %+v, want the current version", r.Versions)
	}
	made := app.call("fetch", map[string]any{"id": "Work/plan.md", "version": "0123456789ab"})
	got := app.call("fetch", map[string]any{"id": "Work/plan.md", "version": a.Version})
	if !got.isError || got.text != strings.ReplaceAll(made.text, "0123456789ab", a.Version) {
		t.Errorf("fetch of a version kept outside the scope = %s, want as a made-up one: %s", got.text, made.text)
	}
}

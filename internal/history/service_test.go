package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit/notekit"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// world is a vault with history, a journal and the real tools
// (notekit.World), and the service under test on top.
type world struct {
	*notekit.World
	t   *testing.T
	svc *Service
}

func newWorld(t *testing.T, files map[string]string) *world {
	t.Helper()
	w := &world{World: notekit.New(t, notekit.Options{Files: files, Keeper: Keeper}), t: t}
	w.svc = New(Options{Vault: w.Vault, History: w.History, Journal: w.Store, Now: w.Clock.Now})
	return w
}

// lastEntry is the newest journal entry at path.
func (w *world) lastEntry(path string) store.JournalEntry {
	w.t.Helper()
	es, err := w.Store.Journal(context.Background(), time.Time{}, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, e := range es {
		if e.Path == path {
			return e
		}
	}
	w.t.Fatalf("no journal entry for %s", path)
	return store.JournalEntry{}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var he *Error
	var ve *vault.Error
	switch {
	case errors.As(err, &he) && he.Code == code:
	case errors.As(err, &ve) && ve.Code == code:
	default:
		t.Fatalf("error %v, want code %s", err, code)
	}
}

const plan = "# Plan\n\n## Goals\nship it\n\n## Risks\nnone\n\n## Notes\nkeep\n"

func TestRestoreAnEarlierVersion(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"plan.md": plan})
	// The assistant replaces the body under the top heading, erasing
	// every section below it.
	w.Call("claude", "replace_section", map[string]any{"id": "plan.md", "version": w.Version("plan.md"), "heading": "# Plan", "content": "gone\n", "include_subsections": true})
	if w.Read("plan.md") == plan {
		t.Fatal("the edit did not change the note")
	}
	vs, err := w.svc.Versions(ctx, "plan.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Writer != "claude" || vs[1].Writer != vault.WriterExternal {
		t.Fatalf("versions %+v", vs)
	}
	// A restore against a version the owner saw before a later change is
	// refused with the difference.
	_, err = w.svc.Restore(ctx, RestoreRequest{Path: "plan.md", Version: "#" + itoa(vs[1].ID), Writer: OwnerCLI, Expect: vs[1].Version})
	wantCode(t, err, CodeConflict)
	var he *Error
	errors.As(err, &he)
	if he.Plan == nil || !diff.Changed(he.Plan.Changes[0].Diff) {
		t.Fatalf("conflict without a diff: %+v", he)
	}
	if w.Read("plan.md") == plan {
		t.Fatal("a refused restore changed the note")
	}
	p, err := w.svc.Restore(ctx, RestoreRequest{Path: "plan.md", Version: vs[1].Version, Writer: OwnerCLI})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Read("plan.md"); got != plan {
		t.Fatalf("restored text %q", got)
	}
	if !p.Changes[0].Done || p.Changes[0].Action != ActionRestore {
		t.Fatalf("plan %+v", p)
	}
	if e := w.lastEntry("plan.md"); e.App != OwnerCLI || e.Tool != "restore" || e.NewVersion != vs[1].Version {
		t.Fatalf("journal %+v", e)
	}
	if vs2, _ := w.svc.Versions(ctx, "plan.md"); vs2[0].Writer != OwnerCLI || vs2[0].Kind != store.KindRestore {
		t.Fatalf("history after restore %+v", vs2[0])
	}

	// Bad input: an unknown version, a path outside the vault, a purge of
	// a note without history; each a clear error and nothing changed.
	_, err = w.svc.Restore(ctx, RestoreRequest{Path: "plan.md", Version: "0123456789ab", Writer: OwnerCLI})
	wantCode(t, err, CodeUnknownVersion)
	_, err = w.svc.Restore(ctx, RestoreRequest{Path: "plan.md", Version: "99999", Writer: OwnerCLI})
	wantCode(t, err, CodeUnknownVersion)
	_, err = w.svc.Versions(ctx, "../outside.md")
	wantCode(t, err, vault.CodeInvalidPath)
	_, err = w.svc.Purge(ctx, "never.md")
	wantCode(t, err, CodeNoHistory)
	if got := w.Read("plan.md"); got != plan {
		t.Fatalf("bad input changed the note: %q", got)
	}
	// Purge forgets every version; the note stays.
	if n, err := w.svc.Purge(ctx, "plan.md"); err != nil || n != 3 {
		t.Fatalf("purge = %d, %v", n, err)
	}
	_, err = w.svc.Versions(ctx, "plan.md")
	wantCode(t, err, CodeNoHistory)
	if got := w.Read("plan.md"); got != plan {
		t.Fatal("purge touched the note")
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestUndoOneChange(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"a.md": "alpha\n", "b.md": "see [[a]]\n", "c.md": "gamma\n", "d.md": "delta\n"})
	undo := func(path string) *Plan {
		t.Helper()
		p, err := w.svc.Undo(ctx, UndoRequest{Entry: w.lastEntry(path).ID, Writer: OwnerCLI})
		if err != nil {
			t.Fatalf("undo %s: %v", path, err)
		}
		for _, c := range p.Changes {
			if !c.Done && c.Action != ActionNone {
				t.Fatalf("undo %s: change %+v not done", path, c)
			}
		}
		return p
	}

	// An edit and an append.
	w.Call("claude", "edit_note", map[string]any{"id": "c.md", "version": w.Version("c.md"), "old_text": "gamma", "new_text": "GAMMA"})
	undo("c.md")
	if got := w.Read("c.md"); got != "gamma\n" {
		t.Fatalf("after undoing the edit: %q", got)
	}
	w.Call("claude", "append", map[string]any{"id": "c.md", "text": "more\n"})
	undo("c.md")
	if got := w.Read("c.md"); got != "gamma\n" {
		t.Fatalf("after undoing the append: %q", got)
	}

	// A move that rewrote links: the note goes back and so do the links.
	w.Call("claude", "move_note", map[string]any{"id": "a.md", "to": "z/a2.md", "version": w.Version("a.md"), "update_links": true})
	if w.Read("b.md") == "see [[a]]\n" {
		t.Fatal("the move did not rewrite the link")
	}
	p := undo("a.md")
	if w.Read("a.md") != "alpha\n" || w.Read("z/a2.md") != "<absent>" || w.Read("b.md") != "see [[a]]\n" {
		t.Fatalf("after undoing the move: a=%q a2=%q b=%q (plan %+v)", w.Read("a.md"), w.Read("z/a2.md"), w.Read("b.md"), p)
	}

	// A delete: back from the trash.
	w.Call("claude", "delete_note", map[string]any{"id": "d.md", "version": w.Version("d.md")})
	undo("d.md")
	if w.Read("d.md") != "delta\n" || w.Read(".trash/d.md") != "<absent>" {
		t.Fatalf("after undoing the delete: d=%q trash=%q", w.Read("d.md"), w.Read(".trash/d.md"))
	}
	// A delete whose trash was emptied: back from the history.
	w.Call("claude", "delete_note", map[string]any{"id": "d.md", "version": w.Version("d.md")})
	if err := os.RemoveAll(filepath.Join(w.Dir, ".trash")); err != nil {
		t.Fatal(err)
	}
	p = undo("d.md")
	if w.Read("d.md") != "delta\n" || p.Changes[0].Action != ActionRecreate {
		t.Fatalf("after undoing the delete with the trash emptied: %q, %+v", w.Read("d.md"), p.Changes)
	}

	// A change made later by someone else is a conflict: refused unless
	// chosen.
	w.Call("claude", "edit_note", map[string]any{"id": "c.md", "version": w.Version("c.md"), "old_text": "gamma", "new_text": "G"})
	id := w.lastEntry("c.md").ID
	w.Call("chatgpt", "append", map[string]any{"id": "c.md", "text": "later\n"})
	p, err := w.svc.Undo(ctx, UndoRequest{Entry: id, Writer: OwnerCLI})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Changes[0].Conflict || p.Changes[0].Done || w.Read("c.md") != "G\nlater\n" {
		t.Fatalf("a conflicting undo: %+v, note %q", p.Changes, w.Read("c.md"))
	}
	if _, err := w.svc.Undo(ctx, UndoRequest{Entry: id, Writer: OwnerCLI, All: true}); err != nil {
		t.Fatal(err)
	}
	if got := w.Read("c.md"); got != "gamma\n" {
		t.Fatalf("a chosen conflicting undo: %q", got)
	}
	_, err = w.svc.Undo(ctx, UndoRequest{Entry: 99999, Writer: OwnerCLI})
	wantCode(t, err, CodeUnknownChange)
}

func TestUndoEverythingAnAppDid(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"x.md": "x\n", "y.md": "y\n", "keep.md": "k\n"})
	w.Call("early", "edit_note", map[string]any{"id": "keep.md", "version": w.Version("keep.md"), "old_text": "k", "new_text": "K"})
	since := w.Clock.Now()
	w.Call("claude", "edit_note", map[string]any{"id": "x.md", "version": w.Version("x.md"), "old_text": "x", "new_text": "X"})
	w.Call("claude", "append", map[string]any{"id": "x.md", "text": "x2\n"})
	w.Call("claude", "edit_note", map[string]any{"id": "y.md", "version": w.Version("y.md"), "old_text": "y", "new_text": "Y"})
	w.Call("claude", "create_note", map[string]any{"path": "new.md", "content": "n\n"})
	w.Call("chatgpt", "append", map[string]any{"id": "y.md", "text": "by another app\n"})

	p, err := w.svc.Undo(ctx, UndoRequest{App: "claude", Since: since, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Change{}
	for _, c := range p.Changes {
		got[c.Path] = c
	}
	if len(got) != 3 || got["x.md"].Conflict || got["x.md"].Action != ActionRestore ||
		!got["y.md"].Conflict || got["new.md"].Action != ActionTrash || got["new.md"].Conflict {
		t.Fatalf("preview %+v", p.Changes)
	}
	if w.Read("x.md") != "X\nx2\n" {
		t.Fatal("a dry run changed a note")
	}
	if _, err := w.svc.Undo(ctx, UndoRequest{App: "claude", Since: since, Writer: OwnerCLI}); err != nil {
		t.Fatal(err)
	}
	if w.Read("x.md") != "x\n" || w.Read("new.md") != "<absent>" || w.Read("y.md") != "Y\nby another app\n" || w.Read("keep.md") != "K\n" {
		t.Fatalf("after undo: x=%q new=%q y=%q keep=%q", w.Read("x.md"), w.Read("new.md"), w.Read("y.md"), w.Read("keep.md"))
	}
	// The conflict, chosen by name.
	if _, err := w.svc.Undo(ctx, UndoRequest{App: "claude", Since: since, Writer: OwnerCLI, Include: []string{"y.md"}}); err != nil {
		t.Fatal(err)
	}
	if got := w.Read("y.md"); got != "y\n" {
		t.Fatalf("the chosen conflict: %q", got)
	}
}

// The history of a moved note goes on at its new path and reaches back to
// the versions it had before the move.
func TestVersionsFollowMoves(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"a.md": "one\n"})
	w.Call("claude", "edit_note", map[string]any{"id": "a.md", "version": w.Version("a.md"), "old_text": "one", "new_text": "two"})
	w.Call("claude", "move_note", map[string]any{"id": "a.md", "to": "b/b.md", "version": w.Version("a.md")})
	w.Call("claude", "move_note", map[string]any{"id": "b/b.md", "to": "c.md", "version": w.Version("b/b.md")})
	w.Call("claude", "append", map[string]any{"id": "c.md", "text": "three\n"})
	vs, err := w.svc.Versions(ctx, "c.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Path+" "+v.Kind)
	}
	want := []string{"c.md append", "c.md move", "b/b.md move", "b/b.md move", "a.md move", "a.md edit", "a.md external"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("versions of c.md:\n got %v\nwant %v", got, want)
	}
	// The first text is reachable from the new path, by number or version.
	first := vs[len(vs)-1]
	for _, ref := range []string{itoa(first.ID), first.Version} {
		if _, data, err := w.svc.Version(ctx, "c.md", ref); err != nil || string(data) != "one\n" {
			t.Fatalf("version %s of c.md: %q, %v", ref, data, err)
		}
	}
	if _, err := w.svc.Restore(ctx, RestoreRequest{Path: "c.md", Version: first.Version, Writer: OwnerCLI}); err != nil {
		t.Fatal(err)
	}
	if got := w.Read("c.md"); got != "one\n" {
		t.Fatalf("restored %q", got)
	}
}

func TestCompareAndChangeDiff(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"a.md": "one\ntwo apples\n"})
	w.Call("claude", "edit_note", map[string]any{"id": "a.md", "version": w.Version("a.md"), "old_text": "two", "new_text": "2"})
	e := w.lastEntry("a.md")
	got, d, known, err := w.svc.ChangeDiff(ctx, e.ID)
	if err != nil || !known || got.ID != e.ID {
		t.Fatalf("ChangeDiff: %+v %v %v", got, known, err)
	}
	if u := diff.Unified(d, 0); u != "@@ line 2 @@\n-[-two-] apples\n+{+2+} apples\n" {
		t.Fatalf("the change's diff:\n%s", u)
	}
	vs, _ := w.svc.Versions(ctx, "a.md")
	d, err = w.svc.Compare(ctx, "a.md", vs[1].Version, "")
	if err != nil || diff.Unified(d, 0) != "@@ line 2 @@\n-[-two-] apples\n+{+2+} apples\n" {
		t.Fatalf("Compare with now: %v\n%s", err, diff.Unified(d, 0))
	}
	if d, err = w.svc.Compare(ctx, "a.md", vs[0].Version, vs[0].Version); err != nil || diff.Changed(d) {
		t.Fatalf("Compare of a version with itself: %v %+v", err, d)
	}
	_, _, _, err = w.svc.ChangeDiff(ctx, 9999)
	wantCode(t, err, CodeUnknownChange)
	// Once the history is purged, the change is still listed, without a diff.
	if _, err := w.svc.Purge(ctx, "a.md"); err != nil {
		t.Fatal(err)
	}
	if _, d, known, err = w.svc.ChangeDiff(ctx, e.ID); err != nil || known || d != nil {
		t.Fatalf("ChangeDiff after purge: %v %v %+v", known, err, d)
	}
}

// Purging a moved note forgets the versions at its earlier paths too, and
// nothing of another note that later took an earlier path.
func TestPurgeFollowsMoves(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, map[string]string{"a.md": "secret: hunter2\n"})
	w.Call("claude", "edit_note", map[string]any{"id": "a.md", "version": w.Version("a.md"), "old_text": "hunter2", "new_text": "(removed)"})
	w.Call("claude", "move_note", map[string]any{"id": "a.md", "to": "b.md", "version": w.Version("a.md")})
	w.Call("claude", "create_note", map[string]any{"path": "a.md", "content": "another note\n"})
	if _, err := w.svc.Purge(ctx, "b.md"); err != nil {
		t.Fatal(err)
	}
	if _, data, err := w.History.FindAnywhere(ctx, versionOf("secret: hunter2\n")); err == nil {
		t.Fatalf("the secret is still stored: %q", data)
	}
	vs, err := w.svc.Versions(ctx, "a.md")
	if err != nil || len(vs) != 1 || vs[0].Kind != store.KindCreate {
		t.Fatalf("the new a.md's history: %+v, %v", vs, err)
	}
}

func versionOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

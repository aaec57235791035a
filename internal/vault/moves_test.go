package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// intents lists the move intents left at the top of the vault.
func intents(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), movePrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Moves, deletes and restores give the same results on both paths: the
// one-step renameat2 and the link-then-unlink fallback, which leaves no
// intent behind once done.
func TestMovesOnBothPaths(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		v, dir := newTestVault(t, map[string]string{"a.md": "alpha\n", "b.md": "beta\n", "taken.md": "t\n"}, nil)
		v.noRenameat2 = fallback
		a, _ := v.Read(ctx, "a.md")
		if _, err := v.Move(ctx, "a.md", "taken.md", a.Version, false); code(t, err) != CodeNoteExists {
			t.Errorf("fallback %v: move onto a note: %v", fallback, err)
		}
		if _, err := v.Move(ctx, "a.md", "x/y/a.md", a.Version, false); err != nil {
			t.Fatalf("fallback %v: move: %v", fallback, err)
		}
		b, _ := v.Read(ctx, "b.md")
		r, err := v.Delete(ctx, "b.md", b.Version)
		if err != nil || r.Path != ".trash/b.md" {
			t.Fatalf("fallback %v: delete: %+v %v", fallback, r, err)
		}
		if _, err := v.Move(ctx, ".trash/b.md", "b.md", b.Version, false); err != nil {
			t.Fatalf("fallback %v: restore: %v", fallback, err)
		}
		if _, err := v.Create(ctx, "new.md", "n\n"); err != nil {
			t.Fatalf("fallback %v: create: %v", fallback, err)
		}
		if _, err := v.Create(ctx, "new.md", "again\n"); code(t, err) != CodeNoteExists {
			t.Errorf("fallback %v: create over a note: %v", fallback, err)
		}
		for p, want := range map[string]string{"x/y/a.md": "alpha\n", "b.md": "beta\n", "taken.md": "t\n", "new.md": "n\n"} {
			if got := readFile(t, dir, p); got != want {
				t.Errorf("fallback %v: %s = %q", fallback, p, got)
			}
		}
		for _, p := range []string{"a.md", ".trash/b.md"} {
			if exists(dir, p) {
				t.Errorf("fallback %v: %s still exists", fallback, p)
			}
		}
		if left := intents(t, dir); len(left) > 0 {
			t.Errorf("fallback %v: intents left: %q", fallback, left)
		}
	}
}

// A crash between the fallback's link and unlink leaves the note at both
// names and the intent; the next start finishes each move the intent
// names, and nothing else.
func TestStartFinishesInterruptedMoves(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"moved.md": "m\n", "deleted.md": "d\n", "never.md": "n\n", "one.md": "1\n", "two.md": "2\n",
	})
	link := func(from, to string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	intent := func(name, from, to string) {
		if err := os.WriteFile(filepath.Join(dir, movePrefix+name), []byte(from+"\n"+to+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link("moved.md", "new/place.md")
	intent("1", "moved.md", "new/place.md")
	link("deleted.md", ".trash/deleted.md")
	intent("2", "deleted.md", ".trash/deleted.md")
	intent("3", "never.md", "nowhere.md") // crashed before the link
	intent("4", "one.md", "two.md")       // two different files: not a move of ours
	intent("5", "../escape.md", "x.md")   // never trusted
	intent("6", "gone.md", "finished.md") // crashed after the unlink
	writeFiles(t, dir, map[string]string{"finished.md": "f\n"})

	v, err := Open(Options{Dir: dir, FreeSpace: plenty})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for p, want := range map[string]bool{
		"moved.md": false, "new/place.md": true, "deleted.md": false, ".trash/deleted.md": true,
		"never.md": true, "nowhere.md": false, "one.md": true, "two.md": true, "finished.md": true,
	} {
		if got := exists(dir, p); got != want {
			t.Errorf("%s exists = %v, want %v", p, got, want)
		}
	}
	if got := readFile(t, dir, "new/place.md"); got != "m\n" {
		t.Errorf("new/place.md = %q", got)
	}
	if left := intents(t, dir); len(left) > 0 {
		t.Errorf("intents left: %q", left)
	}

	// The reconcile of a running server repairs too.
	link("never.md", "later.md")
	intent("7", "never.md", "later.md")
	v.repairMoves(ctx)
	if exists(dir, "never.md") || !exists(dir, "later.md") || len(intents(t, dir)) > 0 {
		t.Error("repairMoves did not finish the move")
	}
}

// The fallback's steps reach the disk in order, so that a power cut at any
// instant leaves the note under at least one name and, while it is under
// both, the intent that finishes the move: the new name's folder is synced
// before the old name is removed, and the old name's folder is synced
// before the intent is removed.
func TestFallbackMoveSyncsEachStepBeforeTheNext(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a/n.md": "note\n"}, nil)
	v.noRenameat2 = true
	if err := os.MkdirAll(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	var seen []string // what each sync found on disk
	v.synced = func(d string) {
		seen = append(seen, fmt.Sprintf("%s from=%v intent=%v", d, exists(dir, "a/n.md"), len(intents(t, dir)) > 0))
	}
	n, _ := v.Read(ctx, "a/n.md")
	if _, err := v.Move(ctx, "a/n.md", "b/n.md", n.Version, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		". from=true intent=true",  // the intent written
		"b from=true intent=true",  // the new name, while the old is there
		"a from=false intent=true", // the old name gone, while the intent is there
	}
	if len(seen) < len(want) || !slices.Equal(seen[:len(want)], want) {
		t.Errorf("syncs, in order:\n%s\nwant them to begin with:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

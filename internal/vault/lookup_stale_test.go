package vault

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// A note removed outside cortex, while the index has not yet seen it go,
// is looked up as the disk has it now: its name finds the same-named note
// elsewhere, as it does once the index has caught up, rather than the
// index's stale path, which reads as not_found.
func TestLookupOfANoteRemovedOutsideBeforeTheIndexSeesIt(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{"plan.md": "# Plan\nold\n", "notes/plan.md": "# Plan\nkept\n"}, nil)
	fi, err := os.Lstat(filepath.Join(dir, "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "plan.md")); err != nil {
		t.Fatal(err)
	}
	// Once the index has seen the removal, put the note back in it: the
	// index is now as it is in the moments before a watcher catches up,
	// and no further event will correct it.
	waitFor(t, v, "the removal", func() bool { return !v.indexed("plan.md") })
	v.ix.update("plan.md", func(x *search.Index) {
		x.Put(search.Analyse("plan.md", "# Plan\nold\n", fi.ModTime().UnixNano(), fi.Size()), true)
	})
	if !v.indexed("plan.md") {
		t.Fatal("the index does not hold the stale note")
	}

	n, err := v.Lookup(ctx, "plan.md")
	if err != nil || n.Path != "notes/plan.md" {
		t.Fatalf("Lookup(plan.md) = %+v, %v; want notes/plan.md, as after the index catches up", n, err)
	}
	if note, err := v.Read(ctx, n.Path); err != nil || note.Content != "# Plan\nkept\n" {
		t.Fatalf("Read(%s) = %v", n.Path, err)
	}
}

// A note that Lookup finds gone is dropped from the index as the watcher
// drops it: with its removal kept in the history. Otherwise the watcher's
// own look, or the next rescan, finds nothing left to drop, and the note's
// history never says that it went.
func TestLookupOfANoteRemovedOutsideKeepsItsRemoval(t *testing.T) {
	h := &fakeHistory{} // its dir is left unset: no test here looks at onDisk
	v, dir := newIndexedVault(t, map[string]string{"plan.md": "# Plan\nold\n", "notes/plan.md": "# Plan\nkept\n"}, withHistory(h))
	// No notifications: the index learns of the removal from Lookup or
	// from a rescan alone.
	if err := v.ix.w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "plan.md")); err != nil {
		t.Fatal(err)
	}
	if n, err := v.Lookup(ctx, "plan.md"); err != nil || n.Path != "notes/plan.md" {
		t.Fatalf("Lookup(plan.md) = %+v, %v; want notes/plan.md", n, err)
	}
	v.ix.reconcile(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range h.kept {
		if k.Path == "plan.md" && k.Gone && k.Writer == WriterExternal {
			return
		}
	}
	t.Fatalf("the history never kept that plan.md went; kept %+v", h.kept)
}

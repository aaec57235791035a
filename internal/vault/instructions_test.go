package vault

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The instructions are remembered between calls, but every change to the
// file is seen by the next call: a new file, a rewrite of the same size
// within the same second, a replacement, a removal, and a folder in the
// path swapped for a link.
func TestInstructionsFollowTheFile(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"docs/": ""}, func(o *Options) { o.Instructions = "docs/ai.md" })
	full := filepath.Join(dir, "docs", "ai.md")
	want := func(step, text string) {
		t.Helper()
		for range 2 { // the first call reads, the second may be remembered
			if got, err := v.Instructions(ctx); got != text || err != nil {
				t.Fatalf("%s: instructions = %q, %v; want %q", step, got, err, text)
			}
		}
	}
	write := func(text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	want("none yet", "")
	old := time.Now().Add(-time.Hour)
	write("Use tags.", old)
	want("created", "Use tags.")
	write("Use TAGS.", time.Now()) // same size, just written
	want("rewritten now", "Use TAGS.")
	write("Use tags!", old) // same size, an old time put back
	want("rewritten with the old time", "Use tags!")
	tmp := filepath.Join(dir, "docs", "new.md")
	if err := os.WriteFile(tmp, []byte("Use links"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, full); err != nil {
		t.Fatal(err)
	}
	want("replaced", "Use links")
	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	want("removed", "")
	write("Linked.", old)
	want("back", "Linked.")
	if err := os.Rename(filepath.Join(dir, "docs"), filepath.Join(dir, "real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Instructions(ctx); err == nil {
		t.Fatalf("instructions through a linked folder = %q, want an error", got)
	}
}

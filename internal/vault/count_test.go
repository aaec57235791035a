package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestCountNotes(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.md", "b/c.md", "b/d.txt", ".trash/x.md", ".git/y.md", "e.sync-conflict-20240101-010101-ABCDEFG.md", ".cortex-tmp-1"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	n, err := CountNotes(context.Background(), dir)
	if err != nil || n != 2 {
		t.Fatalf("CountNotes = %d, %v; want 2", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cortex-tmp-1")); err != nil {
		t.Error("CountNotes removed a temporary file")
	}
	if _, err := CountNotes(context.Background(), filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing vault was counted")
	}
}

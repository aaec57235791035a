package vault

import (
	"slices"
	"sync"
	"testing"
)

// syncLog records the folders a vault syncs.
type syncLog struct {
	mu   sync.Mutex
	dirs []string
}

func (l *syncLog) add(dir string) {
	l.mu.Lock()
	l.dirs = append(l.dirs, dir)
	l.mu.Unlock()
}

func (l *syncLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.dirs
	l.dirs = nil
	slices.Sort(d)
	return slices.Compact(d)
}

// Every folder cortex creates is synced into its parent, and the folder
// of every note written or moved is synced, so that nothing acknowledged
// is lost to a power cut.
func TestNewFoldersAreSyncedIntoTheirParents(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"a/old.md": "old\n"}, nil)
	var log syncLog
	v.synced = log.add

	if _, err := v.Create(ctx, "a/b/c/new.md", "new\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{"a", "a/b", "a/b/c"}; !slices.Equal(got, want) {
		t.Errorf("create a/b/c/new.md synced %q, want %q", got, want)
	}
	if _, err := v.Create(ctx, "a/b/c/two.md", "two\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{"a/b/c"}; !slices.Equal(got, want) {
		t.Errorf("create in an existing folder synced %q, want %q", got, want)
	}
	n, err := v.Read(ctx, "a/old.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Delete(ctx, "a/old.md", n.Version); err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{".", ".trash", ".trash/a", "a"}; !slices.Equal(got, want) {
		t.Errorf("delete synced %q, want %q", got, want)
	}
	n, err = v.Read(ctx, "a/b/c/two.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Move(ctx, "a/b/c/two.md", "x/y.md", n.Version, false); err != nil {
		t.Fatal(err)
	}
	if got, want := log.take(), []string{".", "a/b/c", "x"}; !slices.Equal(got, want) {
		t.Errorf("move synced %q, want %q", got, want)
	}
}

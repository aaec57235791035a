package store

import (
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
)

// SyncDir syncs a folder, and a missing one is a failure; which refusals
// of a file system it takes as done is fsync.Unsupported (tested there).
func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Errorf("SyncDir of a folder: %v", err)
	}
	if err := SyncDir(t.TempDir() + "/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SyncDir of a missing folder = %v, want not found", err)
	}
}

// syncGate holds the first sync of a walSync until released, and records
// how many commits were counted when each sync began: the tests of the
// writers that share syncs (the history's Keep, the journal's RecordWrite)
// make the others commit while the first sync is held.
type syncGate struct {
	mu         sync.Mutex
	began      []uint64
	held, hold chan struct{}
}

func gateSyncs(w *walSync) *syncGate {
	g := &syncGate{held: make(chan struct{}), hold: make(chan struct{})}
	orig := w.sync
	w.sync = func() error {
		g.mu.Lock()
		g.began = append(g.began, w.committed.Load())
		first := len(g.began) == 1
		g.mu.Unlock()
		if first {
			close(g.held)
			<-g.hold
		}
		return orig()
	}
	return g
}

// starts lists the commits counted when each sync began.
func (g *syncGate) starts() []uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.began)
}

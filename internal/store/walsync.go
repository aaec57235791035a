package store

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cortex-mcp/cortex/internal/fsync"
)

// A WAL database opened with synchronous=NORMAL writes a commit's frames
// to its -wal file without waiting for the disk; SQLite syncs that file
// only before a checkpoint (and the database file after one). A commit is
// therefore durable once the -wal file has been synced after it, and one
// sync covers every commit written before the sync began. walSync lets
// the writers of one database share those syncs: made outside SQLite's
// write lock, they overlap with the next commits instead of queueing
// behind one another as synchronous=FULL's sync-inside-the-commit does.
// A writer returns to its caller only once a sync covering its commit
// has returned, so an acknowledged commit outlives a power cut exactly as
// with synchronous=FULL.
type walSync struct {
	// sync makes every commit counted so far durable (syncWAL of the
	// database file; tests hold or count it).
	sync func() error
	// committed counts commits whose frames are written; synced is the
	// last one known durable, under mu.
	committed atomic.Uint64
	mu        sync.Mutex
	synced    uint64
}

func newWALSync(file string) *walSync {
	return &walSync{sync: func() error { return syncWAL(file) }}
}

// commit counts a commit that has returned (its frames are in the -wal
// file) and returns its number, for upTo.
func (w *walSync) commit() uint64 { return w.committed.Add(1) }

// upTo returns once commit seq is durable. A writer whose commit an
// earlier writer's sync covered returns at once; the writers that wait
// while a sync runs share the next one.
func (w *walSync) upTo(seq uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.synced >= seq {
		return nil
	}
	upTo := w.committed.Load() // each of these commits is in the WAL already
	if err := w.sync(); err != nil {
		return err
	}
	w.synced = upTo
	return nil
}

// syncWAL makes the committed transactions of the database file durable:
// it syncs the -wal file, which holds every frame not yet checkpointed
// (checkpointed frames are durable already, SQLite having synced the WAL
// before the checkpoint and the database after it). Without a -wal file
// (all checkpointed and removed) it syncs the database file.
func syncWAL(file string) error {
	err := syncPath(file + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		err = syncPath(file)
	}
	return err
}

// SyncDir makes the names in the folder dir durable, after a file in it
// was created, renamed or removed. A file system that cannot sync a
// folder (fsync.Unsupported) is not an error: it has nothing more to give.
func SyncDir(dir string) error {
	if err := syncPath(dir); err != nil && !fsync.Unsupported(err) {
		return err
	}
	return nil
}

// syncPath fsyncs the file or folder at p.
func syncPath(p string) error {
	return fsync.Close(os.Open(p)) // #nosec G304 -- files and folders of the state folder
}

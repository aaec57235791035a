package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/search"
	"github.com/fsnotify/fsnotify"
)

const (
	// reconcileEvery is how often the notes are compared with the index,
	// catching what notifications missed. With notifications unavailable
	// it drops to degradedEvery.
	reconcileEvery = 30 * time.Second
	degradedEvery  = 5 * time.Second
	// settle is how long a burst of notifications may grow before it is
	// applied: an editor's save is several events.
	settle = 50 * time.Millisecond
)

// indexer owns the search index: it builds it in the background, keeps it
// fresh from file-system notifications and a periodic reconcile, and
// applies cortex's own writes synchronously.
type indexer struct {
	v *Vault

	mu       sync.RWMutex
	x        *search.Index // nil until the first build is done
	building bool          // a build runs: changes are queued for the new index too
	opened   time.Time

	ready   chan struct{} // closed when the first build is done
	stop    chan struct{}
	done    chan struct{}
	kick    chan struct{}  // a path was queued
	changed chan struct{}  // closed and replaced whenever the index changes
	found   sync.WaitGroup // keepFound, which stopIndex waits for

	pmu      sync.Mutex      // guards the fields below but w
	pending  map[string]bool // vault-relative paths to look at again
	full     bool            // a full reconcile is wanted (events lost)
	watched  map[string]bool // folders with a watch
	degraded bool            // no notifications, or not for every folder
	w        *fsnotify.Watcher
}

// startIndex begins building the index in the background.
func (v *Vault) startIndex() {
	ix := &indexer{
		v:        v,
		ready:    make(chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
		changed:  make(chan struct{}),
		pending:  map[string]bool{},
		watched:  map[string]bool{},
		building: true,
	}
	v.ix = ix
	// Temp files of writes made from now on are not stray; a second of
	// margin covers file systems with coarse timestamps.
	ix.opened = time.Now().Add(-time.Second)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		v.log.Warn("vault: file-system notifications unavailable; outside changes are found by a periodic rescan", "err", err)
		ix.degraded = true
	} else {
		ix.w = w
		go ix.events()
	}
	go ix.run()
}

// stopIndex ends the background work and waits for it.
func (v *Vault) stopIndex() {
	if v.ix == nil {
		return
	}
	close(v.ix.stop)
	if v.ix.w != nil {
		v.ix.w.Close()
	}
	<-v.ix.done
	v.ix.found.Wait()
}

// WaitIndexed blocks until the search index has been built, or ctx ends.
// Without Options.Index it returns at once. Searches made before do not
// wait: they scan the notes instead.
func (v *Vault) WaitIndexed(ctx context.Context) error {
	if v.ix == nil {
		return nil
	}
	select {
	case <-v.ix.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// current returns the index under a read lock, or nil (and no lock) when
// it is not built yet. The caller releases the lock with ix.mu.RUnlock.
func (ix *indexer) current() *search.Index {
	if ix == nil {
		return nil
	}
	ix.mu.RLock()
	if ix.x == nil {
		ix.mu.RUnlock()
		return nil
	}
	return ix.x
}

// update runs fn on the index under the write lock and wakes those
// waiting for a change. While a build runs it also queues p, since the
// build may have read an older state of it.
func (ix *indexer) update(p string, fn func(x *search.Index)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.building {
		ix.queue(p) // again once the new index is in place
	}
	if ix.x == nil {
		return
	}
	fn(ix.x)
	if ix.x.NeedsCompact() {
		ix.x.Compact()
	}
	close(ix.changed)
	ix.changed = make(chan struct{})
}

// changes returns a channel closed at the next change of the index.
func (ix *indexer) changes() <-chan struct{} {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.changed
}

func (ix *indexer) run() {
	defer close(ix.done)
	ix.v.removeStrayTemps(ix.opened)
	if e := ix.rebuild(); e != nil {
		select {
		case <-ix.stop:
			return
		default:
		}
		ix.v.log.Error("vault: search index not built; searches scan the notes", "err", e)
		return
	}
	close(ix.ready)
	ix.found.Go(ix.keepFound)
	ix.drain()

	every := faultScale(reconcileEvery)
	ix.pmu.Lock()
	if ix.degraded {
		every = faultScale(degradedEvery)
	}
	ix.pmu.Unlock()
	tick := time.NewTicker(every)
	defer tick.Stop()
	swept := time.Now()
	for {
		select {
		case <-ix.stop:
			return
		case <-ix.kick:
			t := time.NewTimer(settle)
			select {
			case <-ix.stop:
				t.Stop()
				return
			case <-t.C:
			}
			ix.drain()
		case <-tick.C:
			if ix.v.checkHome() != nil {
				continue // logged; the old folder is not worth indexing
			}
			ix.reconcile(context.Background())
			ix.drain()
			if time.Since(swept) >= faultScale(sweepEvery) {
				// A crash leaves temp files that the next start removes;
				// a quick restart spares them as too young, so look again.
				ix.v.sweepTemps()
				swept = time.Now()
			}
			ix.pmu.Lock()
			degraded := ix.degraded
			ix.pmu.Unlock()
			if degraded && every != faultScale(degradedEvery) {
				every = faultScale(degradedEvery)
				tick.Reset(every)
			}
		}
	}
}

// queue asks for path p to be looked at again soon.
func (ix *indexer) queue(p string) {
	ix.pmu.Lock()
	ix.pending[p] = true
	ix.pmu.Unlock()
	select {
	case ix.kick <- struct{}{}:
	default:
	}
}

// drain applies the queued paths (or a full reconcile after lost events).
func (ix *indexer) drain() {
	ix.pmu.Lock()
	paths, full := ix.pending, ix.full
	ix.pending, ix.full = map[string]bool{}, false
	ix.pmu.Unlock()
	if full {
		ix.reconcile(context.Background())
	}
	// Paths that are gone first: a folder renamed within the vault must
	// lose its old watches before its new name is watched, or the
	// notifications would keep the old name.
	var later []string
	for p := range paths {
		if _, err := ix.v.root.Lstat(p); err == nil {
			later = append(later, p)
			continue
		}
		ix.refresh(context.Background(), p)
	}
	for _, p := range later {
		ix.refresh(context.Background(), p)
	}
}

// wrote applies a note that cortex itself has just written (the caller
// holds the note's lock), so that the next search sees it.
func (v *Vault) indexWrite(p string, data []byte) {
	if v.ix == nil {
		return
	}
	fi, err := v.root.Lstat(p)
	if err != nil {
		v.ix.queue(p)
		return
	}
	a := search.Analyse(p, string(data), fi.ModTime().UnixNano(), fi.Size())
	a.SetPrivate(privateText(string(data)))
	v.ix.update(p, func(x *search.Index) { x.Put(a, true) })
	v.forgetPrivate(p)
}

// stillOnDisk reports whether the note the index holds at p is still
// there. The index learns of a note removed outside cortex only when the
// watcher catches up; until then Lookup would answer with a path that
// reads as not_found, and resolve names to it, while the disk has the
// name's note elsewhere. So a note found gone is dropped from the index
// at once (under its lock, as the watcher drops it).
//
// One lstat of the whole path, walked by the kernel, costs a fraction of
// the Lstat through the root folder by folder that the index saves; it
// only decides whether Lookup answers from the index or looks on disk as
// for any other path, and the read that follows goes through the root.
// fi is what that lstat found, nil when it failed otherwise than with the
// note gone.
func (v *Vault) stillOnDisk(ctx context.Context, p string) (fi fs.FileInfo, ok bool) {
	fi, err := os.Lstat(filepath.Join(v.dir, filepath.FromSlash(p)))
	if err == nil {
		return fi, true
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	unlock, e := v.locks.lock(ctx, p)
	if e != nil {
		return nil, false
	}
	defer unlock()
	// As the watcher would: the index takes what is there now, and a
	// note gone has its removal kept in the history, which no later look
	// would keep once the index no longer holds the note.
	v.indexRefresh(p)
	return nil, false
}

// indexRemove forgets a note cortex has moved away (lock held).
func (v *Vault) indexRemove(p string) {
	if v.ix == nil {
		return
	}
	v.ix.update(p, func(x *search.Index) { x.Remove(p) })
}

// indexRefresh re-reads a note cortex has moved into place (lock held).
func (v *Vault) indexRefresh(p string) {
	if v.ix == nil {
		return
	}
	v.ix.refreshLocked(p)
}

package vault

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

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
	x        *index // nil until the first build is done
	building bool   // a build runs: changes are queued for the new index too
	opened   time.Time

	ready   chan struct{} // closed when the first build is done
	stop    chan struct{}
	done    chan struct{}
	kick    chan struct{} // a path was queued
	changed chan struct{} // closed and replaced whenever the index changes

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
func (ix *indexer) current() *index {
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
func (ix *indexer) update(p string, fn func(x *index)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.building {
		ix.queue(p) // again once the new index is in place
	}
	if ix.x == nil {
		return
	}
	fn(ix.x)
	if ix.x.needsCompact() {
		ix.x.compact()
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
	ix.drain()

	every := reconcileEvery
	ix.pmu.Lock()
	if ix.degraded {
		every = degradedEvery
	}
	ix.pmu.Unlock()
	tick := time.NewTicker(every)
	defer tick.Stop()
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
			ix.reconcile(context.Background())
			ix.drain()
			ix.pmu.Lock()
			degraded := ix.degraded
			ix.pmu.Unlock()
			if degraded && every != degradedEvery {
				every = degradedEvery
				tick.Reset(every)
			}
		}
	}
}

// rebuild builds the index from the notes and puts it in place of the
// current one, which keeps serving meanwhile (or the scan, when there is
// none).
func (ix *indexer) rebuild() *Error {
	start := time.Now()
	ix.mu.Lock()
	ix.building = true
	ix.mu.Unlock()
	x, e := ix.build(context.Background())
	ix.mu.Lock()
	ix.building = false
	if e != nil {
		ix.mu.Unlock()
		return e
	}
	ix.x = x
	close(ix.changed)
	ix.changed = make(chan struct{})
	ix.mu.Unlock()
	// The build read every note once; hand that memory back to the
	// system now rather than keep it as idle heap.
	debug.FreeOSMemory()
	ix.v.log.Info("search index ready", "notes", x.live, "terms", len(x.terms),
		"duration", time.Since(start).Round(time.Millisecond))
	return nil
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

// events turns notifications into queued vault-relative paths.
func (ix *indexer) events() {
	root := filepath.Clean(ix.v.dir)
	for {
		select {
		case ev, ok := <-ix.w.Events:
			if !ok {
				return
			}
			rel, err := filepath.Rel(root, ev.Name)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if ix.v.indexable(rel) {
				ix.queue(rel)
			}
		case err, ok := <-ix.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				ix.v.log.Warn("vault: file-system notifications overflowed; rescanning the notes")
			} else {
				ix.v.log.Warn("vault: file-system notification error; rescanning the notes", "err", err)
			}
			ix.pmu.Lock()
			ix.full = true
			ix.pmu.Unlock()
			select {
			case ix.kick <- struct{}{}:
			default:
			}
		}
	}
}

// indexable reports whether a vault-relative path may hold indexed notes:
// no hidden segment (the trash, temp files), nothing protected.
func (v *Vault) indexable(rel string) bool {
	if checkPath(rel) != nil {
		return false
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg[0] == '.' {
			return false
		}
	}
	return !v.isProtected(rel)
}

// watch adds a notification watch on the folder rel ("" for the root).
func (ix *indexer) watch(rel string) {
	if ix.w == nil {
		return
	}
	ix.pmu.Lock()
	defer ix.pmu.Unlock()
	if ix.watched[rel] || (ix.degraded && len(ix.watched) > 0) {
		return
	}
	err := ix.w.Add(filepath.Join(ix.v.dir, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			ix.degraded = true
			ix.v.log.Warn("vault: the system's limit of file-system watches is reached; outside changes in some folders are found by a rescan every few seconds instead",
				"watched_folders", len(ix.watched), "hint", "raise fs.inotify.max_user_watches")
		}
		return
	}
	ix.watched[rel] = true
}

// unwatch forgets the watches on rel and below (the folder is gone).
func (ix *indexer) unwatch(rel string) {
	ix.pmu.Lock()
	defer ix.pmu.Unlock()
	for d := range ix.watched {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(ix.watched, d)
			if ix.w != nil {
				_ = ix.w.Remove(filepath.Join(ix.v.dir, filepath.FromSlash(d)))
			}
		}
	}
}

// build reads every note into a fresh index: one goroutine walks and
// reads, the analysis runs on the available cores (at most two), and one
// goroutine fills the index.
func (ix *indexer) build(ctx context.Context) (*index, *Error) {
	type job struct {
		path string
		data []byte
		fi   fs.FileInfo
	}
	// Small buffers: a queued job holds a whole note in memory.
	jobs := make(chan job, 8)
	results := make(chan *analysed, 8)
	workers := min(2, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- analyse(j.path, string(j.data), j.fi)
			}
		}()
	}
	x := newIndex()
	filled := make(chan struct{})
	go func() {
		for a := range results {
			x.put(a, false)
		}
		close(filled)
	}()
	ix.watch("")
	e := ix.v.walk(ctx, "", true, func(w walkEntry) *Error {
		select {
		case <-ix.stop:
			return newErr(CodeInternal, "", context.Canceled)
		default:
		}
		if w.info.IsDir() {
			ix.watch(w.path)
			return nil
		}
		if w.info.Size() > ix.v.maxNote {
			return nil
		}
		data, st, e := ix.v.readIn(w.dir, w.name, w.info)
		if e != nil {
			return nil // gone or replaced meanwhile; a notification follows
		}
		jobs <- job{w.path, data, st}
		return nil
	})
	close(jobs)
	wg.Wait()
	close(results)
	<-filled
	if e != nil {
		return nil, e
	}
	x.sortTerms()
	x.shrink()
	return x, nil
}

// refresh brings the index in line with the note or folder at p as it is
// on disk now, under the note's lock so that it never races a write.
func (ix *indexer) refresh(ctx context.Context, p string) {
	unlock, e := ix.v.locks.lock(ctx, p)
	if e != nil {
		return
	}
	defer unlock()
	ix.refreshLocked(p)
}

func (ix *indexer) refreshLocked(p string) {
	v := ix.v
	if !v.indexable(p) {
		return
	}
	fi, err := v.root.Lstat(p)
	switch {
	case err != nil:
		ix.unwatch(p)
		ix.update(p, func(x *index) {
			if !x.remove(p) {
				x.removeFolder(p)
			}
		})
		return
	case fi.IsDir():
		ix.mu.RLock()
		built := ix.x != nil
		ix.mu.RUnlock()
		ix.pmu.Lock()
		known := ix.watched[p]
		ix.pmu.Unlock()
		if built && !known {
			ix.scanFolder(p)
		}
		return
	case !fi.Mode().IsRegular() || !isNoteName(path.Base(p)) || fi.Size() > v.maxNote:
		ix.update(p, func(x *index) { x.remove(p) })
		return
	}
	if ix.fresh(p, fi) {
		return
	}
	data, st, _, e := v.readNote(p)
	if e != nil {
		ix.update(p, func(x *index) { x.remove(p) })
		return
	}
	a := analyse(p, string(data), st)
	ix.update(p, func(x *index) { x.put(a, true) })
}

// fresh reports whether the index holds p with fi's time and size.
func (ix *indexer) fresh(p string, fi fs.FileInfo) bool {
	x := ix.current()
	if x == nil {
		return false
	}
	defer ix.mu.RUnlock()
	id, ok := x.byPath[p]
	return ok && x.docs[id].mod == fi.ModTime().UnixNano() && x.docs[id].size == fi.Size()
}

// scanFolder indexes a folder that appeared (created, or moved in) and
// watches it and its subfolders.
func (ix *indexer) scanFolder(dir string) {
	var paths []string
	_ = ix.v.walk(context.Background(), dir, true, func(w walkEntry) *Error {
		if w.info.IsDir() {
			ix.watch(w.path)
		} else {
			paths = append(paths, w.path)
		}
		return nil
	})
	ix.watch(dir)
	for _, p := range paths {
		ix.refresh(context.Background(), p)
	}
}

// reconcile compares every note's time and size with the index and fixes
// what differs; it also watches folders that lack a watch.
func (ix *indexer) reconcile(ctx context.Context) {
	type stat struct{ mod, size int64 }
	seen := map[string]stat{}
	var dirs []string
	e := ix.v.walk(ctx, "", true, func(w walkEntry) *Error {
		if w.info.IsDir() {
			dirs = append(dirs, w.path)
		} else {
			seen[w.path] = stat{w.info.ModTime().UnixNano(), w.info.Size()}
		}
		return nil
	})
	if e != nil {
		return
	}
	for _, d := range dirs {
		ix.watch(d)
	}
	var redo []string
	if x := ix.current(); x != nil {
		for p, s := range seen {
			id, ok := x.byPath[p]
			if !ok || x.docs[id].mod != s.mod || x.docs[id].size != s.size {
				redo = append(redo, p)
			}
		}
		for p := range x.byPath {
			if _, ok := seen[p]; !ok {
				redo = append(redo, p)
			}
		}
		ix.mu.RUnlock()
	}
	for _, p := range redo {
		ix.refresh(ctx, p)
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
	a := analyse(p, string(data), fi)
	v.ix.update(p, func(x *index) { x.put(a, true) })
}

// indexRemove forgets a note cortex has moved away (lock held).
func (v *Vault) indexRemove(p string) {
	if v.ix == nil {
		return
	}
	v.ix.update(p, func(x *index) { x.remove(p) })
}

// indexRefresh re-reads a note cortex has moved into place (lock held).
func (v *Vault) indexRefresh(p string) {
	if v.ix == nil {
		return
	}
	v.ix.refreshLocked(p)
}

// shrink trims the spare capacity of every posting after a bulk load.
func (x *index) shrink() {
	for i := range x.post {
		p := &x.post[i]
		if cap(p.data) > len(p.data) {
			p.data = append([]byte(nil), p.data...)
		}
	}
}

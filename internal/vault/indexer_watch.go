package vault

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cortex-mcp/cortex/internal/vault/search"
	"github.com/fsnotify/fsnotify"
)

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
		removed := false
		ix.update(p, func(x *search.Index) {
			if removed = x.Remove(p); !removed {
				x.RemoveFolder(p)
			}
		})
		if removed {
			// A note cortex did not remove itself (its own moves and
			// deletes leave the index first) went away outside.
			v.keepObserved(p, nil, true)
		}
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
		ix.update(p, func(x *search.Index) { x.Remove(p) })
		return
	}
	if ix.fresh(p, fi) {
		return
	}
	data, st, e := v.readNoteFile(p)
	if e != nil {
		ix.update(p, func(x *search.Index) { x.Remove(p) })
		return
	}
	// A version cortex has not written: an outside change (or its own
	// write seen again, which the history skips as already kept).
	v.keepObserved(p, data, false)
	a := search.Analyse(p, string(data), st.ModTime().UnixNano(), st.Size())
	a.SetPrivate(privateText(string(data)))
	ix.update(p, func(x *search.Index) { x.Put(a, true) })
	v.forgetPrivate(p)
}

// fresh reports whether the index holds p with fi's time and size.
func (ix *indexer) fresh(p string, fi fs.FileInfo) bool {
	x := ix.current()
	if x == nil {
		return false
	}
	defer ix.mu.RUnlock()
	d, ok := x.Lookup(p)
	return ok && d.Mod == fi.ModTime().UnixNano() && d.Size == fi.Size()
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
	ix.v.repairMoves(ctx)
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
			d, ok := x.Lookup(p)
			if !ok || d.Mod != s.mod || d.Size != s.size {
				redo = append(redo, p)
			}
		}
		for d := range x.Docs() {
			if _, ok := seen[d.Path]; !ok {
				redo = append(redo, d.Path)
			}
		}
		ix.mu.RUnlock()
	}
	for _, p := range redo {
		ix.refresh(ctx, p)
	}
}

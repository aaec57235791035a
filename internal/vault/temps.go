package vault

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
)

// strayAge is how old a temp file must be before the periodic sweep
// removes it: a write keeps its temp file for milliseconds, so an older
// one was left by a write that a crash interrupted. (Were a write ever
// that slow, its rename would fail and the write be refused, never half
// done.)
const strayAge = time.Minute

// sweepEvery is how often the running server sweeps.
const sweepEvery = time.Minute

// sweepTemps removes temp files older than strayAge by the vault's clock.
func (v *Vault) sweepTemps() {
	v.removeStrayTemps(v.now().Add(-strayAge))
}

// removeStrayTemps deletes temporary files that an interrupted write left
// behind, in every folder cortex may write to (the trash included). A
// non-zero before spares files modified since, which may belong to writes
// of this process running meanwhile.
func (v *Vault) removeStrayTemps(before time.Time) {
	v.cleanTemps(v.root, "", 0, before)
}

// cleanTemps reads each folder's entries with their types, so that only
// temp files and folders cost a further look.
func (v *Vault) cleanTemps(r *os.Root, dir string, depth int, before time.Time) {
	f, err := r.Open(".")
	if err != nil {
		v.log.Warn("vault: folder not checked for temp files", "err", err)
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		v.log.Warn("vault: folder not checked for temp files", "err", err)
	}
	for _, de := range entries {
		name := de.Name()
		rel := path.Join(dir, name)
		if v.isProtected(rel) {
			continue
		}
		switch {
		case de.Type().IsRegular() && strings.HasPrefix(name, tmpPrefix):
			fi, err := r.Lstat(name)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if !before.IsZero() && !fi.ModTime().Before(before) {
				continue
			}
			if err := r.Remove(name); err != nil {
				v.log.Warn("vault: temp file not removed", "err", err)
			} else {
				v.log.Info("vault: removed a temp file left by an interrupted write", "folder", dir)
			}
		case de.Type()&fs.ModeType == fs.ModeDir && depth < maxDepth:
			sub, err := r.OpenRoot(name)
			if err != nil {
				continue
			}
			v.cleanTemps(sub, rel, depth+1, before)
			sub.Close()
		}
	}
}

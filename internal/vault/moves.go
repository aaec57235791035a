package vault

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// A move (a rename, a delete to .trash/, a restore) must leave the note at
// exactly one of its two names whatever instant a crash comes. On Linux
// renameat2(RENAME_NOREPLACE) does it in one step. Elsewhere, and on file
// systems without that call, the note is hard-linked at its new name and
// then unlinked from its old one; a crash between the two steps would
// leave it at both. So the fallback first writes an intent file naming
// both ends, and repairMoves, run at start-up and by each reconcile,
// finishes any move whose intent survived: the journal says which way.

// movePrefix starts the name of an intent file, at the top of the vault.
const movePrefix = ".cortex-move-"

// errNoRenameat2 reports that renameat2 is not available here.
var errNoRenameat2 = errors.New("renameat2 with RENAME_NOREPLACE is not supported")

// moveNoReplace moves the file at from to the free name to (both checked,
// locks held), failing with note_exists when to is taken.
func (v *Vault) moveNoReplace(from, to string) *Error {
	if done, e := v.renameInOneStep(from, to); done {
		return e
	}
	intent, e := v.beginMove(from, to)
	if e != nil {
		return e
	}
	if e := v.linkNoReplace(from, to); e != nil {
		v.endMove(intent)
		return e
	}
	// Each step is on disk before the next begins: after a power cut the
	// note has at least one name and, while it has two, the intent.
	v.syncDir(path.Dir(to))
	fault("move-after-link")
	if err := v.root.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Both names now hold the note; nothing is lost, and the intent
		// is kept so that the next repair tries again.
		v.log.Warn("vault: old name kept after move", "err", err)
		return nil
	}
	v.syncDir(path.Dir(from))
	v.endMove(intent)
	return nil
}

// renameInOneStep moves from to the free name to with renameat2. done is
// false only where the kernel lacks it, and the caller falls back to link
// then unlink; otherwise e is the outcome (note_exists when to is taken).
func (v *Vault) renameInOneStep(from, to string) (done bool, e *Error) {
	err := v.renameNoReplace(from, to)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return true, newErr(CodeNoteExists, reasonNone, err)
	case errors.Is(err, errNoRenameat2):
		return false, nil
	}
	return true, fsErr("rename", err)
}

// placeNew puts the written temp file tmp at the free name p, failing
// with note_exists when p is taken. A crash between the fallback's link
// and unlink leaves only a temp file, which the sweep removes.
func (v *Vault) placeNew(tmp, p string) *Error {
	if done, e := v.renameInOneStep(tmp, p); done {
		return e
	}
	if e := v.linkNoReplace(tmp, p); e != nil {
		return e
	}
	v.removeTemp(tmp)
	return nil
}

// beginMove writes and syncs the intent of moving from to to, and returns
// its name.
func (v *Vault) beginMove(from, to string) (string, *Error) {
	name := movePrefix + rand.Text()
	f, err := v.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fsErr("create move intent", err)
	}
	_, err = f.WriteString(from + "\n" + to + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = v.root.Remove(name)
		return "", fsErr("write move intent", err)
	}
	v.syncDir(".")
	return name, nil
}

// endMove removes a move's intent once both steps are done (or the first
// failed). A leftover is harmless: the repair finds nothing to finish.
func (v *Vault) endMove(name string) {
	if err := v.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.log.Warn("vault: move intent not removed", "err", err)
	}
}

// repairMoves finishes the moves that a crash interrupted between their
// two steps: a note present at both ends as the same file loses its old
// name. Anything else (the move never began, or finished) needs no work;
// two different files are both kept. Each intent is then removed.
func (v *Vault) repairMoves(ctx context.Context) {
	f, err := v.root.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		if strings.HasPrefix(name, movePrefix) {
			v.repairMove(ctx, name)
		}
	}
}

func (v *Vault) repairMove(ctx context.Context, name string) {
	data, err := v.root.ReadFile(name)
	if err != nil {
		return // finished meanwhile
	}
	from, to, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), "\n")
	if !ok || checkPath(from) != nil || checkPath(to) != nil {
		v.log.Warn("vault: unreadable move intent removed", "file", name)
		v.endMove(name)
		return
	}
	unlock, e := v.locks.lock(ctx, from, to)
	if e != nil {
		return
	}
	defer unlock()
	if _, err := v.root.Lstat(name); err != nil {
		return // its move finished while the locks were awaited
	}
	ffi, ferr := v.root.Lstat(from)
	tfi, terr := v.root.Lstat(to)
	if ferr == nil && terr == nil && ffi.Mode().IsRegular() && os.SameFile(ffi, tfi) {
		if err := v.root.Remove(from); err != nil {
			v.log.Warn("vault: an interrupted move could not be finished", "from", from, "to", to, "err", err)
			return
		}
		v.syncDir(path.Dir(from))
		v.endMove(name)
		v.log.Info("vault: finished a move that a crash interrupted", "from", from, "to", to)
		return
	}
	v.endMove(name)
}

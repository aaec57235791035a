package vault

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/cortex-mcp/cortex/internal/fsync"
)

// versionOf is the short hash that identifies one content of a note.
func versionOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// lstatDir checks that dir ("." for the root) is an existing folder reached
// without symbolic links.
func (v *Vault) lstatDir(dir string) (fs.FileInfo, *Error) {
	if dir == "." {
		fi, err := v.root.Lstat(".")
		if err != nil {
			return nil, fsErr("lstat", err)
		}
		return fi, nil
	}
	var fi fs.FileInfo
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		var err error
		if fi, err = v.root.Lstat(dir[:i]); err != nil {
			return nil, fsErr("lstat", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, newErr(CodeInvalidPath, ReasonLinkInPath, nil)
		}
		if !fi.IsDir() {
			return nil, newErr(CodeNotFound, ReasonFileInPath, nil)
		}
	}
	return fi, nil
}

// checkNewPath prepares the creation of a note at p: existing folders on
// the way must be real folders, and p itself must not exist. Nor may the
// note, or a folder that would be created for it, exist in another Unicode
// normal form: macOS stores names decomposed, so "Café.md" typed here and
// "Café.md" written by a Mac look the same but are two files, which collide
// once a Mac syncs both. A twin note is note_exists (the caller should edit
// that note); a twin folder is invalid_path (the caller should use its
// spelling). self is a note that does not count as a twin (the source of a
// move, so that a name can be changed to its other form).
func (v *Vault) checkNewPath(p, self string) *Error {
	dir := path.Dir(p)
	for i := 0; dir != "." && i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		fi, err := v.root.Lstat(dir[:i])
		if errors.Is(err, fs.ErrNotExist) {
			// The rest is created, so the note cannot exist yet.
			if t := v.twin(dir[:i], "", true); t != "" {
				return fail(&Error{Code: CodeInvalidPath, Reason: ReasonCaseFolder, Subject: t})
			}
			return nil
		}
		if err != nil {
			return fsErr("lstat", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return newErr(CodeInvalidPath, ReasonLinkInPath, nil)
		}
		if !fi.IsDir() {
			return newErr(CodeInvalidPath, ReasonFileInNewPath, nil)
		}
	}
	_, err := v.root.Lstat(p)
	switch {
	case err == nil:
		return newErr(CodeNoteExists, reasonNone, nil)
	case !errors.Is(err, fs.ErrNotExist):
		return fsErr("lstat", err)
	}
	if t := v.twin(p, self, true); t != "" {
		return fail(&Error{Code: CodeNoteExists, Reason: ReasonCaseTwin, Subject: t})
	}
	return nil
}

// twin returns the name of an entry, other than self, in the folder
// holding p (which exists and was checked) whose name differs from p's
// only by Unicode normalisation, or with caseToo also by case; "" when
// there is none. It lists the folder once, a cost paid only by writes that
// create something and by reads of a path that is not there.
func (v *Vault) twin(p, self string, caseToo bool) string {
	dir, name := path.Dir(p), path.Base(p)
	key := norm.NFC.String
	if caseToo {
		key = func(s string) string { return foldKey(s) }
	}
	want := key(name)
	f, err := v.root.Open(dir)
	if err != nil {
		return "" // the creation that follows reports the problem
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(512)
		for _, n := range names {
			if n != name && key(n) == want && path.Join(dir, n) != self {
				return n
			}
		}
		if err != nil {
			return ""
		}
	}
}

// adoptSpelling rewrites each missing folder of p that exists in another
// case or normal form into that existing spelling, so that a note goes into the
// folder that looks the same rather than into a twin of it.
func (v *Vault) adoptSpelling(p string) string {
	segs := strings.Split(p, "/")
	for i := range len(segs) - 1 {
		cur := strings.Join(segs[:i+1], "/")
		if _, err := v.root.Lstat(cur); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			break // checkNewPath reports it
		}
		t := v.twin(cur, "", true)
		if t == "" {
			break // the rest is created
		}
		segs[i] = t
	}
	return strings.Join(segs, "/")
}

// existingSpelling returns p with each part that does not exist spelled
// as the entry beside it that differs only by Unicode normalisation:
// "Café.md" typed composed finds "Café.md" that a Mac wrote decomposed,
// and the other way round. A part with no such twin ends the search, and
// p is returned unchanged.
func (v *Vault) existingSpelling(p string) string {
	segs := strings.Split(p, "/")
	for i := range segs {
		cur := strings.Join(segs[:i+1], "/")
		if _, err := v.root.Lstat(cur); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		t := v.twin(cur, "", false)
		if t == "" {
			return p
		}
		segs[i] = t
	}
	return strings.Join(segs, "/")
}

// readNamed is readNote that also finds the note under another Unicode
// normal form of p; it returns the path as spelled on disk.
func (v *Vault) readNamed(p string) (string, []byte, fs.FileInfo, fs.FileInfo, *Error) {
	data, fi, parent, e := v.readNote(p)
	if e != nil && e.Code == CodeNotFound {
		if q := v.existingSpelling(p); q != p {
			p = q
			data, fi, parent, e = v.readNote(p)
		}
	}
	return p, data, fi, parent, e
}

// openDir opens the folder dir ("." for the root) as a root of its own,
// one component at a time, refusing symbolic links at each. Lookups in the
// returned root then cost a single system call each. It also returns the
// folder's info and the function that releases the root.
func (v *Vault) openDir(dir string) (*os.Root, fs.FileInfo, func(), *Error) {
	if dir == "." {
		fi, err := v.root.Lstat(".")
		if err != nil {
			return nil, nil, nil, fsErr("lstat", err)
		}
		return v.root, fi, func() {}, nil
	}
	r, fi := v.root, fs.FileInfo(nil)
	release := func() {
		if r != v.root {
			r.Close()
		}
	}
	for c := range strings.SplitSeq(dir, "/") {
		var err error
		if fi, err = r.Lstat(c); err != nil {
			release()
			return nil, nil, nil, fsErr("lstat", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			release()
			return nil, nil, nil, newErr(CodeInvalidPath, ReasonLinkInPath, nil)
		}
		if !fi.IsDir() {
			release()
			return nil, nil, nil, newErr(CodeNotFound, ReasonFileInPath, nil)
		}
		sub, err := r.OpenRoot(c)
		release()
		if err != nil {
			return nil, nil, nil, fsErr("open folder", err)
		}
		r = sub
	}
	return r, fi, release, nil
}

// readNote reads the note at p (already validated) in one pass. It returns
// the bytes, the info of the open file and the info of its folder. Where
// the kernel has openat2 the folder and the note are each found with one
// lookup; what that does not find as a plain note is read by the walk.
func (v *Vault) readNote(p string) ([]byte, fs.FileInfo, fs.FileInfo, *Error) {
	if parent, ok := v.folderBeneath(path.Dir(p)); ok {
		if data, fi, ok := v.readBeneath(p, nil); ok {
			return data, fi, parent, nil
		}
	}
	return v.readNoteWalking(p, nil)
}

// readNoteFile is readNote for callers that do not need the folder's
// info, which costs a lookup of its own.
func (v *Vault) readNoteFile(p string) ([]byte, fs.FileInfo, *Error) {
	return v.readNoteFileInto(p, nil)
}

// readNoteFileInto is readNoteFile into buf's room when it is enough (see
// readAllSized).
func (v *Vault) readNoteFileInto(p string, buf []byte) ([]byte, fs.FileInfo, *Error) {
	if data, fi, ok := v.readBeneath(p, buf); ok {
		return data, fi, nil
	}
	data, fi, _, e := v.readNoteWalking(p, buf)
	return data, fi, e
}

// readNoteWalking is readNote the portable way: each folder of the path
// is looked at and opened in turn, refusing links, so that each refusal
// names what is wrong. It is the only way where the kernel lacks openat2,
// and elsewhere the way every read that is not plainly a note is answered.
// The note is read into buf's room when it is enough.
func (v *Vault) readNoteWalking(p string, buf []byte) ([]byte, fs.FileInfo, fs.FileInfo, *Error) {
	r, parent, release, e := v.openDir(path.Dir(p))
	if e != nil {
		return nil, nil, nil, e
	}
	defer release()
	name := path.Base(p)
	for range 3 {
		fi, err := r.Lstat(name)
		if err != nil {
			return nil, nil, nil, fsErr("lstat", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, nil, nil, newErr(CodeInvalidPath, ReasonLinkNote, nil)
		}
		if !fi.Mode().IsRegular() {
			return nil, nil, nil, newErr(CodeNotANote, ReasonSpecialNote, nil)
		}
		if fi.Size() > v.maxNote {
			return nil, nil, nil, errNoteTooLarge(fi.Size(), v.maxNote)
		}
		data, st, e := v.readInto(r, name, fi, buf)
		if e == errReplaced {
			continue // replaced between the check and the open: look again
		}
		if e != nil {
			return nil, nil, nil, e
		}
		return data, st, parent, nil
	}
	return nil, nil, nil, newErr(CodeInternal, ReasonUnsteady, nil)
}

// errReplaced reports a file replaced between its Lstat and its open (a
// sync tool's rename, or a link swapped in).
var errReplaced = newErr(CodeNotFound, ReasonReplaced, nil)

// readIn reads the file name in the folder r, checked with Lstat as fi.
func (v *Vault) readIn(r *os.Root, name string, fi fs.FileInfo) ([]byte, fs.FileInfo, *Error) {
	return v.readInto(r, name, fi, nil)
}

// readInto is readIn into buf's room when it is enough.
func (v *Vault) readInto(r *os.Root, name string, fi fs.FileInfo, buf []byte) ([]byte, fs.FileInfo, *Error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, nil, fsErr("open", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fsErr("stat", err)
	}
	if !os.SameFile(fi, st) {
		return nil, nil, errReplaced
	}
	data, e := readAllSized(f, st.Size(), v.maxNote, buf)
	return data, st, e
}

// noteString is data as a string, without the copy string(data) makes:
// data must be a note's bytes just read into a buffer that nothing
// changes while the string is in use. A note read for a fetch is
// otherwise held twice, which doubled what a search allocates. For a
// buffer of its own (as readAllSized returns with buf nil) that is for
// ever; for a pooled one (noteBufs) only until the buffer is given back,
// so whatever is kept of the string must be detached first.
func noteString(data []byte) string {
	return unsafe.String(unsafe.SliceData(data), len(data)) // #nosec G103 -- data is not written while the string is used
}

// readAllSized reads f with a single allocation and, when the file still
// has the size fstat reported, a single read. It refuses more than limit
// bytes. It reads into buf when buf has room for size+1 bytes (a pooled
// buffer a search reads notes into), else into a buffer of its own.
func readAllSized(f *os.File, size, limit int64, buf []byte) ([]byte, *Error) {
	if int64(cap(buf)) >= size+1 {
		buf = buf[:0]
	} else {
		buf = make([]byte, 0, size+1) // +1 so that growth is seen without reallocating
	}
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errNoteTooLarge(-1, limit)
		}
		if err == io.EOF || (err == nil && int64(len(buf)) == size && n > 0) {
			return buf, nil
		}
		if err != nil {
			return nil, fsErr("read", err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// writeSpec describes one atomic write.
type writeSpec struct {
	path string
	data []byte
	// prev is the info of the note being replaced, as read under the lock;
	// nil when a new note is created.
	prev fs.FileInfo
	// ready, when set, is waited for once the temp file is on disk and
	// before the note is replaced: the history storing the old version,
	// in parallel with the temp file's write. An error refuses the write.
	ready func() *Error
}

// writeAtomic writes a note so that readers see either the old or the new
// content, never a mix, and a crash leaves at worst a hidden temp file:
// temp file in the same folder, fsync, rename (for a new note a rename
// that never replaces, so that nothing that appeared meanwhile is
// overwritten), fsync of the folder.
func (v *Vault) writeAtomic(w writeSpec) *Error {
	if e := v.checkHome(); e != nil {
		return e
	}
	dir := path.Dir(w.path)
	if e := v.mkdirs(dir); e != nil {
		return e
	}
	perm := fs.FileMode(0o644)
	if w.prev != nil {
		perm = w.prev.Mode().Perm()
	}
	tmp := path.Join(dir, tmpPrefix+rand.Text())
	f, err := v.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fsErr("create temp", err)
	}
	_, err = f.Write(w.data)
	if err == nil && w.prev != nil {
		err = f.Chmod(perm) // the umask may have narrowed it
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		v.removeTemp(tmp)
		return fsErr("write temp", err)
	}
	if w.ready != nil {
		if e := w.ready(); e != nil {
			v.removeTemp(tmp)
			return e
		}
		fault("write-after-history")
	}
	if e := v.commitTemp(tmp, w); e != nil {
		v.removeTemp(tmp)
		return e
	}
	v.syncDir(dir)
	// The folder may have been replaced while the note was written: then
	// the write is not acknowledged, as it went where nobody looks.
	return v.checkHome()
}

// commitTemp puts the written temp file in place of w.path.
func (v *Vault) commitTemp(tmp string, w writeSpec) *Error {
	if w.prev != nil {
		// Last look before replacing: a sync tool or editor may have
		// written the note after it was read under the lock.
		cur, err := v.root.Lstat(w.path)
		if err != nil {
			return fsErr("lstat", err)
		}
		if !sameState(w.prev, cur) {
			return v.changedErr(w.path)
		}
		if err := v.root.Rename(tmp, w.path); err != nil {
			return fsErr("rename", err)
		}
		return nil
	}
	return v.placeNew(tmp, w.path)
}

// linkNoReplace makes newname name the file oldname, failing with
// note_exists if newname exists. Hard links make this atomic; on file
// systems without them it falls back to a checked rename.
func (v *Vault) linkNoReplace(oldname, newname string) *Error {
	err := v.root.Link(oldname, newname)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return newErr(CodeNoteExists, reasonNone, err)
	}
	if _, lerr := v.root.Lstat(newname); lerr == nil {
		return newErr(CodeNoteExists, reasonNone, nil)
	}
	v.log.Debug("vault: hard link unavailable, renaming", "err", err)
	if err := v.root.Rename(oldname, newname); err != nil {
		return fsErr("rename", err)
	}
	return nil
}

// changedErr reports that the note at p changed, with its current version.
func (v *Vault) changedErr(p string) *Error {
	data, _, e := v.readNoteFile(p)
	if e != nil {
		return errVersion("")
	}
	return errVersion(versionOf(data))
}

// sameState reports whether two infos describe the same file unchanged.
func sameState(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

func (v *Vault) removeTemp(tmp string) {
	if err := v.root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.log.Warn("vault: temp file not removed", "err", err)
	}
}

// mkdirs creates the missing folders of dir ("." for none), one at a time,
// and syncs the parent of each folder it created. The note's own rename
// is synced with its folder, but that folder's name in its parent would
// otherwise live in the page cache only: a power loss could then drop a
// new folder together with the acknowledged note in it.
func (v *Vault) mkdirs(dir string) *Error {
	if dir == "." {
		return nil
	}
	if fi, err := v.root.Lstat(dir); err == nil && fi.IsDir() {
		return nil
	}
	var created []string
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		err := v.root.Mkdir(dir[:i], 0o755)
		switch {
		case err == nil:
			created = append(created, dir[:i])
		case !errors.Is(err, fs.ErrExist):
			return mkdirErr(err)
		}
	}
	if fi, err := v.root.Lstat(dir); err != nil || !fi.IsDir() {
		return mkdirErr(syscall.ENOTDIR)
	}
	for _, d := range created {
		v.syncDir(path.Dir(d))
	}
	return nil
}

// syncDir makes a rename in dir durable. A failure is logged, not returned:
// the note is already in place.
func (v *Vault) syncDir(dir string) {
	if err := fsync.Close(v.root.Open(dir)); err != nil && !fsync.Unsupported(err) {
		v.log.Warn("vault: folder sync failed", "err", fmt.Errorf("sync: %w", err))
	}
	if v.synced != nil {
		v.synced(dir)
	}
}

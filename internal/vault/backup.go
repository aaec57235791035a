package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/cortex-mcp/cortex/internal/fsync"
)

// What a backup of the vault holds: every regular file and folder under
// it (notes, attachments, the trash, the editor's hidden settings, Syncthing
// conflict copies), except what is nobody's data: cortex's and Syncthing's
// temporary files, and Syncthing's own version archive (.stversions), which
// is a backup of its own and may be larger than the vault. Symbolic links
// and special files are skipped: cortex never follows a link.

// SnapshotFile is one file or folder of the vault as Snapshot copied it.
type SnapshotFile struct {
	Path    string // vault-relative, '/' between folders
	Dir     bool
	Perm    fs.FileMode
	ModTime time.Time
	Size    int64
	// Note: a file that cortex counts as a note (what `status` counts).
	Note bool
	// Version is a note's version as the tools show it ("" for other
	// files).
	Version string
	// Data is the file's whole content, read while it did not change.
	// Files larger than SnapshotOptions.InMemory come as Reader instead.
	Data []byte
	// Reader, for a large file, yields exactly Size bytes; Snapshot
	// checks afterwards that the file did not change meanwhile.
	Reader io.Reader
}

// SnapshotOptions configures Snapshot. Zero values mean the defaults.
type SnapshotOptions struct {
	// InMemory is the largest file read whole (default 64 MiB).
	InMemory int64
	// Tries is how often a file that changes while being read is read
	// again (default 5).
	Tries int
}

// ErrKeptChanging: a file changed on every try while being copied.
var ErrKeptChanging = errors.New("the file kept changing while being copied")

// Snapshot calls fn with each file and folder under dir, parents before
// their contents, in name order. It opens no Vault (it repairs and sweeps
// nothing), so it may run beside a live server: each file is read and then
// looked at again, and read again when it was replaced or changed meanwhile,
// so that no file is copied half-written. cortex's own writes replace a
// note in one rename, so a note is always either before or after a write.
// Snapshot only reads.
func Snapshot(ctx context.Context, dir string, opts SnapshotOptions, fn func(SnapshotFile) error) error {
	if opts.InMemory <= 0 {
		opts.InMemory = 64 << 20
	}
	if opts.Tries <= 0 {
		opts.Tries = 5
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open vault %s: %w", dir, err)
	}
	defer root.Close()
	return snapshotDir(ctx, root, "", false, opts, fn, 0)
}

func snapshotDir(ctx context.Context, r *os.Root, dir string, hidden bool, opts SnapshotOptions, fn func(SnapshotFile) error, depth int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	names, err := readNames(r)
	if err != nil {
		return fmt.Errorf("list %s: %w", orRoot(dir), err)
	}
	for _, name := range names {
		rel := name
		if dir != "" {
			rel = dir + "/" + name
		}
		if skipInBackup(rel, name) {
			continue
		}
		fi, err := r.Lstat(name)
		if err != nil {
			continue // removed meanwhile
		}
		switch {
		case fi.IsDir():
			if depth >= maxDepth {
				continue
			}
			if err := fn(SnapshotFile{Path: rel, Dir: true, Perm: fi.Mode().Perm(), ModTime: fi.ModTime()}); err != nil {
				return err
			}
			sub, err := r.OpenRoot(name)
			if err != nil {
				return fmt.Errorf("open %s: %w", rel, err)
			}
			err = snapshotDir(ctx, sub, rel, hidden || name[0] == '.', opts, fn, depth+1)
			sub.Close()
			if err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			note := !hidden && name[0] != '.' && isNoteName(name)
			if err := snapshotFile(r, rel, name, note, opts, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func orRoot(dir string) string {
	if dir == "" {
		return "the vault"
	}
	return dir
}

// skipInBackup reports what a backup leaves out.
func skipInBackup(rel, name string) bool {
	return isTempName(name) || rel == ".stversions"
}

// snapshotFile reads one file until two looks at it agree.
func snapshotFile(r *os.Root, rel, name string, note bool, opts SnapshotOptions, fn func(SnapshotFile) error) error {
	for range opts.Tries {
		before, err := r.Lstat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted meanwhile: not in this backup
			}
			return fmt.Errorf("look at %s: %w", rel, err)
		}
		if !before.Mode().IsRegular() {
			return nil
		}
		f, err := r.Open(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("open %s: %w", rel, err)
		}
		st, err := f.Stat()
		if err != nil || !os.SameFile(before, st) || !sameState(before, st) {
			f.Close()
			continue
		}
		sf := SnapshotFile{Path: rel, Perm: st.Mode().Perm(), ModTime: st.ModTime(), Size: st.Size(), Note: note}
		if st.Size() <= opts.InMemory {
			var buf bytes.Buffer
			buf.Grow(int(st.Size()))
			_, err = io.Copy(&buf, io.LimitReader(f, st.Size()+1))
			f.Close()
			if err != nil {
				return fmt.Errorf("read %s: %w", rel, err)
			}
			if int64(buf.Len()) != st.Size() || !unchanged(r, name, st) {
				continue // written in place while read: read it again
			}
			sf.Data = buf.Bytes()
			if note {
				sf.Version = versionOf(sf.Data)
			}
			return fn(sf)
		}
		// Too large to hold: stream it and check afterwards. A change
		// cannot be taken back out of the caller's copy, so it fails.
		sf.Reader = io.LimitReader(f, st.Size())
		err = fn(sf)
		f.Close()
		if err != nil {
			return err
		}
		if !unchanged(r, name, st) {
			return fmt.Errorf("copy %s: %w", rel, ErrKeptChanging)
		}
		return nil
	}
	return fmt.Errorf("copy %s: %w", rel, ErrKeptChanging)
}

// unchanged reports whether name still is the file st, with its size and
// time.
func unchanged(r *os.Root, name string, st fs.FileInfo) bool {
	now, err := r.Lstat(name)
	return err == nil && os.SameFile(now, st) && sameState(now, st)
}

// Restorer writes the files of a backup into a new vault folder. It is
// the only way a restore reaches the vault, so that a restore goes through
// the package that owns notes on disk.
//
// It writes every file without waiting for the disk and makes them all
// durable at once in Sync: one fsync per file written makes a restore of
// ten thousand notes take as many disk flushes, while nothing in a restore
// is worth keeping until all of it is (a restore that stops half-way is
// removed with Abort and started again).
type Restorer struct {
	root    *os.Root
	top     *os.File // the folder, open from the start for syncFS
	dir     string
	created bool // the folder did not exist before NewRestorer
	// made lists the folders NewRestorer created, dir first and then
	// each parent it had to create: each one's entry in its parent must
	// reach the disk too.
	made  []string
	files []string
	dirs  []string
	// noSyncfs makes Sync take one file at a time (tests and benchmarks
	// of the fallback).
	noSyncfs bool
}

// ErrNotEmpty: the folder to restore into already holds something.
var ErrNotEmpty = errors.New("the folder is not empty")

// NewRestorer creates dir (0700) or opens it when it exists and is empty;
// a restore never writes over live data.
func NewRestorer(dir string) (*Restorer, error) {
	_, statErr := os.Lstat(dir)
	created := errors.Is(statErr, fs.ErrNotExist)
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	names, err := readNames(root)
	if err != nil {
		root.Close()
		return nil, err
	}
	if len(names) > 0 {
		root.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrNotEmpty)
	}
	top, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Restorer{root: root, top: top, dir: dir, created: created, made: made, dirs: []string{"."}}, nil
}

// checkRestorePath refuses what no backup of cortex holds: any path the
// vault's tools would refuse.
func checkRestorePath(p string) error {
	if e := checkPath(p); e != nil {
		return fmt.Errorf("%q: %s", p, e.Message)
	}
	return nil
}

// Dir creates the folder p with mode 0700, the mode cortex gives its
// folders, whatever the backup recorded: an archive is no authority on
// who may read the notes.
func (r *Restorer) Dir(p string) error {
	if err := checkRestorePath(p); err != nil {
		return err
	}
	if err := r.root.MkdirAll(p, 0o700); err != nil {
		return err
	}
	r.dirs = append(r.dirs, p)
	return r.root.Chmod(p, 0o700)
}

// File writes the file p from src with mode 0600 (whatever the backup
// recorded, as Dir); p must not exist yet. It is durable only once Sync
// has returned.
func (r *Restorer) File(p string, mtime time.Time, src io.Reader) error {
	if err := checkRestorePath(p); err != nil {
		return err
	}
	if d := path.Dir(p); d != "." {
		if err := r.root.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	f, err := r.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	r.files = append(r.files, p)
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if !mtime.IsZero() {
		return r.root.Chtimes(p, mtime, mtime)
	}
	return nil
}

// Sync puts every file and folder written on stable storage: with one
// syncfs(2) of the vault's file system where the kernel has it (it reports
// a write-back error of any file), otherwise with one fsync per file and
// then one per folder, all after the writes, so that the disk flushes them
// together.
func (r *Restorer) Sync() error {
	if !r.noSyncfs {
		err := syncFS(r.top)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errNoSyncfs) {
			return fmt.Errorf("sync the restored vault: %w", err)
		}
	}
	for _, p := range r.files {
		if err := r.syncOne(p); err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
	}
	// The deepest folders first, so that each folder's entry in its
	// parent is written after the folder itself.
	for i := len(r.dirs) - 1; i >= 0; i-- {
		if err := r.syncOne(r.dirs[i]); err != nil && !fsync.Unsupported(err) {
			return fmt.Errorf("sync %s: %w", r.dirs[i], err)
		}
	}
	// The folders NewRestorer created, the deepest first: each one's
	// parent, so that the vault folder itself is found after a power cut.
	for _, d := range r.made {
		if err := syncFolder(filepath.Dir(d)); err != nil && !fsync.Unsupported(err) {
			return fmt.Errorf("sync %s: %w", filepath.Dir(d), err)
		}
	}
	return nil
}

// syncFolder fsyncs the folder p (outside the vault: the restore's target's
// parents).
func syncFolder(p string) error {
	return fsync.Close(os.Open(p)) // #nosec G304 -- a parent of the folder the owner named for the restore
}

func (r *Restorer) syncOne(p string) error { return fsync.Close(r.root.Open(p)) }

// Abort removes everything the restore wrote, and the folder itself when
// NewRestorer created it, so that a failed restore leaves no vault that
// looks whole. It releases the folder; Close need not follow.
func (r *Restorer) Abort() error {
	names, err := readNames(r.root)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		if err := r.root.RemoveAll(n); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, r.Close())
	if r.created && errors.Join(errs...) == nil {
		// The folder and each parent NewRestorer made, the deepest
		// first; a parent something else now uses stays.
		errs = append(errs, os.Remove(r.dir))
		for _, d := range r.made[1:] {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Close releases the vault folder; call Sync first.
func (r *Restorer) Close() error {
	return errors.Join(r.top.Close(), r.root.Close())
}

package vault

import (
	"cmp"
	"context"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// maxDepth bounds folder recursion; a path of 1024 bytes cannot be deeper.
const maxDepth = 512

// walkEntry is one note or folder met by walk. dir is the folder holding it,
// opened as a root, so that reading it costs no path lookups.
type walkEntry struct {
	path string
	name string
	info fs.FileInfo
	dir  *os.Root
}

// errStop ends a walk early without an error; errSkipDir, returned for a
// folder, passes over the folder and what it holds.
var (
	errStop    = &Error{Code: "stop"}
	errSkipDir = &Error{Code: "skip"}
)

// walk visits the notes and folders in dir ("" for the root), in name
// order, and their contents when recursive. Symbolic links, protected
// paths, hidden entries (names starting with '.'; the trash among them),
// names that no path may hold (so nothing is listed that cannot be read)
// and files that are not notes are skipped. Every lookup goes through a root
// opened on the folder itself.
func (v *Vault) walk(ctx context.Context, dir string, recursive bool, fn func(walkEntry) *Error) *Error {
	return v.walkKinds(ctx, dir, recursive, false, fn)
}

// walkFiles is walk that also visits attachments: regular files that are
// not notes (nor temporary files or conflict copies).
func (v *Vault) walkFiles(ctx context.Context, dir string, recursive bool, fn func(walkEntry) *Error) *Error {
	return v.walkKinds(ctx, dir, recursive, true, fn)
}

func (v *Vault) walkKinds(ctx context.Context, dir string, recursive, files bool, fn func(walkEntry) *Error) *Error {
	r := v.root
	if dir != "" {
		sub, err := v.root.OpenRoot(dir)
		if err != nil {
			return fsErr("open folder", err)
		}
		defer sub.Close()
		r = sub
	}
	if a := accessOf(ctx); !a.all() {
		// What the call may not see is passed over as if it were not there.
		inner := fn
		fn = func(w walkEntry) *Error {
			if w.info.IsDir() {
				if !v.folderVisible(a, w.path) {
					return errSkipDir
				}
			} else if !v.pathVisible(a, w.path) ||
				!a.s.Private && isNoteName(w.name) && v.notePrivate(w.path, w.info) {
				return nil
			}
			return inner(w)
		}
	}
	e := v.walkRoot(ctx, r, dir, recursive, files, fn, 0)
	if e == errStop {
		return nil
	}
	return e
}

func (v *Vault) walkRoot(ctx context.Context, r *os.Root, dir string, recursive, files bool, fn func(walkEntry) *Error, depth int) *Error {
	if e := ctxErr(ctx); e != nil {
		return e
	}
	names, err := readNames(r)
	if err != nil {
		return fsErr("list folder", err)
	}
	for _, name := range names {
		if name[0] == '.' || !validName(name) {
			continue
		}
		rel := name
		if dir != "" {
			rel = dir + "/" + name
		}
		if v.isProtected(rel) {
			continue
		}
		fi, err := r.Lstat(name)
		if err != nil {
			continue // removed meanwhile
		}
		switch {
		case fi.IsDir():
			if e := fn(walkEntry{path: rel, name: name, info: fi, dir: r}); e == errSkipDir {
				continue
			} else if e != nil {
				return e
			}
			if !recursive || depth >= maxDepth {
				continue
			}
			sub, err := r.OpenRoot(name)
			if err != nil {
				continue
			}
			e := v.walkRoot(ctx, sub, rel, true, files, fn, depth+1)
			sub.Close()
			if e != nil {
				return e
			}
		case fi.Mode().IsRegular() && (isNoteName(name) || files && isAttachmentName(name)):
			if e := fn(walkEntry{path: rel, name: name, info: fi, dir: r}); e != nil {
				return e
			}
		}
	}
	return nil
}

// readNames lists the names in the folder r, sorted.
func readNames(r *os.Root) ([]string, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	slices.Sort(names)
	return names, err
}

// List returns the notes, attachments and folders in folder ("" for the
// root), sorted by path; with recursive, everything below it. A root listing shows the
// .trash folder (when it exists) but not its contents; list ".trash" to see
// them.
func (v *Vault) List(ctx context.Context, folder string, recursive bool) ([]Entry, error) {
	if e := v.checkHome(); e != nil {
		return nil, e
	}
	folder, e := checkFolder(folder)
	if e != nil {
		return nil, e
	}
	a := accessOf(ctx)
	if !v.folderVisible(a, folder) {
		return nil, errHidden()
	}
	if folder != "" {
		if v.isProtected(folder) {
			return nil, newErr(CodeProtectedPath, reasonNone, nil)
		}
		if _, e := v.lstatSeenDir(a, folder); e != nil {
			return nil, e
		}
	}
	out := []Entry{}
	e = v.walkFiles(ctx, folder, recursive, func(w walkEntry) *Error {
		en := toEntry(w.path, w.info)
		en.Attachment = !en.IsDir && !isNoteName(w.name)
		out = append(out, en)
		return nil
	})
	if e != nil {
		return nil, e
	}
	if folder == "" {
		if fi, err := v.root.Lstat(trashDir); err == nil && fi.IsDir() {
			out = append(out, toEntry(trashDir, fi))
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

func toEntry(p string, fi fs.FileInfo) Entry {
	e := Entry{Path: p, IsDir: fi.IsDir(), Modified: fi.ModTime()}
	if !e.IsDir {
		e.Size = fi.Size()
	}
	return e
}

// Changed returns the notes modified at or after since, newest first. The
// trash is not included. With the index built it answers from the index.
func (v *Vault) Changed(ctx context.Context, since time.Time) ([]Entry, error) {
	if e := v.checkHome(); e != nil {
		return nil, e
	}
	out := []Entry{}
	if x := v.ix.current(); x != nil {
		s := since.UnixNano()
		for d := range x.Docs() {
			if d.Mod >= s {
				out = append(out, Entry{Path: d.Path, Size: d.Size, Modified: time.Unix(0, d.Mod)})
			}
		}
		v.ix.mu.RUnlock()
		if a := accessOf(ctx); !a.all() {
			out = slices.DeleteFunc(out, func(en Entry) bool { return !v.visibleNote(a, en.Path) })
		}
		sortChanged(out)
		return out, nil
	}
	e := v.walk(ctx, "", true, func(w walkEntry) *Error {
		if !w.info.IsDir() && !w.info.ModTime().Before(since) {
			out = append(out, toEntry(w.path, w.info))
		}
		return nil
	})
	if e != nil {
		return nil, e
	}
	sortChanged(out)
	return out, nil
}

func sortChanged(out []Entry) {
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(b.Modified.Compare(a.Modified), strings.Compare(a.Path, b.Path))
	})
}

// Stats counts the notes (outside the trash) and reports free disk space.
func (v *Vault) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	if x := v.ix.current(); x != nil {
		s.Notes = x.Live()
		v.ix.mu.RUnlock()
	} else {
		e := v.walk(ctx, "", true, func(w walkEntry) *Error {
			if !w.info.IsDir() {
				s.Notes++
			}
			return nil
		})
		if e != nil {
			return Stats{}, e
		}
	}
	free, err := v.freeSpace(v.dir)
	if err != nil {
		return Stats{}, newErr(CodeInternal, ReasonStatfs, err)
	}
	s.FreeBytes = free
	return s, nil
}

// welcomeNote is written into an empty vault so that the first assistant
// (and the owner) see what cortex is.
const welcomeNote = `# Welcome

This folder is a cortex vault: plain Markdown notes that your AI assistants
can read, search and write through cortex, a small MCP server you host
yourself.

- Every change an assistant makes is checked against the version it read,
  so nothing is overwritten by accident.
- Deleted notes go to the .trash/ folder; nothing is ever erased.
- Put instructions for assistants (how you like notes named, tagged and
  linked) in AGENTS.md at the top of the vault; they read it first.

You can edit or delete this note.
`

// SeedWelcome writes Welcome.md when the vault holds no notes yet and
// reports whether it did.
func (v *Vault) SeedWelcome(ctx context.Context) (bool, error) {
	empty := true
	e := v.walk(ctx, "", true, func(w walkEntry) *Error {
		if !w.info.IsDir() {
			empty = false
			return errStop
		}
		return nil
	})
	if e != nil {
		return false, e
	}
	if !empty {
		return false, nil
	}
	if _, err := v.Create(ctx, "Welcome.md", welcomeNote); err != nil {
		if ve, ok := err.(*Error); ok && ve.Code == CodeNoteExists {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

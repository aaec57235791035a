package vault

import (
	"context"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"time"
)

// Read returns the note at p as it is on disk now. Nothing is cached, so an
// edit made by another program is always seen.
func (v *Vault) Read(ctx context.Context, p string) (*Note, error) {
	if e := v.checkReadable(p); e != nil {
		return nil, e
	}
	if e := ctxErr(ctx); e != nil {
		return nil, e
	}
	data, fi, parent, e := v.readNote(p)
	if e != nil {
		return nil, e
	}
	n := newNote(p, data, fi)
	n.Conflicts = v.conflictsOf(p, parent)
	return n, nil
}

// newNote builds a Note from bytes read, with its Markdown fields.
func newNote(p string, data []byte, fi fs.FileInfo) *Note {
	n := &Note{
		Path:     p,
		Content:  string(data),
		Version:  versionOf(data),
		Modified: fi.ModTime(),
		Size:     int64(len(data)),
	}
	fillMarkdown(n)
	return n
}

// Instructions returns the owner's instructions file for assistants, or ""
// when there is none.
func (v *Vault) Instructions(ctx context.Context) (string, error) {
	if e := ctxErr(ctx); e != nil {
		return "", e
	}
	data, _, _, e := v.readNote(v.instr)
	if e != nil {
		if e.Code == CodeNotFound {
			return "", nil
		}
		return "", e
	}
	return string(data), nil
}

// conflictCache remembers, per folder, the names of Syncthing conflict
// copies, so that reading a note in a large folder does not list the folder
// every time. An entry is trusted only while the folder's modification time
// is unchanged and older than racyWindow, because a file added within the
// same timestamp tick would not change it.
type conflictCache struct {
	mu   sync.Mutex
	dirs map[string]dirConflicts
}

type dirConflicts struct {
	mod   time.Time
	names []string
}

const (
	racyWindow      = 2 * time.Second
	maxCachedFolder = 1024
)

// conflictsOf lists the conflict copies of note p; parent is the info of
// its folder as seen when the note was read.
func (v *Vault) conflictsOf(p string, parent fs.FileInfo) []string {
	dir, base := path.Split(p)
	key := foldKey(dir)
	c := &v.conflicts
	c.mu.Lock()
	ent, ok := c.dirs[key]
	c.mu.Unlock()
	if !ok || !ent.mod.Equal(parent.ModTime()) || v.now().Sub(parent.ModTime()) < racyWindow {
		names, err := v.conflictNames(path.Clean("./" + dir))
		if err != nil {
			v.log.Debug("vault: folder not listed for conflicts", "err", err)
			return nil
		}
		ent = dirConflicts{mod: parent.ModTime(), names: names}
		c.mu.Lock()
		if c.dirs == nil || len(c.dirs) >= maxCachedFolder {
			c.dirs = make(map[string]dirConflicts)
		}
		c.dirs[key] = ent
		c.mu.Unlock()
	}
	var out []string
	for _, name := range ent.names {
		if conflictOf(name, base) {
			out = append(out, dir+name)
		}
	}
	return out
}

// conflictNames lists the conflict copies in dir, sorted.
func (v *Vault) conflictNames(dir string) ([]string, error) {
	f, err := v.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	for {
		names, err := f.Readdirnames(256)
		for _, n := range names {
			if isConflictCopy(n) {
				out = append(out, n)
			}
		}
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

package vault

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// Read returns the note at p as it is on disk now: the file is read every
// time, so an edit made by another program is always seen.
func (v *Vault) Read(ctx context.Context, p string) (*Note, error) {
	if e := v.checkHome(); e != nil {
		return nil, e
	}
	// What the app may not see is not found, before anything else about
	// the path (a folder, a protected name) is said.
	if e := v.checkSee(ctx, p); e != nil {
		return nil, e
	}
	if e := v.checkReadable(p); e != nil {
		if e.Code == CodeNotANote {
			if fi, err := v.root.Lstat(p); err == nil && fi.IsDir() {
				e = newErr(CodeNotANote, ReasonFolder, nil)
			}
		}
		return nil, e
	}
	if e := ctxErr(ctx); e != nil {
		return nil, e
	}
	p, data, fi, parent, e := v.readNamed(p)
	if e != nil {
		return nil, v.orReplaced(v.hideInPath(accessOf(ctx), p, e))
	}
	n := v.newNote(p, data, fi)
	if e := v.checkContent(ctx, n.Path, n.Frontmatter, n.Content, fi); e != nil {
		return nil, e
	}
	n.Conflicts = v.conflictsOf(p, parent)
	if a := accessOf(ctx); a.scoped && !a.all() {
		n.Conflicts = slices.DeleteFunc(n.Conflicts, func(c string) bool { return !v.visibleNote(a, c) })
	}
	return n, nil
}

// newNote builds a Note from bytes read, with its Markdown fields, which
// come from the cache when the same content was parsed before.
func (v *Vault) newNote(p string, data []byte, fi fs.FileInfo) *Note {
	n := &Note{
		Path:     p,
		Content:  noteString(data),
		Version:  versionOf(data),
		Modified: fi.ModTime(),
		Size:     int64(len(data)),
	}
	if v.meta.fill(n) {
		return n
	}
	fillMarkdown(n)
	v.meta.store(n)
	return n
}

// metaCache keeps the parsed Markdown fields of recently read notes, keyed
// by path and version (a hash of the whole content), so a note read again
// unchanged skips the YAML parser. A changed note has another version, so
// nothing stale is ever served. Callers must not modify the cached maps
// and slices they get in a Note.
type metaCache struct {
	mu sync.Mutex
	m  map[string]noteMeta
}

type noteMeta struct {
	version, title, fmErr string
	fm                    map[string]any
	tags, aliases         []string
}

// maxMetaCache bounds the cache, at about 400 bytes an entry for a note
// with a few frontmatter keys (the bench's); when full, an entry picked at
// random makes room. It is sized for the notes a conversation reads again
// (read, edit, read), not for the vault: a model reading across the vault
// reads each note once, and 8,192 entries held 3.5 MB of a 10k-note
// vault's live heap for no hits, which the memory limit that follows the
// live heap turned into 5 MB of RSS.
const maxMetaCache = 1024

func (c *metaCache) fill(n *Note) bool {
	c.mu.Lock()
	m, ok := c.m[n.Path]
	c.mu.Unlock()
	if !ok || m.version != n.Version {
		return false
	}
	n.Title, n.FrontmatterError, n.Frontmatter, n.Tags, n.Aliases = m.title, m.fmErr, m.fm, m.tags, m.aliases
	return true
}

func (c *metaCache) store(n *Note) {
	// The title and inline tags are slices of the note's text: copied, so
	// that an entry does not keep the whole text alive.
	m := noteMeta{version: n.Version, title: strings.Clone(n.Title), fmErr: n.FrontmatterError, fm: n.Frontmatter,
		tags: cloneStrings(n.Tags), aliases: cloneStrings(n.Aliases)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]noteMeta)
	}
	p := n.Path
	if _, ok := c.m[p]; !ok {
		p = strings.Clone(p)
		if len(c.m) >= maxMetaCache {
			for k := range c.m { // map order is random
				delete(c.m, k)
				break
			}
		}
	}
	c.m[p] = m
}

// cloneStrings copies a list and its strings, keeping nil as nil.
func cloneStrings(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.Clone(s)
	}
	return out
}

// readToScan reads the note at p, in its spelling on disk, for a caller
// that scans its text (links, embeds), after the checks every read makes.
func (v *Vault) readToScan(ctx context.Context, p string) (string, []byte, *Error) {
	if e := v.checkHome(); e != nil {
		return "", nil, e
	}
	if e := v.checkSee(ctx, p); e != nil {
		return "", nil, e
	}
	if e := v.checkReadable(p); e != nil {
		return "", nil, e
	}
	p, data, fi, _, e := v.readNamed(p)
	if e != nil {
		return "", nil, v.hideInPath(accessOf(ctx), p, e)
	}
	if e := v.checkContent(ctx, p, nil, string(data), fi); e != nil {
		return "", nil, e
	}
	return p, data, nil
}

// Instructions returns the owner's instructions file for assistants, or ""
// when there is none, or when the vault folder was replaced (checkHome has
// logged it; every tool answers vault_replaced): the old folder's
// instructions are not the owner's any more.
func (v *Vault) Instructions(ctx context.Context) (string, error) {
	if e := ctxErr(ctx); e != nil {
		return "", e
	}
	if v.checkHome() != nil {
		return "", nil
	}
	// An app is given the instructions file when its scope reaches it, or
	// when it lies at the top of the vault, where the owner keeps what
	// every app should read; never when it is private to an app that may
	// not see private notes.
	a := accessOf(ctx)
	if !strings.Contains(v.instr, "/") {
		a.s.Read = scope.Rules{}
	}
	if !v.pathVisible(a, v.instr) {
		return "", nil
	}
	text, e := v.instructionsText()
	if e != nil {
		return "", e
	}
	if !a.all() && !a.s.Private && isPrivate(nil, text) {
		return "", nil
	}
	return text, nil
}

// instructionsText reads the instructions file, or remembers it.
func (v *Vault) instructionsText() (string, *Error) {
	if text, ok := v.instrMemo.get(v, v.instr); ok {
		return text, nil
	}
	data, fi, e := v.readNoteFile(v.instr)
	if e != nil {
		if e.Code == CodeNotFound {
			v.instrMemo.put(nil, "")
			return "", nil
		}
		return "", e
	}
	text := string(data)
	v.instrMemo.put(fi, text)
	return text, nil
}

// fileMemo remembers one small file's text (the instructions, which every
// MCP request asks for) with the info of the file it was read from, or
// that there was no file. The file is looked at with one Lstat per call;
// the text is trusted while that finds the same file (same inode), with
// the same size and modification time, written longer than racyWindow
// ago, so that a change within the file system's timestamp tick is read
// too. Anything else, a missing file becoming present included, reads it
// again, the checked way. The folders on the way are walked as readNote
// walks them, so a folder swapped for a link is refused as before.
type fileMemo struct {
	mu   sync.Mutex
	set  bool
	fi   fs.FileInfo // nil: there was no file
	text string
}

func (m *fileMemo) get(v *Vault, p string) (string, bool) {
	m.mu.Lock()
	set, was, text := m.set, m.fi, m.text
	m.mu.Unlock()
	if !set {
		return "", false
	}
	r, _, release, e := v.openDir(path.Dir(p))
	if e != nil {
		return "", false
	}
	defer release()
	fi, err := r.Lstat(path.Base(p))
	if was == nil {
		return "", err != nil && errors.Is(err, fs.ErrNotExist)
	}
	if err != nil || !os.SameFile(fi, was) || fi.Size() != was.Size() || !fi.ModTime().Equal(was.ModTime()) ||
		v.now().Sub(fi.ModTime()) < racyWindow {
		return "", false
	}
	return text, true
}

func (m *fileMemo) put(fi fs.FileInfo, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set, m.fi, m.text = true, fi, text
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

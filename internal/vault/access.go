package vault

import (
	"context"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// CodeOutsideScope: the app may not change this note; its scope is named,
// never a note it cannot see.
const CodeOutsideScope = "outside_scope"

// access is what one call may see and change: the scope its context
// carries (scope.NewContext, set for every app and token at the edge). The
// owner's own calls (the console, the admin commands) carry none and see
// everything, private notes included.
type access struct {
	s      scope.Scope
	scoped bool
}

func accessOf(ctx context.Context) access {
	if ctx.Value(ownerKey{}) != nil {
		return access{}
	}
	s, ok := scope.FromContext(ctx)
	return access{s: s, scoped: ok}
}

type ownerKey struct{}

// asOwner is ctx for the vault's own follow-up work on an app's behalf
// that must reach every note to keep the vault consistent (rewriting the
// links of a moved note in notes the app cannot see). What it finds there
// is reported to the app only as counts.
func asOwner(ctx context.Context) context.Context {
	return context.WithValue(ctx, ownerKey{}, true)
}

// visibleNote reports whether the call may see the note at p: by its path
// and, unless it may see private notes, by its frontmatter.
func (v *Vault) visibleNote(a access, p string) bool {
	return v.visibleAt(a, p, nil)
}

// visibleAt is visibleNote for a note whose Lstat found fi, or through
// the root when fi is nil.
func (v *Vault) visibleAt(a access, p string, fi fs.FileInfo) bool {
	if a.all() {
		return true
	}
	if !v.pathVisible(a, p) {
		return false
	}
	if name := path.Base(p); a.s.Private || !isNoteName(name) && !isConflictCopy(name) {
		return true
	}
	if fi == nil {
		var err error
		if fi, err = v.root.Lstat(p); err != nil {
			return false
		}
	}
	return !v.notePrivate(p, fi)
}

// all reports whether the call sees the whole vault with its private
// notes, so that no note needs looking at.
func (a access) all() bool { return !a.scoped || a.s.Whole() && a.s.Private }

// ruled is the path the scope rules apply to: a note in the trash is
// judged by where it was, so that deleting a hidden note does not show it.
func ruled(p string) string {
	if rest, ok := strings.CutPrefix(p, trashDir+"/"); ok && inTrash(p) {
		return rest
	}
	return p
}

// twin is the other path a file at p is judged by besides ruled(p), "" for
// none: the note a Syncthing conflict copy copies, and the name a note had
// before the trash gave it a " (2)" suffix. A pattern naming one note
// ("!Work/Secret.md", --private Diary.md) covers both, so that neither a
// second delete nor a sync conflict shows the note under another name.
func twin(p string) string {
	r := ruled(p)
	dir, name := path.Split(r)
	orig := name
	if i := strings.Index(orig, ".sync-conflict-"); i > 0 && isConflictCopy(orig) {
		orig = orig[:i] + path.Ext(orig)
	}
	if r != p {
		orig = trashSuffix.ReplaceAllString(orig, "$1$2")
	}
	if orig == name {
		return ""
	}
	return dir + orig
}

// trashSuffix is the " (n)", " (version)" or " (version n)" that Delete
// puts before the extension (trashName).
var trashSuffix = regexp.MustCompile(`^(.+) \((?:[0-9]+|[0-9a-f]{12}(?: [0-9]+)?)\)(\.[^.]*)?$`)

// pathVisible reports whether the note, attachment or folder p may exist
// for the call as far as its path tells: inside the scope's read patterns
// and, unless the scope includes private notes, outside --private. A note
// private by its frontmatter is decided by noteVisible.
func (v *Vault) pathVisible(a access, p string) bool {
	if !a.scoped {
		return true
	}
	r := ruled(p)
	if r == trashDir {
		return true
	}
	seen := func(q string) bool { return a.s.CanRead(q) && (a.s.Private || !v.private.Match(q)) }
	if t := twin(p); t != "" && !seen(t) {
		return false
	}
	return seen(r)
}

// folderVisible reports whether the folder dir may hold something the
// call can see (a folder the scope does not reach does not exist for it).
func (v *Vault) folderVisible(a access, dir string) bool {
	if !a.scoped || dir == "" {
		return true
	}
	r := ruled(dir)
	if r == trashDir {
		return true
	}
	if !a.s.Private && v.private.Match(r) {
		return false
	}
	return a.s.MayHold(r)
}

// lstatSeenDir is lstatDir for the call: a path through a note the call
// may not see answers not found, as a path through nothing does, rather
// than that a file is in the way.
func (v *Vault) lstatSeenDir(a access, dir string) (fs.FileInfo, *Error) {
	fi, e := v.lstatDir(dir)
	if e != nil {
		return nil, v.hideFileInPath(a, dir, e)
	}
	return fi, nil
}

// hideInPath turns "a file is in the way" for the path p into not found
// when that file is a note the call may not see: reading below a private
// note must answer as reading below nothing does.
func (v *Vault) hideInPath(a access, p string, e *Error) *Error {
	return v.hideFileInPath(a, path.Dir(p), e)
}

// hideFileInPath is hideInPath for the folder dir and what lies below it:
// the file in the way is dir or one of the folders above it.
func (v *Vault) hideFileInPath(a access, dir string, e *Error) *Error {
	if !isReason(e, CodeNotFound, ReasonFileInPath) || a.all() {
		return e
	}
	for q := dir; q != "." && q != ""; q = path.Dir(q) {
		if f, err := v.root.Lstat(q); err == nil && !f.IsDir() {
			if !v.visibleNote(a, q) {
				return errHidden()
			}
			break
		}
	}
	return e
}

// writable reports whether the call may change the note p.
func (v *Vault) writable(a access, p string) bool {
	if t := twin(p); a.scoped && t != "" && !a.s.CanWrite(t) {
		return false
	}
	return !a.scoped || v.pathVisible(a, p) && a.s.CanWrite(ruled(p))
}

// errHidden is what a call gets for a note it may not see: exactly the
// answer for a note that does not exist.
func errHidden() *Error { return newErr(CodeNotFound, reasonNone, nil) }

// errOutside refuses a change outside the call's write scope, naming the
// scope the app has and nothing else.
func errOutside(a access) *Error {
	return fail(&Error{Code: CodeOutsideScope, Reason: ReasonWrite, Subject: a.s.Describe()})
}

// checkSee refuses, as not found, a note path the call may not see. Like
// checkChange and checkCreate it passes over a path that is not valid, so
// that the caller's own checks say what is wrong with it.
func (v *Vault) checkSee(ctx context.Context, p string) *Error {
	if checkPath(p) == nil && !v.pathVisible(accessOf(ctx), p) {
		return errHidden()
	}
	return nil
}

// checkChange refuses a change of the existing note p the call may not
// make: not found when it cannot see the note, outside_scope when it can
// see it but not change it.
func (v *Vault) checkChange(ctx context.Context, p string) *Error {
	a := accessOf(ctx)
	switch {
	case checkPath(p) != nil:
	case !v.pathVisible(a, p):
		return errHidden()
	case !v.writable(a, p):
		return errOutside(a)
	}
	return nil
}

// checkCreate refuses a new note at p outside the call's write scope,
// before anything about the path is looked at, so that the answer says
// nothing about what lies there.
func (v *Vault) checkCreate(ctx context.Context, p string) *Error {
	if a := accessOf(ctx); checkPath(p) == nil && !v.writable(a, p) {
		return errOutside(a)
	}
	return nil
}

// privateText reports whether a note's text says it is private, from its
// frontmatter block, as isPrivate decides it from the parsed YAML: the
// index decides with it, and search must hide what a read hides. The
// usual line is found without parsing, cheap enough for every note the
// index reads; the YAML is parsed only for a block that names private
// some other way (indented, tagged !!bool, a flow mapping, the value on
// the next line, a quoted key with escapes).
func privateText(content string) bool {
	block, ok := frontmatterBlock(content)
	switch {
	case !ok:
		return false
	case privateLine.MatchString(block):
		return true
	case !strings.Contains(block, "private") && !strings.Contains(block, `\`):
		// Only a double-quoted key can spell private without the word
		// in it, with an escape ("\x70rivate") or an escaped line break.
		return false
	}
	fm, _ := markdown.ParseFrontmatter(content)
	return privateValue(fm.Map)
}

// privateLine finds "private: true" (or yes, on) at the start of a line of
// a frontmatter block, for one that does not parse: a note that says it is
// private is taken at its word even when its YAML is broken. A line may end
// in "\r": the regexp's $ stops only before "\n", and a note saved on
// Windows must be as private as the same note saved elsewhere.
var privateLine = regexp.MustCompile(`(?im)^["']?private["']?[ \t]*:[ \t]*["']?(true|yes|on)["']?[ \t]*(#.*)?\r?$`)

// isPrivate reports whether a note's frontmatter marks it private: the
// property private set to true (or to "true", "yes", "on", as people
// type it).
func isPrivate(fm map[string]any, content string) bool {
	if privateValue(fm) {
		return true
	}
	// A note whose YAML does not parse is taken at its word.
	block, ok := frontmatterBlock(content)
	return ok && privateLine.MatchString(block)
}

// privateValue reports whether parsed frontmatter sets private to true.
func privateValue(fm map[string]any) bool {
	switch x := fm["private"].(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "on":
			return true
		}
	}
	return false
}

// frontmatterBlock is the text of a leading frontmatter block, or of a
// block that opens and never closes.
func frontmatterBlock(content string) (string, bool) {
	// Notepad and some Windows editors start a file with a byte order
	// mark. Whether an editor then reads the block as frontmatter varies;
	// a note that says it is private is taken at its word.
	content = strings.TrimPrefix(content, "\ufeff")
	rest, ok := strings.CutPrefix(content, "---")
	if !ok {
		return "", false
	}
	if i := strings.Index(rest, "\n---"); i >= 0 {
		return rest[:i], true
	}
	return rest, true
}

// privMarks remembers which notes are private by their frontmatter, keyed
// by path as spelled on disk and checked against size and modification
// time, so that listing a folder for an app that may not see private notes
// reads each note's head once, not on every call. A note changed in place
// with the same size and time within racyWindow is read again (see
// notePrivate). The index answers for every note it holds as it holds it
// (search.Doc.Private: the index reads each note whole anyway); these
// marks hold only what it does not, a note read since it changed or one
// it does not hold, so that a vault's worth of marks is not kept twice.
type privMarks struct {
	mu sync.Mutex
	m  map[string]privMark
	// private counts the marks that say private; lost is set once marks
	// were dropped to bound memory, after which no count is trusted.
	private int
	lost    bool
}

// nonePrivate reports that no note is known to be private by its
// frontmatter, neither in the index x nor in the marks, so that a search
// need not look at each candidate.
func (v *Vault) nonePrivate(x *search.Index) bool {
	m := &v.privs
	m.mu.Lock()
	defer m.mu.Unlock()
	return x.Private() == 0 && m.private == 0 && !m.lost
}

type privMark struct {
	size, mod int64
	private   bool
}

// maxPrivMarks bounds the memory of the marks (about 100 bytes each).
const maxPrivMarks = 200_000

// privateHead is how much of a note is read to find its frontmatter; a
// frontmatter block longer than this is read whole.
const privateHead = 4096

// notePrivate reports whether the note p, whose info is fi, is private by
// its frontmatter. A note that cannot be read counts as private: what
// cannot be checked is not shown.
func (v *Vault) notePrivate(p string, fi fs.FileInfo) bool {
	return v.privateAt(p, fi.Size(), fi.ModTime().UnixNano())
}

// privateAt is notePrivate for a note of the given size and modification
// time (Unix nanoseconds). The caller must not hold the index's lock.
func (v *Vault) privateAt(p string, size, mod int64) bool {
	if v.now().Sub(time.Unix(0, mod)) >= racyWindow {
		// A mark is of a reading since the index's, when they differ.
		v.privs.mu.Lock()
		m, ok := v.privs.m[p]
		v.privs.mu.Unlock()
		if ok && m.size == size && m.mod == mod {
			return m.private
		}
		if priv, ok := v.indexedPrivate(p, size, mod); ok {
			return priv
		}
	}
	priv, ok := v.readPrivate(p)
	if !ok {
		return true
	}
	v.markPrivate(p, size, mod, priv)
	return priv
}

// indexedPrivate is what the index says of the note p being private, when
// it holds p at this size and modification time. The caller must not hold
// the index's lock.
func (v *Vault) indexedPrivate(p string, size, mod int64) (private, ok bool) {
	x := v.ix.current()
	if x == nil {
		return false, false
	}
	d, ok := x.Lookup(p)
	v.ix.mu.RUnlock()
	if !ok || d.Size != size || d.Mod != mod {
		return false, false
	}
	return d.Private, true
}

// markPrivate records what a note's frontmatter says, for a note read
// whole anyway (a read, a write), unless the index holds the same. The
// caller must not hold the index's lock.
func (v *Vault) markPrivate(p string, size, mod int64, priv bool) {
	indexed, ok := v.indexedPrivate(p, size, mod)
	m := &v.privs
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok && indexed == priv {
		m.drop(p) // the index has caught up
		return
	}
	old, had := m.m[p]
	if m.m == nil || len(m.m) >= maxPrivMarks {
		m.lost = m.m != nil
		m.m, m.private, had = make(map[string]privMark), 0, false
	}
	if !had {
		p = strings.Clone(p)
	}
	if had && old.private {
		m.private--
	}
	if priv {
		m.private++
	}
	m.m[p] = privMark{size: size, mod: mod, private: priv}
}

// forgetPrivate drops the mark of p, or every mark when p is "", once the
// index holds a newer reading of the note (or of every note), so that a
// mark of an older version never hides a note.
func (v *Vault) forgetPrivate(p string) {
	m := &v.privs
	m.mu.Lock()
	defer m.mu.Unlock()
	if p == "" {
		m.m, m.private = nil, 0
		return
	}
	m.drop(p)
}

// drop removes the mark of p, if any; m.mu is held.
func (m *privMarks) drop(p string) {
	if old, had := m.m[p]; had {
		if old.private {
			m.private--
		}
		delete(m.m, p)
	}
}

// readPrivate reads the head of the note p to decide whether it is private.
func (v *Vault) readPrivate(p string) (private, ok bool) {
	r, _, release, e := v.openDir(path.Dir(p))
	if e != nil {
		return false, false
	}
	defer release()
	f, err := r.Open(path.Base(p))
	if err != nil {
		return false, false
	}
	defer f.Close()
	head := make([]byte, privateHead)
	n, err := io.ReadFull(f, head)
	head = head[:n]
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, false
	}
	if !strings.HasPrefix(string(head), "---") {
		return false, true
	}
	if _, closed := frontmatterEnd(head); !closed && n == privateHead {
		rest, err := io.ReadAll(io.LimitReader(f, v.maxNote))
		if err != nil {
			return false, false
		}
		head = append(head, rest...)
	}
	fm, _ := markdown.ParseFrontmatter(string(head))
	return isPrivate(fm.Map, string(head)), true
}

// frontmatterEnd finds the line closing a frontmatter block in head.
func frontmatterEnd(head []byte) (int, bool) {
	i := strings.Index(string(head[3:]), "\n---")
	return i, i >= 0
}

// checkContent refuses, as not found, a note read whole whose frontmatter
// makes it private to a call that may not see private notes; it also
// remembers what the note says for later listings. fm is the parsed
// frontmatter when the caller has it (nil: parsed here when needed).
func (v *Vault) checkContent(ctx context.Context, p string, fm map[string]any, content string, fi fs.FileInfo) *Error {
	a := accessOf(ctx)
	if a.all() {
		return nil
	}
	if fm == nil && strings.HasPrefix(content, "---") {
		f, _ := markdown.ParseFrontmatter(content)
		fm = f.Map
	}
	priv := isPrivate(fm, content)
	if fi != nil {
		v.markPrivate(p, fi.Size(), fi.ModTime().UnixNano(), priv)
	}
	if priv && !a.s.Private {
		return errHidden()
	}
	// The path spelled on disk may differ from the one asked for.
	if !v.pathVisible(a, p) {
		return errHidden()
	}
	return nil
}

// hideExisting turns note_exists for a new path, or for a name that
// differs from it only in case or Unicode form, or "a file is in the way"
// for a path below a note, into outside_scope when that note is one the
// call may not see (private by its frontmatter, or a link to a note it
// cannot check): the answer must not tell that a hidden note is there,
// nor its name.
func (v *Vault) hideExisting(ctx context.Context, p string, e *Error) *Error {
	a := accessOf(ctx)
	if a.all() || a.s.Private {
		return e
	}
	switch {
	case e.Code == CodeNoteExists:
		there := p
		if e.Reason == ReasonCaseTwin {
			there = path.Join(path.Dir(p), e.Subject)
		}
		// A link is judged as Lookup judges it: one whose note cannot
		// be checked is hidden.
		if fi, err := v.root.Lstat(there); err == nil && !fi.IsDir() && !v.visibleAt(a, there, fi) {
			return errOutside(a)
		}
	case isReason(e, CodeInvalidPath, ReasonFileInNewPath):
		for q := path.Dir(p); q != "." && q != ""; q = path.Dir(q) {
			if fi, err := v.root.Lstat(q); err == nil && !fi.IsDir() {
				if !v.visibleNote(a, q) {
					return errOutside(a)
				}
				break
			}
		}
	}
	return e
}

// visibleNotes keeps the paths the call may see (paths itself when it sees
// everything).
func (v *Vault) visibleNotes(a access, paths []string) []string {
	if a.all() {
		return paths
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if v.visibleNote(a, p) {
			out = append(out, p)
		}
	}
	return out
}

package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// maxTrashSuffix bounds the " (n)" suffixes tried for a trashed note.
const maxTrashSuffix = 1000

// Delete moves the note to .trash/ under the same path, adding " (2)",
// " (3)", ... before .md when that name is taken, or for a call that may
// not see everything there, a suffix of the note's version (see
// trashName). No byte is removed, nothing in .trash/ is replaced.
// WriteResult.Path is where the note went.
func (v *Vault) Delete(ctx context.Context, p, version string) (WriteResult, error) {
	if e := v.checkChange(ctx, p); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkRemovable(p); e != nil {
		return WriteResult{}, e
	}
	if inTrash(p) {
		return WriteResult{}, newErr(CodeProtectedPath, ReasonAlreadyInTrash, nil)
	}
	if version == "" {
		return WriteResult{}, newErr(CodeVersionRequired, reasonNone, nil)
	}
	if e := v.checkFree(); e != nil {
		return WriteResult{}, e
	}
	n, unlock, e := v.lockNote(ctx, p, version)
	if e != nil {
		return WriteResult{}, e
	}
	defer unlock()
	p, cur := n.path, n.version
	ids, e := v.keep(ctx, Kept{Path: p, Content: n.data, Kind: KindDelete, Gone: true})
	if e != nil {
		return WriteResult{}, e
	}
	done := false
	defer func() {
		if !done {
			v.unkeep(ctx, ids)
		}
	}()
	a := accessOf(ctx)
	for i := 1; i <= maxTrashSuffix; i++ {
		target := v.adoptSpelling(trashName(a, p, cur, i))
		e := v.checkNewPath(target, "")
		if e != nil && e.Code == CodeNoteExists {
			continue
		}
		if isReason(e, CodeInvalidPath, ReasonFileInNewPath) {
			return WriteResult{}, newErr(CodeInvalidPath, ReasonTrashBlocked, nil)
		}
		if e != nil {
			return WriteResult{}, e
		}
		e = v.relink(p, target, n.fi)
		if e != nil && e.Code == CodeNoteExists {
			continue
		}
		if e != nil {
			return WriteResult{}, e
		}
		v.indexRemove(p)
		done = true
		return WriteResult{Path: target, OldVersion: cur, Version: cur}, nil
	}
	return WriteResult{}, newErr(CodeNoteExists, ReasonTrashFull, nil)
}

// trashName is the n-th trash path to try for the note p at version,
// deleted by a call with access a: p itself, then with a " (n)" suffix
// from n = 2 on. The first free one is taken, and which one that is must
// tell a call nothing about notes in the trash it may not see. So a call
// that may not see every note there gets names that do not depend on
// them: p itself only when it sees private notes (the trash name is ruled
// by the note's own path, which it sees), else, and after that, p with
// its version (" (v)", then " (v 2)"...), a name no other note has unless
// it was trashed from the same path with the same text.
func trashName(a access, p, version string, n int) string {
	ext := path.Ext(p)
	base := strings.TrimSuffix(p, ext)
	switch {
	case n == 1 && (a.all() || a.s.Private):
	case a.all():
		p = fmt.Sprintf("%s (%d)%s", base, n, ext)
	default:
		if a.s.Private {
			n-- // after p itself
		}
		if n == 1 {
			p = fmt.Sprintf("%s (%s)%s", base, version, ext)
		} else {
			p = fmt.Sprintf("%s (%s %d)%s", base, version, n, ext)
		}
	}
	return trashDir + "/" + p
}

// TrashOrigin is where the note at p in .trash/ was before Delete put it
// there: its path without .trash/ and without the suffix trashName adds.
func TrashOrigin(p string) string {
	rest := strings.TrimPrefix(p, trashDir+"/")
	dir, name := path.Split(rest)
	return dir + trashSuffix.ReplaceAllString(name, "$1$2")
}

// relink moves the file at from (whose info, read under the lock, is fi) to
// the new path to without ever replacing anything at to (moveNoReplace).
// The file keeps its inode, mode and modification time.
func (v *Vault) relink(from, to string, fi fs.FileInfo) *Error {
	if e := v.checkHome(); e != nil {
		return e
	}
	cur, err := v.root.Lstat(from)
	if err != nil {
		return fsErr("lstat", err)
	}
	if !sameState(fi, cur) {
		return v.changedErr(from)
	}
	if e := v.mkdirs(path.Dir(to)); e != nil {
		return e
	}
	if e := v.moveNoReplace(from, to); e != nil {
		if e.Code == CodeNoteExists && foldKey(from) == foldKey(to) {
			// Only the case differs, on a file system that ignores case:
			// to is from itself, and a rename changes the spelling.
			if tfi, err := v.root.Lstat(to); err == nil && os.SameFile(tfi, cur) {
				if err := v.root.Rename(from, to); err != nil {
					return fsErr("rename", err)
				}
				v.syncDir(path.Dir(to))
				return v.checkHome()
			}
		}
		return e
	}
	v.syncDir(path.Dir(to))
	if path.Dir(from) != path.Dir(to) {
		v.syncDir(path.Dir(from))
	}
	return v.checkHome()
}

// Move renames a note; to must not exist. Moving a note out of .trash/
// restores it. With updateLinks the links of other notes that resolved to
// from are rewritten to to, each as its own versioned write. Notes with a
// link that no longer resolves to the note (not rewritten, or the rewrite
// failed) are reported in Linking; a link by name that still finds the
// note in its new folder is not.
func (v *Vault) Move(ctx context.Context, from, to, version string, updateLinks bool) (MoveResult, error) {
	if e := v.checkChange(ctx, from); e != nil {
		return MoveResult{}, e
	}
	if e := v.checkRemovable(from); e != nil {
		return MoveResult{}, e
	}
	if e := v.checkCreate(ctx, to); e != nil {
		return MoveResult{}, e
	}
	// checkCreatable would say that notes in .trash/ cannot be changed,
	// which does not tell a caller that meant to throw the note away how.
	if inTrash(to) && inTrash(from) {
		return MoveResult{}, newErr(CodeProtectedPath, ReasonMoveWithinTrash, nil)
	} else if inTrash(to) {
		return MoveResult{}, newErr(CodeProtectedPath, ReasonMoveIntoTrash, nil)
	}
	if e := v.checkCreatable(to); e != nil {
		return MoveResult{}, e
	}
	if from == to {
		return MoveResult{}, newErr(CodeInvalidArgument, ReasonSamePath, nil)
	}
	if version == "" {
		return MoveResult{}, newErr(CodeVersionRequired, reasonNone, nil)
	}
	if e := v.checkFree(); e != nil {
		return MoveResult{}, e
	}
	if from = v.existingSpelling(from); from == to {
		return MoveResult{}, newErr(CodeInvalidArgument, ReasonSamePath, nil)
	}
	// Links are resolved against the notes as they are before the move, so
	// that links to from still resolve to it.
	linking, paths, before, e := v.notesLinkingTo(asOwner(ctx), from)
	if e != nil {
		return MoveResult{}, e
	}
	res, e := v.moveLocked(ctx, from, to, version)
	if e != nil {
		return MoveResult{}, e
	}
	after := markdown.NewResolver(append(slices.DeleteFunc(paths, func(p string) bool { return p == from }), to))
	res.Linking = []string{}
	a := accessOf(ctx)
	for _, src := range linking {
		was := src
		if src == from {
			src = to
		}
		// A note the app cannot see is kept consistent all the same, and
		// reported only as a count.
		hidden := !v.visibleNote(a, src)
		if updateLinks {
			wctx := ctx
			if hidden {
				wctx = asOwner(ctx)
			}
			wr, e := v.rewriteLinks(wctx, src, from, to, before)
			if e == nil {
				switch {
				case wr.Version == wr.OldVersion:
				case hidden:
					res.HiddenRewritten = append(res.HiddenRewritten, wr)
				default:
					res.Rewritten = append(res.Rewritten, wr)
				}
				continue
			}
			v.log.Warn("vault: links not rewritten after move", "note", src, "err", e)
		}
		if v.linksBroken(src, was, from, to, before, after) {
			if hidden {
				res.HiddenLinking++
			} else {
				res.Linking = append(res.Linking, src)
			}
		}
	}
	return res, nil
}

// linksBroken reports whether the note src (named was before the move of
// from to to) has a link that resolved to from before and does not
// resolve to to now. A link by name alone ([[Plan]]) usually still does.
func (v *Vault) linksBroken(src, was, from, to string, before, after *markdown.Resolver) bool {
	data, _, e := v.readNoteFile(src)
	if e != nil {
		return false // gone meanwhile: it links to nothing
	}
	for _, l := range markdown.Links(string(data)) {
		if l.IsNote() && before.Resolve(was, l) == from && after.Resolve(src, l) != to {
			return true
		}
	}
	return false
}

func (v *Vault) moveLocked(ctx context.Context, from, to, version string) (MoveResult, *Error) {
	unlock, e := v.locks.lock(ctx, from, to)
	if e != nil {
		return MoveResult{}, e
	}
	defer unlock()
	data, fi, e := v.readNoteFile(from)
	if e != nil {
		return MoveResult{}, v.hideInPath(accessOf(ctx), from, e)
	}
	if e := v.checkContent(ctx, from, nil, string(data), fi); e != nil {
		return MoveResult{}, e
	}
	cur := versionOf(data)
	if version != cur {
		return MoveResult{}, versionMismatch(version, cur)
	}
	// On a file system that ignores case or normalisation, to may name from
	// itself; relink then renames it to the new spelling.
	if e := v.checkNewPath(to, from); e != nil && !(e.Code == CodeNoteExists && v.isFile(to, fi)) {
		return MoveResult{}, v.hideExisting(ctx, to, e)
	}
	if e := v.checkPortable(to); e != nil {
		return MoveResult{}, e
	}
	var kept []Kept
	if !inTrash(from) {
		kept = append(kept, Kept{Path: from, Content: data, Kind: KindMove, Gone: true})
	}
	if !inTrash(to) {
		kept = append(kept, Kept{Path: to, Content: data, Kind: KindMove})
	}
	ids, e := v.keep(ctx, kept...)
	if e != nil {
		return MoveResult{}, e
	}
	if e := v.relink(from, to, fi); e != nil {
		v.unkeep(ctx, ids)
		return MoveResult{}, e
	}
	v.indexRemove(from)
	v.indexRefresh(to)
	return MoveResult{From: from, To: to, Version: cur}, nil
}

// isFile reports whether p names the file described by fi.
func (v *Vault) isFile(p string, fi fs.FileInfo) bool {
	cur, err := v.root.Lstat(p)
	return err == nil && os.SameFile(cur, fi)
}

// rewriteLinks points the links of note src at to instead of from, as a
// versioned write under src's lock.
func (v *Vault) rewriteLinks(ctx context.Context, src, from, to string, r *markdown.Resolver) (WriteResult, *Error) {
	source := src
	if src == to {
		source = from
	}
	wr, err := v.modify(ctx, src, "", false, nil, func(cur string) (string, *Error) {
		next, _ := markdown.RewriteLinks(cur, source, from, to, r)
		return next, nil
	})
	if err != nil {
		return WriteResult{}, err.(*Error)
	}
	return wr, nil
}

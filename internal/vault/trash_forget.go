package vault

import (
	"context"
	"path"
)

// RemoveFromTrash deletes the note at p, which must be in .trash/, for
// good: the one way cortex removes a note's bytes from the vault, for the
// owner alone (the tools never call it). version guards it like every
// change. The content is kept in the history first, as for a delete, so
// it can still be brought back for the history's retention.
func (v *Vault) RemoveFromTrash(ctx context.Context, p, version string) error {
	if !inTrash(p) {
		return newErr(CodeProtectedPath, ReasonForgetOutsideTrash, nil)
	}
	if e := v.checkReadable(p); e != nil {
		return e
	}
	if version == "" {
		return newErr(CodeVersionRequired, reasonNone, nil)
	}
	if e := v.checkHome(); e != nil {
		return e
	}
	n, unlock, e := v.lockNote(ctx, p, version)
	if e != nil {
		return e
	}
	defer unlock()
	p = n.path
	ids, e := v.keep(ctx, Kept{Path: p, Content: n.data, Kind: KindDelete, Gone: true})
	if e != nil {
		return e
	}
	if err := v.root.Remove(p); err != nil {
		v.unkeep(ctx, ids)
		return fsErr("remove from trash", err)
	}
	v.syncDir(path.Dir(p))
	return nil
}

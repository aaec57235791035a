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
		return newErr(CodeProtectedPath, "Only notes in .trash/ can be deleted for good; delete the note first.", nil)
	}
	if e := v.checkReadable(p); e != nil {
		return e
	}
	if version == "" {
		return newErr(CodeVersionRequired, "", nil)
	}
	if e := v.checkHome(); e != nil {
		return e
	}
	unlock, e := v.locks.lock(ctx, p)
	if e != nil {
		return e
	}
	defer unlock()
	p, data, _, _, e := v.readNamed(p)
	if e != nil {
		return e
	}
	if cur := versionOf(data); cur != version {
		return errVersion(cur)
	}
	ids, e := v.keep(ctx, Kept{Path: p, Content: data, Kind: KindDelete, Gone: true})
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

package vault

import (
	"context"
	"time"
)

// EarlierNote builds the Note of an earlier version of the note at p, its
// content as the history kept it, for a call that asked to read the past.
// The call's scope rules it as it rules the note today: a path the call
// may not see is not found, and a version marked private is hidden from
// an app whose scope leaves private notes out, even when the note today
// is not private. The vault reads nothing from disk here.
func (v *Vault) EarlierNote(ctx context.Context, p, content string, kept time.Time) (*Note, error) {
	if e := v.checkSee(ctx, p); e != nil {
		return nil, e
	}
	if e := v.checkContent(ctx, p, nil, content, nil); e != nil {
		return nil, e
	}
	n := &Note{Path: p, Content: content, Version: versionOf([]byte(content)), Modified: kept, Size: int64(len(content))}
	fillMarkdown(n)
	return n, nil
}

// SeesVersion reports whether the call may see a version of a note kept
// at p with content, as EarlierNote would let it read that version: a
// version marked private, or kept at a path the call may not see, is not
// for it, not even to be listed.
func (v *Vault) SeesVersion(ctx context.Context, p, content string) bool {
	return v.checkSee(ctx, p) == nil && v.checkContent(ctx, p, nil, content, nil) == nil
}

// SeesEveryVersion reports whether the call sees every version of every
// note (the owner, or a whole-vault scope with private notes), so that a
// listing need not read their texts to rule them.
func (v *Vault) SeesEveryVersion(ctx context.Context) bool {
	return accessOf(ctx).all()
}

package vault

import (
	"context"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Links reports the links of the note at p (Outgoing, with Target "" for
// those that resolve to no note, which are also in Unresolved) and the
// links of other notes that resolve to it (Backlinks). Links to
// attachments such as images are left out. Notes in the trash are not
// searched for backlinks.
func (v *Vault) Links(ctx context.Context, p string) (*Links, error) {
	if e := v.checkReadable(p); e != nil {
		return nil, e
	}
	data, _, _, e := v.readNote(p)
	if e != nil {
		return nil, e
	}
	paths, e := v.notePaths(ctx)
	if e != nil {
		return nil, e
	}
	r := markdown.NewResolver(append(paths, p))
	out := &Links{Outgoing: []Link{}, Backlinks: []Link{}, Unresolved: []Link{}}
	for _, l := range markdown.Links(string(data)) {
		if !l.IsNote() {
			continue
		}
		link := Link{Source: p, Target: r.Resolve(p, l), Raw: l.Target, Line: l.Line}
		out.Outgoing = append(out.Outgoing, link)
		if link.Target == "" {
			out.Unresolved = append(out.Unresolved, link)
		}
	}
	e = v.scanNotes(ctx, func(w walkEntry, content []byte) *Error {
		for _, l := range markdown.Links(string(content)) {
			if l.IsNote() && r.Resolve(w.path, l) == p {
				out.Backlinks = append(out.Backlinks, Link{Source: w.path, Target: p, Raw: l.Target, Line: l.Line})
			}
		}
		return nil
	})
	if e != nil {
		return nil, e
	}
	return out, nil
}

// notesLinkingTo lists the notes with a link that resolves to target, and
// the resolver used, built from the notes as they are now.
func (v *Vault) notesLinkingTo(ctx context.Context, target string) ([]string, *markdown.Resolver, *Error) {
	paths, e := v.notePaths(ctx)
	if e != nil {
		return nil, nil, e
	}
	r := markdown.NewResolver(append(paths, target))
	var out []string
	e = v.scanNotes(ctx, func(w walkEntry, content []byte) *Error {
		for _, l := range markdown.Links(string(content)) {
			if l.IsNote() && r.Resolve(w.path, l) == target {
				out = append(out, w.path)
				break
			}
		}
		return nil
	})
	if e != nil {
		return nil, nil, e
	}
	return out, r, nil
}

// notePaths lists every note outside the trash.
func (v *Vault) notePaths(ctx context.Context) ([]string, *Error) {
	var paths []string
	e := v.walk(ctx, "", true, func(w walkEntry) *Error {
		if !w.info.IsDir() {
			paths = append(paths, w.path)
		}
		return nil
	})
	return paths, e
}

// scanNotes calls fn with the content of every note outside the trash.
// Notes that vanish or are too large are skipped.
func (v *Vault) scanNotes(ctx context.Context, fn func(walkEntry, []byte) *Error) *Error {
	return v.scanFolder(ctx, "", fn)
}

func (v *Vault) scanFolder(ctx context.Context, folder string, fn func(walkEntry, []byte) *Error) *Error {
	return v.walk(ctx, folder, true, func(w walkEntry) *Error {
		if w.info.IsDir() || w.info.Size() > v.maxNote {
			return nil
		}
		if e := ctxErr(ctx); e != nil {
			return e
		}
		data, _, e := v.readIn(w.dir, w.name, w.info)
		if e != nil {
			return nil
		}
		return fn(w, data)
	})
}

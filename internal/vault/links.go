package vault

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// Links reports the links of the note at p (Outgoing, with Target "" for
// those that resolve to no note, which are also in Unresolved) and the
// links of other notes that resolve to it (Backlinks), ordered by source
// and line. Links to attachments such as images are left out. Notes in the
// trash are not searched for backlinks. The note itself is read as it is
// now; with the index built, the other notes come from it.
func (v *Vault) Links(ctx context.Context, p string) (*Links, error) {
	p, data, e := v.readToScan(ctx, p)
	if e != nil {
		return nil, e
	}
	out := &Links{Outgoing: []Link{}, Backlinks: []Link{}, Unresolved: []Link{}}
	links := markdown.Links(string(data))
	if x := v.ix.current(); x != nil {
		a := accessOf(ctx)
		for _, l := range links {
			if !l.IsNote() {
				continue
			}
			// A link to a note the call may not see resolves as if that
			// note were not there.
			r := markdown.NewResolver(append(v.visibleNotes(a, x.KeyPaths(markdown.LinkKeys(p, l))), p))
			out.addOutgoing(p, l, r.Resolve(p, l))
		}
		// Resolved among the notes the call may see, as its outgoing links
		// are: a hidden note that would win the resolution must not drop
		// the backlink.
		out.Backlinks = backlinks(x, p, func(ps []string) []string { return v.visibleNotes(a, ps) })
		v.ix.mu.RUnlock()
		if !a.all() {
			out.Backlinks = slices.DeleteFunc(out.Backlinks, func(l Link) bool { return !v.visibleNote(a, l.Source) })
		}
		return out, nil
	}
	paths, e := v.notePaths(ctx)
	if e != nil {
		return nil, e
	}
	r := markdown.NewResolver(append(paths, p))
	for _, l := range links {
		if l.IsNote() {
			out.addOutgoing(p, l, r.Resolve(p, l))
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
	sortLinks(out.Backlinks)
	return out, nil
}

func (out *Links) addOutgoing(p string, l markdown.Link, target string) {
	link := Link{Source: p, Target: target, Raw: l.Target, Line: l.Line}
	out.Outgoing = append(out.Outgoing, link)
	if target == "" {
		out.Unresolved = append(out.Unresolved, link)
	}
}

func sortLinks(ls []Link) {
	slices.SortStableFunc(ls, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line))
	})
}

// backlinks lists the links of indexed notes that resolve to p among the
// notes seen keeps (nil: all of them).
func backlinks(x *search.Index, p string, seen func([]string) []string) []Link {
	out := []Link{}
	key := markdown.NoteKey(p)
	x.LinksByKey(key, func(source string, l markdown.Link) {
		keys := markdown.LinkKeys(source, l)
		if !slices.Contains(keys, key) {
			return
		}
		paths := x.KeyPaths(keys)
		if seen != nil {
			paths = seen(paths)
		}
		r := markdown.NewResolver(append(paths, p))
		if r.Resolve(source, l) == p {
			out = append(out, Link{Source: source, Target: p, Raw: l.Target, Line: l.Line})
		}
	})
	sortLinks(out)
	return out
}

// notesLinkingTo lists the notes with a link that resolves to target, the
// paths of all notes, and the resolver used, built from the notes as they
// are now.
func (v *Vault) notesLinkingTo(ctx context.Context, target string) ([]string, []string, *markdown.Resolver, *Error) {
	if x := v.ix.current(); x != nil {
		paths := make([]string, 0, x.Live()+1)
		for d := range x.Docs() {
			paths = append(paths, d.Path)
		}
		var out []string
		for _, l := range backlinks(x, target, nil) {
			if len(out) == 0 || out[len(out)-1] != l.Source {
				out = append(out, l.Source)
			}
		}
		v.ix.mu.RUnlock()
		return out, paths, markdown.NewResolver(append(paths, target)), nil
	}
	paths, e := v.notePaths(ctx)
	if e != nil {
		return nil, nil, nil, e
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
		return nil, nil, nil, e
	}
	return out, paths, r, nil
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

package vault

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// CodeAmbiguousName means a name fits several notes; Error.Candidates
// lists their paths.
const CodeAmbiguousName = "ambiguous_name"

// maxAliasReads bounds the notes read to confirm an alias.
const maxAliasReads = 200

// Named is the note a caller named, and the heading or the block
// ("Plan#^abc") it named with it.
type Named struct {
	Path    string
	Heading string
	Block   string // the block id, without '^'
}

// Lookup finds the note a caller names the way people and models do: by
// its vault path ("Projects/Garden Redesign.md", in any Unicode normal
// form), or by its name as written in a wiki link ("Garden Redesign",
// "Projects/Garden Redesign", "[[Garden Redesign#Budget|text]]"), resolved
// exactly as a link in a note at the top of the vault resolves, then by
// one of its aliases, last as an attachment's file name ("diagram.png"). A name that fits several notes answers
// ambiguous_name with their paths; none, not_found.
//
// A path that exists is returned as it is, whatever it names (a folder
// only when no note has its name), so that reading it reports what is
// wrong with it (a folder, a link, a protected file, not a note) rather
// than that nothing has that name; a name that is no valid path and names
// nothing answers why it is no valid path.
func (v *Vault) Lookup(ctx context.Context, name string) (Named, error) {
	if e := v.checkHome(); e != nil {
		return Named{}, e
	}
	pathErr := checkPath(name)
	isDir := false
	if pathErr == nil && v.isProtected(name) {
		// Protected whether or not something is there: reading or
		// changing it answers so, and tells nothing of what lies there.
		return Named{Path: name}, nil
	}
	// A path the call may not see is looked up as a name, as if nothing
	// were there: a write to it must not answer outside_scope where a
	// missing note answers not_found.
	a := accessOf(ctx)
	seen := func(p string) bool { return a.all() || v.visibleNote(a, p) }
	if pathErr == nil && v.indexed(name) {
		// A note the index holds at this path is answered without the
		// Lstat through the root below: what it would answer for it, a
		// folder of that name included (it has a note's extension). The
		// call's view of it is judged from the lstat that found it still
		// there. Reading it checks everything again.
		if fi, ok := v.stillOnDisk(ctx, name); ok && (a.all() || v.visibleAt(a, name, fi)) {
			return Named{Path: name}, nil
		}
	}
	if pathErr == nil {
		fi, err := v.root.Lstat(name)
		switch {
		case err == nil:
			if isDir = fi.IsDir(); (!isDir || hasNoteExt(name)) && (isDir || seen(name)) {
				return Named{Path: name}, nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			// A path below a note the call may not see is looked up as
			// a name, as one below nothing is.
			if fe := fsErr("lstat", err); v.hideInPath(a, name, fe) == fe {
				return Named{Path: name}, nil
			}
		case hasNoteExt(name):
			if p := v.existingSpelling(name); p != name && seen(p) {
				return Named{Path: p}, nil
			}
		}
	}
	target, heading := markdown.ParseName(name)
	if target == "" {
		return Named{}, newErr(CodeInvalidArgument, ReasonNoName, nil)
	}
	paths, e := v.namedPaths(ctx, target)
	if e != nil {
		return Named{}, e
	}
	if len(paths) == 0 {
		if paths, e = v.aliased(ctx, target); e != nil {
			return Named{}, e
		}
	}
	if len(paths) == 0 && path.Ext(target) != "" {
		// An attachment by name, as an embed names it: ![[diagram.png]].
		if paths, e = v.findAttachment(ctx, target, ""); e != nil {
			return Named{}, e
		}
	}
	switch {
	case len(paths) == 0 && isDir && (a.all() || v.folderVisible(a, name)):
		return Named{Path: name}, nil // reading it says it is a folder
	case len(paths) == 0 && pathErr != nil:
		return Named{}, pathErr
	}
	switch len(paths) {
	case 0:
		e := &Error{Code: CodeNotFound, Reason: ReasonNoSuchName, Subject: clipRunes(target, 100)}
		if e.Candidates = v.closeNames(ctx, target); len(e.Candidates) > 0 {
			e.Reason = ReasonNoSuchNameClose
		}
		return Named{}, fail(e)
	case 1:
		if id, ok := strings.CutPrefix(heading, "^"); ok {
			return Named{Path: paths[0], Block: id}, nil
		}
		return Named{Path: paths[0], Heading: heading}, nil
	}
	e = fail(&Error{Code: CodeAmbiguousName, Reason: ReasonNamed, Count: len(paths), Subject: clipRunes(target, 100)})
	e.Candidates = paths[:min(len(paths), markdown.MaxCandidates)]
	e.More = len(paths) - len(e.Candidates)
	return Named{}, e
}

// indexed reports whether the index holds a note at exactly path p.
func (v *Vault) indexed(p string) bool {
	x := v.ix.current()
	if x == nil {
		return false
	}
	_, ok := x.Lookup(p)
	v.ix.mu.RUnlock()
	return ok && hasNoteExt(p)
}

// namedPaths lists the notes target names as a link would, in the form it
// is written, else composed, else decomposed (as macOS writes names).
func (v *Vault) namedPaths(ctx context.Context, target string) ([]string, *Error) {
	forms := []string{target}
	for _, f := range []string{norm.NFC.String(target), norm.NFD.String(target)} {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	var all []string // without the index
	for _, t := range forms {
		var paths []string
		if x := v.ix.current(); x != nil {
			paths = x.KeyPaths(markdown.LinkKeys("", markdown.Link{Kind: "wiki", Target: t}))
			v.ix.mu.RUnlock()
			// A name resolves as if the notes the call may not see were
			// not there (without the index, the walk passes them over).
			paths = v.visibleNotes(accessOf(ctx), paths)
		} else {
			if all == nil {
				var e *Error
				if all, e = v.notePaths(ctx); e != nil {
					return nil, e
				}
			}
			paths = all
		}
		if found := markdown.NewResolver(paths).Named(t); len(found) > 0 {
			return found, nil
		}
	}
	return nil, nil
}

// aliased lists the notes with target among their aliases, ignoring case
// and accents. With the index built only the notes whose aliases hold
// every word of target are read.
func (v *Vault) aliased(ctx context.Context, target string) ([]string, *Error) {
	want := search.Fold(target)
	toks := search.Tokens(want)
	if len(toks) == 0 {
		return nil, nil
	}
	var out []string
	has := func(aliases []string) bool {
		return slices.ContainsFunc(aliases, func(a string) bool { return search.Fold(a) == want })
	}
	if x := v.ix.current(); x != nil {
		cands := x.AliasPaths(toks)
		v.ix.mu.RUnlock()
		for _, p := range cands[:min(len(cands), maxAliasReads)] {
			if n, err := v.Read(ctx, p); err == nil && has(n.Aliases) {
				out = append(out, p)
			}
		}
		return out, nil
	}
	e := v.scanNotes(ctx, func(w walkEntry, data []byte) *Error {
		if fm, _ := markdown.ParseFrontmatter(string(data)); has(fm.Aliases) {
			out = append(out, w.path)
		}
		return nil
	})
	return out, e
}

// hasNoteExt reports a path ending in ".md" (any case).
func hasNoteExt(p string) bool {
	return len(p) > 3 && strings.EqualFold(p[len(p)-3:], ".md")
}

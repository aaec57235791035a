package markdown

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Resolver maps link targets to note paths. Build it once per set of note
// paths with NewResolver; it is safe for concurrent use afterwards.
type Resolver struct {
	exact map[string]bool     // path
	lower map[string]string   // lowercased path -> path (first in sorted order)
	base  map[string][]string // lowercased base name without ".md" -> paths, shortest first
}

// NewResolver indexes note paths (vault-relative, '/', ending in ".md";
// others are ignored).
func NewResolver(paths []string) *Resolver {
	r := &Resolver{
		exact: make(map[string]bool, len(paths)),
		lower: make(map[string]string, len(paths)),
		base:  make(map[string][]string, len(paths)),
	}
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, byPreference)
	for _, p := range sorted {
		if !hasMD(p) || r.exact[p] {
			continue
		}
		r.exact[p] = true
		lp := strings.ToLower(p)
		if _, ok := r.lower[lp]; !ok {
			r.lower[lp] = p
		}
		b := baseKey(p)
		r.base[b] = append(r.base[b], p)
	}
	return r
}

// byPreference orders paths shortest first, then bytewise.
func byPreference(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func hasMD(p string) bool {
	return len(p) >= 3 && strings.EqualFold(p[len(p)-3:], ".md")
}

// baseKey is the lowercased file name without ".md".
func baseKey(p string) string {
	b := path.Base(p)
	if hasMD(b) {
		b = b[:len(b)-3]
	}
	return strings.ToLower(b)
}

// Resolve returns the note path a link in source points at, or "".
//
// The order follows Obsidian: a Markdown link is first taken relative to
// the source's folder (and only that way when it starts with "./" or
// "../"); then the target is looked up as a vault path, with or without
// ".md", exactly and then case-insensitively; last, notes whose path ends
// with the target's name (case-insensitively; "[[b/c]]" matches
// "a/b/c.md") are candidates. Among several candidates a note in the
// source's own folder wins, else the shortest path (then bytewise order),
// so the answer is always deterministic.
func (r *Resolver) Resolve(source string, l Link) string {
	t := strings.TrimSpace(l.Target)
	if t == "" || r == nil {
		return ""
	}
	dir := path.Dir(source)
	if l.Kind == "markdown" && !strings.HasPrefix(t, "/") {
		if p := r.lookup(path.Join(dir, t)); p != "" {
			return p
		}
		if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
			return ""
		}
	}
	t = strings.TrimLeft(t, "/")
	if p := r.lookup(t); p != "" {
		return p
	}
	return r.byName(dir, t)
}

// lookup finds a vault path, trying ".md" appended, exact case first.
func (r *Resolver) lookup(p string) string {
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return ""
	}
	cands := [2]string{p, p + ".md"}
	n := 2
	if hasMD(p) {
		n = 1
	}
	for _, c := range cands[:n] {
		if r.exact[c] {
			return c
		}
	}
	for _, c := range cands[:n] {
		if q, ok := r.lower[strings.ToLower(c)]; ok {
			return q
		}
	}
	return ""
}

// byName resolves by file name, and by path suffix when the target has '/'.
func (r *Resolver) byName(dir, t string) string {
	lt := strings.ToLower(path.Clean(t))
	if !hasMD(lt) {
		lt += ".md"
	}
	var first string
	for _, p := range r.base[baseKey(lt)] {
		lp := strings.ToLower(p)
		if lp != lt && !strings.HasSuffix(lp, "/"+lt) {
			continue
		}
		if path.Dir(p) == dir {
			return p
		}
		if first == "" {
			first = p
		}
	}
	return first
}

// uniqueName reports whether no note other than p itself and skip has p's
// file name.
func (r *Resolver) uniqueName(p string, skip ...string) bool {
	for _, q := range r.base[baseKey(p)] {
		if q != p && !slices.Contains(skip, q) {
			return false
		}
	}
	return true
}

// LinkKeys are the keys of the notes a link in source can resolve to: the
// lowercased file names without ".md" (one, or two for a Markdown link
// whose path relative to source ends elsewhere, as "a/.." does). Resolve
// only ever returns a note p with NoteKey(p) among them, so a Resolver built
// from just the notes of those keys resolves the link exactly as one built
// from the whole vault.
func LinkKeys(source string, l Link) []string {
	t := strings.TrimSpace(l.Target)
	if t == "" {
		return nil
	}
	var keys []string
	if l.Kind == "markdown" && !strings.HasPrefix(t, "/") {
		keys = append(keys, baseKey(path.Join(path.Dir(source), t)))
	}
	k := baseKey(path.Clean(strings.TrimLeft(t, "/")))
	if len(keys) == 0 || keys[0] != k {
		keys = append(keys, k)
	}
	return keys
}

// NoteKey is the key of a note path that LinkKeys are compared with.
func NoteKey(p string) string { return baseKey(p) }

// Named returns the notes that a note name, written as the target of a
// wiki link in a note at the top of the vault, can mean: the note whose
// vault path it is (with or without ".md", exactly, else ignoring case),
// or else every note whose path ends with it by file name, in order of
// preference. Where Resolve picks the first of several, Named lists them
// all, so that a caller can be asked which one it means.
func (r *Resolver) Named(target string) []string {
	t := strings.TrimLeft(strings.TrimSpace(target), "/")
	if t == "" || r == nil {
		return nil
	}
	if p := r.lookup(t); p != "" {
		return []string{p}
	}
	lt := strings.ToLower(path.Clean(t))
	if !hasMD(lt) {
		lt += ".md"
	}
	var out []string
	for _, p := range r.base[baseKey(lt)] {
		if lp := strings.ToLower(p); lp == lt || strings.HasSuffix(lp, "/"+lt) {
			out = append(out, p)
		}
	}
	return out
}

// ParseName splits a note name as a person or a model writes it, bare or
// as a whole wiki link ("Plan", "Plan#Budget", "[[Plan#Budget|the
// budget]]", "![[Plan]]"), into the target and the heading; for a block
// reference ("Plan#^abc") the heading is "^abc".
func ParseName(name string) (target, heading string) {
	s := strings.TrimSpace(name)
	if t, ok := strings.CutPrefix(s, "!"); ok && strings.HasPrefix(t, "[[") {
		s = t
	}
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && len(s) >= 4 {
		s = s[2 : len(s)-2]
	}
	if i := strings.IndexByte(s, '|'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, heading = s[:i], strings.TrimSpace(s[i+1:])
	}
	return strings.TrimSpace(s), heading
}

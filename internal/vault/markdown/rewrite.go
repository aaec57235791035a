package markdown

import (
	"path"
	"strings"
)

// RewriteLinks returns content with every link that resolves (from source,
// through r) to the note from rewritten to point at to, and how many were
// rewritten. r must know the paths as they were before the move, so that
// old links still resolve to from.
//
// Only the target part of each link changes; '!', #heading, |alias, link
// text and titles stay as written. A wiki link written by name keeps that
// style when to's file name is unique in the vault (ignoring from), else it
// gets to's full path; one written with a path gets the full path. A
// trailing ".md" is kept only if the link had one. A Markdown link gets a
// path relative to the source's folder, or a vault path when it was
// written as one; spaces and other special characters are percent-encoded
// unless the link used <...>.
func RewriteLinks(content, source, from, to string, r *Resolver) (string, int) {
	links := scanLinks(content, false)
	var b strings.Builder
	last, n := 0, 0
	for _, l := range links {
		if r.Resolve(source, l.Link) != from {
			continue
		}
		repl := ""
		if l.Kind == "wiki" {
			repl = wikiTarget(l.Target, to, r.uniqueName(to, from))
		} else {
			repl = markdownTarget(l, source, to, r)
		}
		if n == 0 {
			b.Grow(len(content) + 64)
		}
		b.WriteString(content[last:l.tStart])
		b.WriteString(repl)
		last = l.tEnd
		n++
	}
	if n == 0 {
		return content, 0
	}
	b.WriteString(content[last:])
	return b.String(), n
}

// TrimMD drops a note's ".md" (any case) from p, as links and search name
// notes without it.
func TrimMD(p string) string {
	if hasMD(p) {
		return p[:len(p)-3]
	}
	return p
}

func wikiTarget(old, to string, unique bool) string {
	t := TrimMD(to)
	if !strings.Contains(old, "/") && unique {
		t = TrimMD(path.Base(to))
	}
	if hasMD(old) {
		t += ".md"
	}
	return t
}

func markdownTarget(l rawLink, source, to string, r *Resolver) string {
	dir := path.Dir(source)
	t := strings.TrimSpace(l.Target)
	rel := true
	if !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
		// Written as a vault path if that is how it resolved.
		if r.lookup(path.Join(dir, t)) == "" && r.lookup(strings.TrimLeft(t, "/")) != "" {
			rel = false
		}
	}
	p := to
	if rel {
		p = relPath(dir, to)
	} else if strings.HasPrefix(t, "/") {
		p = "/" + to
	}
	if !hasMD(t) {
		p = TrimMD(p)
	}
	if l.angle && !strings.ContainsAny(p, "<>\n\r") {
		return p
	}
	return escapePath(p)
}

// relPath returns the path of target relative to folder dir ("." is the
// vault root).
func relPath(dir, target string) string {
	if dir == "." || dir == "" {
		return target
	}
	ds := strings.Split(dir, "/")
	ts := strings.Split(target, "/")
	i := 0
	for i < len(ds) && i < len(ts)-1 && ds[i] == ts[i] {
		i++
	}
	var b strings.Builder
	for range ds[i:] {
		b.WriteString("../")
	}
	b.WriteString(strings.Join(ts[i:], "/"))
	return b.String()
}

// escapePath percent-encodes the bytes that would end or confuse a Markdown
// link destination; other characters (including non-ASCII) stay readable.
func escapePath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c <= ' ' || c == 0x7f || strings.IndexByte("%()<>[]#?\\\"'`", c) >= 0:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

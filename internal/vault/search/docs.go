package search

import (
	"iter"
	"slices"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Doc is what the index knows of one note.
type Doc struct {
	Path, Title string
	Mod         int64 // modification time, Unix nanoseconds
	Size        int64
	// Private is what the note's frontmatter said of it being private
	// when it was indexed, at Mod and Size.
	Private bool
}

func (x *Index) doc(d *docInfo) Doc {
	return Doc{Path: d.path, Title: x.title(d), Mod: d.mod, Size: d.size, Private: d.private}
}

// Live is the number of notes in the index.
func (x *Index) Live() int { return x.live }

// Private is the number of notes in the index that were private when
// indexed.
func (x *Index) Private() int { return x.private }

// Terms is the number of distinct terms in the index.
func (x *Index) Terms() int { return len(x.terms) }

// Lookup returns the note at exactly p.
func (x *Index) Lookup(p string) (Doc, bool) {
	id, ok := x.byPath[p]
	if !ok {
		return Doc{}, false
	}
	return x.doc(&x.docs[id]), true
}

// Docs yields every note in the index, in no particular order.
func (x *Index) Docs() iter.Seq[Doc] {
	return func(yield func(Doc) bool) {
		for _, id := range x.byPath {
			if !yield(x.doc(&x.docs[id])) {
				return
			}
		}
	}
}

// DocOf is the note a candidate stands for.
func (x *Index) DocOf(s Scored) Doc { return x.doc(&x.docs[s.doc]) }

// Shrink trims the spare capacity of every posting, of the notes' text
// and of their links after a bulk load, and ends the load: later puts no
// longer look for the strings the text has (see textSet).
func (x *Index) Shrink() {
	x.shared = nil
	if x.text.b.Cap() > x.text.size() {
		t := newNoteText(x.text.size())
		t.b.WriteString(x.text.b.String())
		x.text = t
	}
	x.links = slices.Clip(append([]storedLink(nil), x.links...))
	for i := range x.post {
		p := &x.post[i]
		if cap(p.data) > len(p.data) {
			p.data = append([]byte(nil), p.data...)
		}
	}
}

// KeyPaths lists the live notes whose key (markdown.NoteKey) is one of
// keys.
func (x *Index) KeyPaths(keys []string) []string {
	var out []string
	for _, k := range keys {
		x.keyIDs(&x.noteKeys, k, func(id uint32) {
			if d := &x.docs[id]; d.live {
				out = append(out, d.path)
			}
		})
	}
	return out
}

// LinksByKey calls fn for each link, as written, of the live notes
// holding a link with key (markdown.LinkKeys), a note at a time.
func (x *Index) LinksByKey(key string, fn func(source string, l markdown.Link)) {
	var last uint32 = ^uint32(0)
	x.keyIDs(&x.linkKeys, key, func(id uint32) {
		d := &x.docs[id]
		if !d.live || id == last {
			return
		}
		last = id
		for _, l := range x.noteLinks(d) {
			fn(d.path, x.mdLink(l))
		}
	})
}

// AliasPaths lists, sorted, the live notes holding every token in an alias.
func (x *Index) AliasPaths(toks []string) []string {
	ids := x.docsWithAll(toks, fAlias)
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, x.docs[id].path)
	}
	idScratch.put(ids)
	slices.Sort(out)
	return out
}

// docsWithAll lists, sorted, the live notes holding every one of terms
// (in one of fields, unless fields is 0); nil when there is none. The
// list is scratch, for the caller to give back with idScratch.put.
func (x *Index) docsWithAll(terms []string, fields uint8) []uint32 {
	var ids []uint32
	for i, t := range terms {
		tid, ok := x.terms[t]
		if !ok {
			idScratch.put(ids)
			return nil
		}
		cur := idScratch.get(int(x.post[tid].n))
		x.post[tid].each(func(e entry) {
			if (fields == 0 || e.fields&fields != 0) && x.docs[e.doc].live {
				cur = append(cur, e.doc)
			}
		})
		if i == 0 {
			ids = cur
		} else {
			ids = intersectIDs(ids, cur)
			idScratch.put(cur)
		}
		if len(ids) == 0 {
			idScratch.put(ids)
			return nil
		}
	}
	return ids
}

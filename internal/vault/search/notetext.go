package search

import (
	"hash/maphash"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// The few strings the index keeps of each note besides its path (its
// title and the targets of its links) live in one buffer that only
// grows, each a textRef into it, and the links in one array: two
// allocations for the whole vault instead of one or more per note and per
// link, which at 10k notes and 60k links was a fifth of the index's heap
// and most of its objects. A replaced or removed note's strings stay in
// the buffer as garbage until Compact copies the live ones into a new one.
//
// Links repeat their targets: a vault of 10k notes has 100k links to 12k
// distinct targets, most of them also a note's title, and the keys of
// links and notes repeat each other too. While it builds (a bulk load,
// Compact) the index writes each distinct string once and shares its
// range, which bytes that never change make safe; after that a put
// shares only what is cheap to find (see Put).

// textRef is a string kept in the index's text buffer.
type textRef struct{ off, n uint32 }

// storedLink is one outgoing link to a note, as written: its line, and
// in the top bit whether it is a Markdown link (else a wiki link), in one
// word, which spares 4 of 16 bytes on each of the vault's links.
type storedLink struct {
	target textRef
	lineMD uint32
}

const mdBit = 1 << 31

func newStoredLink(target textRef, line int32, md bool) storedLink {
	l := storedLink{target: target, lineMD: uint32(max(line, 0))} // #nosec G115 -- not negative, so within 31 bits
	if md {
		l.lineMD |= mdBit
	}
	return l
}

func (l storedLink) line() int32 { return int32(l.lineMD &^ mdBit) } // #nosec G115 -- 31 bits

func (l storedLink) md() bool { return l.lineMD&mdBit != 0 }

// noteText is the buffer. Strings read from it share its memory, which is
// safe since bytes once written are never changed: a buffer grown into a
// new one leaves the old one to those still holding strings of it.
type noteText struct {
	b *strings.Builder
}

func newNoteText(size int) noteText {
	b := &strings.Builder{}
	b.Grow(size)
	return noteText{b: b}
}

// put adds s and returns its reference.
func (t noteText) put(s string) textRef {
	off := t.b.Len()
	t.b.WriteString(s)
	return textRef{off: uint32(off), n: uint32(len(s))} // #nosec G115 -- the buffer holds titles and link targets of notes in memory; 4 GB of them would need far more RAM first
}

// get returns the string r refers to.
func (t noteText) get(r textRef) string {
	return t.b.String()[r.off : r.off+r.n]
}

// size is the bytes written so far.
func (t noteText) size() int { return t.b.Len() }

// textSet finds a string already in the index's text by its hash, to
// share its range rather than write it again. Kept only while building:
// a map entry per distinct string costs about what the strings
// themselves do.
type textSet struct {
	seed maphash.Seed
	refs map[uint64]textRef
}

func newTextSet(n int) *textSet {
	return &textSet{seed: maphash.MakeSeed(), refs: make(map[uint64]textRef, n)}
}

// putShared adds s to the text unless the index is building and has it
// already, and returns its reference.
func (x *Index) putShared(s string) textRef {
	if x.shared == nil || s == "" {
		return x.text.put(s)
	}
	h := maphash.String(x.shared.seed, s)
	if r, ok := x.shared.refs[h]; ok {
		if x.text.get(r) == s {
			return r
		}
		return x.text.put(s) // another string has its hash: rare, and only costs the bytes
	}
	r := x.text.put(s)
	x.shared.refs[h] = r
	return r
}

// noteLink is a link as Analyse finds it, before Put stores it.
type noteLink struct {
	target string
	line   int32
	md     bool
}

// prevStrings are the strings of the note a Put replaces. An edit keeps
// most of a note's title and links, whose text needs no second copy; so
// does a rename or a move rewriting a note's links to another note. This
// is the only sharing left once the index is built: a set of all the
// strings would cost as much as the text it spares, and finding another
// note's link to the same target through the link keys walks lists full
// of other spellings and dead notes, to spare a few bytes a note that
// Compact spares anyway.
type prevStrings struct {
	title textRef
	links []storedLink
	// byText is the links' targets once there are too many to look for
	// one by one.
	byText map[string]textRef
}

// prevLinksScan is the most links searched one by one for each new one.
const prevLinksScan = 32

// prevText returns the strings of the note at p, if there is one and the
// index is built.
func (x *Index) prevText(p string) *prevStrings {
	id, ok := x.byPath[p]
	if !ok || x.shared != nil {
		return nil
	}
	d := &x.docs[id]
	pv := &prevStrings{title: d.title, links: x.noteLinks(d)}
	if len(pv.links) > prevLinksScan {
		pv.byText = make(map[string]textRef, len(pv.links))
		for _, l := range pv.links {
			pv.byText[x.text.get(l.target)] = l.target
		}
	}
	return pv
}

// putShared is x.putShared(s), but first takes s from the replaced note.
func (pv *prevStrings) putShared(x *Index, s string) textRef {
	if pv == nil || s == "" {
		return x.putShared(s)
	}
	if x.text.get(pv.title) == s {
		return pv.title
	}
	if pv.byText != nil {
		if r, ok := pv.byText[s]; ok {
			return r
		}
		return x.text.put(s)
	}
	for _, l := range pv.links {
		if x.text.get(l.target) == s {
			return l.target
		}
	}
	return x.text.put(s)
}

// putLinks stores links and returns where they start in x.links.
func (x *Index) putLinks(links []noteLink, prev *prevStrings) (start, n uint32) {
	start = uint32(len(x.links)) // #nosec G115 -- one entry per link of a note in memory; 2^32 would need hundreds of GB first
	for _, l := range links {
		x.links = append(x.links, newStoredLink(prev.putShared(x, l.target), l.line, l.md))
	}
	return start, uint32(len(links)) // #nosec G115 -- as above
}

// noteLinks returns the links of d.
func (x *Index) noteLinks(d *docInfo) []storedLink {
	return x.links[d.linkStart : d.linkStart+d.linkN]
}

// title is d's title.
func (x *Index) title(d *docInfo) string { return x.text.get(d.title) }

// mdLink turns a stored link back into the markdown package's form.
func (x *Index) mdLink(l storedLink) markdown.Link {
	k := "wiki"
	if l.md() {
		k = "markdown"
	}
	return markdown.Link{Kind: k, Target: x.text.get(l.target), Line: int(l.line())}
}

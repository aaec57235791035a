package search

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// The search index is an in-memory inverted index over the notes (not the
// trash, protected folders, hidden entries or sync tools' files). It is a
// cache: it holds no note text, only folded terms with compact postings and
// a little metadata per note, and it is rebuilt from the notes at start.
//
// Documents get increasing ids; a changed note gets a new id and its old
// one is marked dead, so that postings only ever grow at their end and can
// be delta-encoded. Dead entries are dropped by Compact once they are
// numerous.

// Field bits of a posting: where, besides the running text, a term occurs.
const (
	fTitle uint8 = 1 << iota
	fName
	fHeading
	fTag
	fAlias
	fPath // anywhere in the vault-relative path (folders and name)
)

// tagPrefix starts the index keys of tags; tokens never contain '#'.
const tagPrefix = "#"

// docInfo is what the index keeps per note.
type docInfo struct {
	path  string
	title textRef // in the index's text (noteText)
	mod   int64   // modification time, Unix nanoseconds
	size  int64
	words uint32 // tokens in the note, for length normalisation
	live  bool
	// private is what the note's frontmatter said of it when it was
	// indexed (Analysed.SetPrivate).
	private bool
	syms    symbols // the characters outside words in its text and path
	// titleWords is the number of tokens of the title, for its length
	// normalisation; key and order its exact-match keys (keyOf, orderOf).
	titleWords uint16
	key, order uint64
	// linkStart and linkN are where its links are in the index's links.
	linkStart, linkN uint32
}

// posting is the list of documents holding one term: for each, the delta
// of its id from the previous one shifted left by 5 bits, with a code for
// its successor bits (see nextBit) in those 5, as a uvarint; then
// tf<<6 | fields as a uvarint; then, only for the code nextRaw, the two
// bytes of the successor bits. A word seen once in a note has one
// successor bit, which the code holds: that spares two bytes of the four
// or five such an entry took, and postings are most of the index.
type posting struct {
	data []byte
	last uint32
	n    uint32 // entries, dead ones included
}

// Codes for the successor bits: 0 to 15 stand for the single bit 1<<code.
const (
	nextNone = 16 // no successor bit
	nextRaw  = 17 // two bytes follow the entry's second uvarint
	nextBits = 5  // bits of the code
)

func (p *posting) add(id uint32, tf uint32, fields uint8, next uint16) {
	var buf [2*binary.MaxVarintLen64 + 2]byte
	code := uint64(nextRaw)
	switch {
	case next == 0:
		code = nextNone
	case next&(next-1) == 0:
		code = uint64(bits.TrailingZeros16(next))
	}
	k := binary.PutUvarint(buf[:], uint64(id-p.last)<<nextBits|code)
	k += binary.PutUvarint(buf[k:], uint64(tf)<<6|uint64(fields))
	if code == nextRaw {
		binary.LittleEndian.PutUint16(buf[k:], next)
		k += 2
	}
	if p.data == nil {
		p.data = make([]byte, 0, k)
	}
	p.data = append(p.data, buf[:k]...)
	p.last = id
	p.n++
}

// entry is one decoded posting.
type entry struct {
	doc    uint32
	tf     uint32
	fields uint8
	next   uint16
}

// each calls fn for every entry in id order.
func (p *posting) each(fn func(entry)) {
	var id uint64
	b := p.data
	for len(b) > 0 {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return
		}
		b = b[k:]
		v, k2 := binary.Uvarint(b)
		if k2 <= 0 {
			return
		}
		b = b[k2:]
		var next uint16
		switch code := d & (1<<nextBits - 1); {
		case code < nextNone:
			next = 1 << code
		case code == nextRaw:
			if len(b) < 2 {
				return
			}
			next = binary.LittleEndian.Uint16(b)
			b = b[2:]
		case code != nextNone:
			return // add never writes these: the posting is damaged
		}
		id += d >> nextBits
		tf := v >> 6
		if id > math.MaxUint32 || tf > math.MaxUint32 {
			return // add never writes these: the posting is damaged
		}
		fn(entry{doc: uint32(id), tf: uint32(tf), fields: uint8(v & 63), next: next})
	}
}

// nextBit is the bit that a word sets in the successor bits of the word
// before it. A phrase "a b" can only be in notes whose posting of a has
// b's bit: a cheap filter that spares reading most notes that hold both
// words apart.
func nextBit(w []byte) uint16 {
	h := uint32(2166136261)
	for _, c := range w {
		h = (h ^ uint32(c)) * 16777619
	}
	return 1 << (h >> 28)
}

// Index is the data; its owner (the vault's indexer) guards it with a
// lock. Its zero value is not ready: use NewIndex.
type Index struct {
	docs   []docInfo
	byPath map[string]uint32 // live notes only
	live   int
	// private counts the live notes indexed as private.
	private int
	words   int64 // tokens of the live notes
	titles  int64 // title tokens of the live notes

	terms  map[string]uint32 // term → id
	post   []posting         // by term id
	names  []string          // by term id
	sorted []uint32          // term ids in term order, for prefixes

	// text holds the notes' titles and link targets, links their links
	// (see noteText).
	text  noteText
	links []storedLink
	// shared finds the strings already in text while the index builds: from
	// the first Put with sortNow false to Shrink, and within Compact.
	shared *textSet

	// linkKeys maps a link key (markdown.LinkKeys) to the notes holding
	// such a link; noteKeys maps a note key (markdown.NoteKey) to the notes
	// of that name. Both may list dead ids, skipped when read.
	linkKeys keyLists
	noteKeys keyLists
	// altKeys maps the exact-match key of an alias, or of a file name
	// other than the title, to the notes known by it; dead ids are
	// skipped when read. Titles keep theirs in docInfo.key.
	altKeys map[uint64][]uint32
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		byPath:   map[string]uint32{},
		terms:    map[string]uint32{},
		text:     newNoteText(0),
		linkKeys: newKeyLists(0, 0),
		noteKeys: newKeyLists(0, 0),
		altKeys:  map[uint64][]uint32{},
	}
}

// Analysed is a note turned into what the index stores, computed outside
// any lock.
type Analysed struct {
	info     docInfo // but for its title and links, below
	title    string
	links    []noteLink
	terms    []termStat
	linkKeys []string
	noteKey  string
	altKeys  []uint64
}

// SetPrivate records what the note's frontmatter says of it being private,
// so that the index can answer for it (Doc.Private, Index.Private).
func (a *Analysed) SetPrivate(private bool) { a.info.private = private }

type termStat struct {
	term   string
	tf     uint32
	fields uint8
	next   uint16 // successor bits
}

// Put adds or replaces the note a.info.path. sortNow keeps the term
// dictionary sorted (false while building, which sorts once at the end
// and calls Shrink; until then each distinct string of the notes' text is
// written once, see textSet).
func (x *Index) Put(a *Analysed, sortNow bool) {
	if !sortNow && x.shared == nil {
		x.shared = newTextSet(0)
	}
	prev := x.prevText(a.info.path)
	x.Remove(a.info.path)
	id := uint32(len(x.docs)) // #nosec G115 -- one id per note held in memory (Compact drops dead ones); 2^32 would need hundreds of GB first
	a.info.live = true
	a.info.title = prev.putShared(x, a.title)
	a.info.linkStart, a.info.linkN = x.putLinks(a.links, prev)
	x.docs = append(x.docs, a.info)
	x.byPath[a.info.path] = id
	x.live++
	if a.info.private {
		x.private++
	}
	x.words += int64(a.info.words)
	x.titles += int64(a.info.titleWords)
	for _, t := range a.terms {
		tid, ok := x.terms[t.term]
		if !ok {
			tid = uint32(len(x.post)) // #nosec G115 -- one id per distinct term held in memory; 2^32 would need hundreds of GB first
			x.terms[t.term] = tid
			x.post = append(x.post, posting{})
			x.names = append(x.names, t.term)
			if sortNow {
				at, _ := slices.BinarySearchFunc(x.sorted, t.term, func(id uint32, s string) int { return strings.Compare(x.names[id], s) })
				x.sorted = slices.Insert(x.sorted, at, tid)
			} else {
				x.sorted = append(x.sorted, tid)
			}
		}
		x.post[tid].add(id, t.tf, t.fields, t.next)
	}
	for _, k := range a.linkKeys {
		x.addKey(&x.linkKeys, k, id)
	}
	x.addKey(&x.noteKeys, a.noteKey, id)
	for _, k := range a.altKeys {
		x.altKeys[k] = append(x.altKeys[k], id)
	}
}

// SortTerms sorts the term dictionary after a bulk load.
func (x *Index) SortTerms() {
	slices.SortFunc(x.sorted, func(a, b uint32) int { return strings.Compare(x.names[a], x.names[b]) })
}

// Remove marks the note at p dead; it reports whether there was one.
func (x *Index) Remove(p string) bool {
	id, ok := x.byPath[p]
	if !ok {
		return false
	}
	delete(x.byPath, p)
	d := &x.docs[id]
	d.live = false
	d.linkN = 0
	x.live--
	if d.private {
		x.private--
	}
	x.words -= int64(d.words)
	x.titles -= int64(d.titleWords)
	return true
}

// RemoveFolder marks every note below dir dead and returns how many.
func (x *Index) RemoveFolder(dir string) int {
	n := 0
	for p := range x.byPath {
		if strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == '/' {
			x.Remove(p)
			n++
		}
	}
	return n
}

// dead is the number of dead documents still taking space.
func (x *Index) dead() int { return len(x.docs) - x.live }

// NeedsCompact reports whether dead entries have piled up.
func (x *Index) NeedsCompact() bool {
	d := x.dead()
	return d > 256 && d > x.live/2
}

// Compact drops dead documents, renumbering the live ones in order, and
// terms left without documents.
func (x *Index) Compact() {
	remap := make([]uint32, len(x.docs))
	docs := make([]docInfo, 0, x.live)
	links := 0
	for i := range x.docs {
		if d := &x.docs[i]; d.live {
			links += int(d.linkN)
		}
	}
	text, strs := x.liveText()
	nx := &Index{
		text:   newNoteText(text),
		links:  make([]storedLink, 0, links),
		shared: newTextSet(strs),
	}
	for i := range x.docs {
		d := x.docs[i]
		if !d.live {
			remap[i] = ^uint32(0)
			continue
		}
		remap[i] = uint32(len(docs)) // #nosec G115 -- docs is a subset of x.docs, whose ids already fit
		d.title = nx.putShared(x.title(&d))
		d.linkStart = uint32(len(nx.links)) // #nosec G115 -- a subset of x.links, whose indexes already fit
		for _, l := range x.noteLinks(&x.docs[i]) {
			l.target = nx.putShared(x.text.get(l.target))
			nx.links = append(nx.links, l)
		}
		docs = append(docs, d)
	}
	*nx = Index{
		text:    nx.text,
		links:   nx.links,
		shared:  nx.shared,
		docs:    docs,
		byPath:  make(map[string]uint32, len(docs)),
		live:    len(docs),
		private: x.private,
		words:   x.words,
		titles:  x.titles,
		terms:   make(map[string]uint32, len(x.terms)),
		altKeys: make(map[uint64][]uint32, len(x.altKeys)),
	}
	for i, d := range docs {
		nx.byPath[d.path] = uint32(i)
	}
	for _, tid := range x.sorted {
		var np posting
		x.post[tid].each(func(e entry) {
			if n := remap[e.doc]; n != ^uint32(0) {
				np.add(n, e.tf, e.fields, e.next)
			}
		})
		if np.n == 0 {
			continue
		}
		np.data = slices.Clip(np.data)
		id := uint32(len(nx.post)) // #nosec G115 -- nx.post is a subset of x.post, whose ids already fit
		name := x.names[tid]
		nx.terms[name] = id
		nx.post = append(nx.post, np)
		nx.names = append(nx.names, name)
		nx.sorted = append(nx.sorted, id)
	}
	nx.linkKeys = x.compactKeys(nx, &x.linkKeys, remap)
	nx.noteKeys = x.compactKeys(nx, &x.noteKeys, remap)
	for k, ids := range x.altKeys {
		if out := remapIDs(ids, remap); len(out) > 0 {
			nx.altKeys[k] = out
		}
	}
	nx.shared = nil
	*x = *nx
}

// liveText is the size of the distinct strings of the live notes (titles,
// link targets, the keys of their links and names) and their number: what
// Compact writes in the new text.
func (x *Index) liveText() (size, n int) {
	seen := map[string]struct{}{}
	add := func(s string) {
		if _, ok := seen[s]; !ok {
			seen[s] = struct{}{}
			size += len(s)
		}
	}
	for i := range x.docs {
		if d := &x.docs[i]; d.live {
			add(x.title(d))
			for _, l := range x.noteLinks(d) {
				add(x.text.get(l.target))
			}
		}
	}
	for _, l := range []*keyLists{&x.linkKeys, &x.noteKeys} {
		x.liveKeys(l, add)
	}
	return size, len(seen)
}

// remapIDs renumbers ids as Compact does, dropping dead ones and repeats.
func remapIDs(ids, remap []uint32) []uint32 {
	var out []uint32
	for _, id := range ids {
		if n := remap[id]; n != ^uint32(0) && (len(out) == 0 || out[len(out)-1] != n) {
			out = append(out, n)
		}
	}
	return out
}

// prefixTerms returns the ids of the terms starting with pre, at most max.
func (x *Index) prefixTerms(pre string, max int) []uint32 {
	at, _ := slices.BinarySearchFunc(x.sorted, pre, func(id uint32, s string) int { return strings.Compare(x.names[id], s) })
	var out []uint32
	for _, id := range x.sorted[at:] {
		if !strings.HasPrefix(x.names[id], pre) || len(out) == max {
			break
		}
		if !strings.HasPrefix(x.names[id], tagPrefix) {
			out = append(out, id)
		}
	}
	return out
}

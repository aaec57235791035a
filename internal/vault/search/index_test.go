package search

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// within reports whether s shares memory with text.
func within(s, text string) bool {
	if len(s) == 0 || len(text) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return p >= lo && p < lo+uintptr(len(text))
}

// The index is a cache of a few words per note: a string it keeps that
// is a substring of a note's text keeps the whole text in memory, which
// on a vault of linked notes was a sixth of the index's heap.
func TestIndexKeepsNoNoteText(t *testing.T) {
	content := strings.Repeat("filler words here\n", 200) +
		"# garden plan\nsee [[river walk]] and [[notes/winter|winter]] and [b](notes/b.md) #tag\n"
	x := NewIndex()
	x.Put(Analyse("a/garden.md", content, 1, int64(len(content))), true)
	var held []string
	for _, l := range []*keyLists{&x.linkKeys, &x.noteKeys} {
		for _, sp := range l.heads {
			held = append(held, x.text.get(sp.key))
		}
		for k := range l.collide {
			held = append(held, k)
		}
	}
	held = append(held, x.names...)
	d, ok := x.Lookup("a/garden.md")
	if !ok {
		t.Fatal("note not in the index")
	}
	held = append(held, d.Title)
	x.LinksByKey("river walk", func(_ string, l markdown.Link) { held = append(held, l.Target) })
	if len(held) < 5 || d.Title != "garden plan" {
		t.Fatalf("keys and names %q, title %q: the note was not indexed as expected", held, d.Title)
	}
	for _, s := range held {
		if within(s, content) {
			t.Errorf("the index keeps %q as a part of the note's text", s)
		}
	}
}

// Titles and links are kept outside the notes' entries; a replaced note,
// a removed one and Compact's renumbering must leave every other note's
// own.
func TestIndexTitlesAndLinksSurviveChanges(t *testing.T) {
	x := NewIndex()
	note := func(i, gen int) string {
		return fmt.Sprintf("# Title %d v%d\n[[hub]] [[target %d]] [x](hub.md)\n", i, gen, i)
	}
	const n = 600
	for i := range n {
		c := note(i, 0)
		x.Put(Analyse(fmt.Sprintf("n%d.md", i), c, 1, int64(len(c))), true)
	}
	for i := 0; i < n; i += 3 { // replaced: their old entries die
		c := note(i, 1)
		x.Put(Analyse(fmt.Sprintf("n%d.md", i), c, 2, int64(len(c))), true)
	}
	for i := 1; i < n; i += 3 {
		x.Remove(fmt.Sprintf("n%d.md", i))
	}
	check := func(when string) {
		t.Helper()
		for i := range n {
			p := fmt.Sprintf("n%d.md", i)
			d, ok := x.Lookup(p)
			if i%3 == 1 {
				if ok {
					t.Fatalf("%s: removed %s still found", when, p)
				}
				continue
			}
			gen := 0
			if i%3 == 0 {
				gen = 1
			}
			if want := fmt.Sprintf("Title %d v%d", i, gen); d.Title != want {
				t.Fatalf("%s: %s has title %q, want %q", when, p, d.Title, want)
			}
			var got []markdown.Link
			x.LinksByKey(fmt.Sprintf("target %d", i), func(src string, l markdown.Link) {
				if src == p {
					got = append(got, l)
				}
			})
			want := []markdown.Link{{Kind: "wiki", Target: "hub", Line: 2}, {Kind: "wiki", Target: fmt.Sprintf("target %d", i), Line: 2}, {Kind: "markdown", Target: "hub.md", Line: 2}}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: links of %s = %v, want %v", when, p, got, want)
			}
		}
		var hub int
		x.LinksByKey("hub", func(string, markdown.Link) { hub++ })
		if want := (n - n/3) * 3; hub != want {
			t.Fatalf("%s: %d links from notes linking hub, want %d", when, hub, want)
		}
	}
	check("before compacting")
	if !x.NeedsCompact() {
		t.Fatal("the dead entries should call for a compaction")
	}
	x.Compact()
	check("after compacting")
	x.Shrink()
	check("after shrinking")
}

// A posting gives back every entry as added, whatever its successor bits,
// and an entry with a single successor bit (a word seen once in a note)
// takes two bytes where it took four.
func TestPostingRoundTrip(t *testing.T) {
	var want []entry
	var p posting
	id := uint32(0)
	nexts := []uint16{0, 1, 1 << 15, 1 << 7, 3, 0xffff, 1<<4 | 1<<9}
	for i := range 500 {
		id += uint32(1 + i%3*i*i) // small and large gaps
		e := entry{doc: id, tf: uint32(i % 7 * (1 + i%50*1000)), fields: uint8(i % 64), next: nexts[i%len(nexts)]}
		p.add(e.doc, e.tf, e.fields, e.next)
		want = append(want, e)
	}
	var got []entry
	p.each(func(e entry) { got = append(got, e) })
	if !slices.Equal(got, want) {
		t.Fatalf("decoded %d entries, not those added (first: %v, want %v)", len(got), got[:min(3, len(got))], want[:3])
	}
	if int(p.n) != len(want) {
		t.Fatalf("n = %d, want %d", p.n, len(want))
	}
	var one posting
	one.add(1, 1, 0, 1<<11)
	one.add(3, 1, 0, 1<<2)
	if len(one.data) != 4 {
		t.Fatalf("two entries of a word seen once take %d bytes, want 4", len(one.data))
	}
}

// Keys whose hashes collide keep their own lists, through adds and
// Compact; a key never added has none.
func TestKeyListsCollide(t *testing.T) {
	x := NewIndex()
	for i := range 4 {
		x.Put(Analyse(fmt.Sprintf("n%d.md", i), "x", 1, 1), true)
	}
	l := newKeyLists(0, 0)
	// The list of z moved to the slot of b's hash, as if z had it: b
	// then collides.
	x.addKey(&l, "z", 0)
	hz, hb := maphash.String(l.seed, "z"), maphash.String(l.seed, "b")
	l.heads[hb] = l.heads[hz]
	delete(l.heads, hz)
	x.addKey(&l, "b", 1)
	x.addKey(&l, "b", 3)
	ids := func(key string) []uint32 {
		var out []uint32
		x.keyIDs(&l, key, func(id uint32) { out = append(out, id) })
		return out
	}
	if b, c := ids("b"), ids("c"); !slices.Equal(b, []uint32{1, 3}) || c != nil {
		t.Fatalf("b %v, c %v; want [1 3], none", b, c)
	}
	if len(l.collide) != 1 {
		t.Fatalf("collisions %v, want b's", l.collide)
	}
	remap := []uint32{0, ^uint32(0), 1, 2} // the second note is gone
	l = x.compactKeys(x, &l, remap)
	if z, b := ids("z"), ids("b"); !slices.Equal(z, []uint32{0}) || !slices.Equal(b, []uint32{2}) {
		t.Fatalf("after compacting: z %v, b %v; want [0], [2]", z, b)
	}
}

// The index answers whether a note was private when indexed, and keeps
// the count of such notes through replacements, removals and compaction.
func TestIndexKeepsPrivacy(t *testing.T) {
	x := NewIndex()
	put := func(p string, private bool) {
		a := Analyse(p, "words of "+p, 7, 9)
		a.SetPrivate(private)
		x.Put(a, true)
	}
	check := func(when string, want int, priv map[string]bool) {
		t.Helper()
		if got := x.Private(); got != want {
			t.Errorf("%s: Private() = %d, want %d", when, got, want)
		}
		for p, w := range priv {
			d, ok := x.Lookup(p)
			if !ok || d.Private != w || d.Mod != 7 || d.Size != 9 {
				t.Errorf("%s: Lookup(%s) = %+v, %v; want private %v", when, p, d, ok, w)
			}
		}
	}
	put("a.md", true)
	put("b.md", false)
	put("c.md", true)
	check("put", 2, map[string]bool{"a.md": true, "b.md": false, "c.md": true})
	put("a.md", false) // made public
	put("b.md", true)  // made private
	check("replaced", 2, map[string]bool{"a.md": false, "b.md": true, "c.md": true})
	x.Remove("c.md")
	check("removed", 1, map[string]bool{"a.md": false, "b.md": true})
	for i := range 600 { // enough dead notes to compact
		p := fmt.Sprintf("tmp/%d.md", i)
		put(p, i%2 == 0)
		x.Remove(p)
	}
	if !x.NeedsCompact() {
		t.Fatal("no compaction due")
	}
	x.Compact()
	check("compacted", 1, map[string]bool{"a.md": false, "b.md": true})
	x.Remove("b.md")
	check("last private removed", 0, map[string]bool{"a.md": false})
}

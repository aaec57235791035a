package search

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Notes linking the same targets keep one copy of each target's text,
// shared with the title of the note of that name, through a bulk load,
// edits of the notes, removals and Compact; and every note still reads
// back its own links.
func TestLinkTargetsStoredOnce(t *testing.T) {
	const n = 300
	note := func(i, gen int) string {
		return fmt.Sprintf("# Note %d v%d\n[[Shared Target]] [x](other.md)\n[[own %d]] [[Shared Target]]\n", i, gen, i)
	}
	x := NewIndex()
	put := func(p, c string, sortNow bool) { x.Put(Analyse(p, c, 1, int64(len(c))), sortNow) }
	put("Shared Target.md", "# Shared Target\nthe hub\n", false)
	for i := range n {
		put(fmt.Sprintf("n%d.md", i), note(i, 0), false)
	}
	x.SortTerms()
	x.Shrink()
	copies := func(when string, want map[string]int) {
		t.Helper()
		text := x.text.b.String()
		for s, k := range want {
			if got := strings.Count(text, s); got != k {
				t.Errorf("%s: the text holds %q %d times, want %d", when, s, got, k)
			}
		}
	}
	check := func(when string, gens map[int]int) {
		t.Helper()
		if d, _ := x.Lookup("Shared Target.md"); d.Title != "Shared Target" {
			t.Fatalf("%s: the hub's title is %q", when, d.Title)
		}
		got := map[string][]markdown.Link{}
		x.LinksByKey("shared target", func(src string, l markdown.Link) { got[src] = append(got[src], l) })
		if len(got) != len(gens) {
			t.Fatalf("%s: %d notes link the hub, want %d", when, len(got), len(gens))
		}
		for i, gen := range gens {
			p := fmt.Sprintf("n%d.md", i)
			want := []markdown.Link{
				{Kind: "wiki", Target: "Shared Target", Line: 2},
				{Kind: "markdown", Target: "other.md", Line: 2},
				{Kind: "wiki", Target: fmt.Sprintf("own %d", i), Line: 3},
				{Kind: "wiki", Target: "Shared Target", Line: 3},
			}
			if gen == 1 {
				want = append(want, markdown.Link{Kind: "markdown", Target: "new.md", Line: 4})
			}
			if !slices.Equal(got[p], want) {
				t.Fatalf("%s: links of %s = %v, want %v", when, p, got[p], want)
			}
			d, _ := x.Lookup(p)
			if title := fmt.Sprintf("Note %d v%d", i, gen); d.Title != title {
				t.Fatalf("%s: %s has title %q, want %q", when, p, d.Title, title)
			}
		}
	}
	gens := map[int]int{}
	for i := range n {
		gens[i] = 0
	}
	check("after the load", gens)
	copies("after the load", map[string]int{"Shared Target": 1, "other.md": 1})

	// An edit keeps the text of the links it keeps.
	for i := 0; i < n; i += 3 {
		put(fmt.Sprintf("n%d.md", i), note(i, 1)+"[y](new.md)\n", true)
		gens[i] = 1
	}
	for i := 1; i < n; i += 3 {
		x.Remove(fmt.Sprintf("n%d.md", i))
		delete(gens, i)
	}
	check("after edits", gens)
	copies("after edits", map[string]int{"Shared Target": 1, "other.md": 1, "own 0": 1})

	x.Compact()
	check("after compacting", gens)
	// Compact also merges the copies that single puts made.
	copies("after compacting", map[string]int{"Shared Target": 1, "other.md": 1, "new.md": 1, "Note 0 v0": 0, "own 298": 0})
}

// A string whose hash another took first is written apart, and both
// read back.
func TestPutSharedCollide(t *testing.T) {
	x := NewIndex()
	x.shared = newTextSet(0)
	a := x.putShared("a")
	// As if b had a's hash.
	x.shared.refs[maphash.String(x.shared.seed, "b")] = a
	b := x.putShared("b")
	if x.text.get(a) != "a" || x.text.get(b) != "b" {
		t.Fatalf("read back %q and %q, want a and b", x.text.get(a), x.text.get(b))
	}
	if again := x.putShared("a"); again != a {
		t.Fatalf("a again at %v, want %v", again, a)
	}
}

// A link takes 12 bytes and gives back its line and kind.
func TestStoredLink(t *testing.T) {
	if n := unsafe.Sizeof(storedLink{}); n != 12 {
		t.Errorf("a stored link takes %d bytes, want 12", n)
	}
	for _, line := range []int32{0, 1, 1 << 30, math.MaxInt32} {
		for _, md := range []bool{false, true} {
			l := newStoredLink(textRef{off: 3, n: 4}, line, md)
			if l.line() != line || l.md() != md || l.target != (textRef{off: 3, n: 4}) {
				t.Errorf("link at line %d, md %v: read back line %d, md %v, target %v", line, md, l.line(), l.md(), l.target)
			}
		}
	}
}

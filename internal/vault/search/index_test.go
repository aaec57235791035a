package search

import (
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
	for k := range x.linkKeys {
		held = append(held, k)
	}
	for k := range x.noteKeys {
		held = append(held, k)
	}
	held = append(held, x.names...)
	d, ok := x.Lookup("a/garden.md")
	if !ok {
		t.Fatal("note not in the index")
	}
	held = append(held, d.Title)
	x.LinksByKey("river walk", func(_ string, l markdown.Link) { held = append(held, l.Target) })
	if len(x.linkKeys) < 3 || d.Title != "garden plan" {
		t.Fatalf("link keys %v, title %q: the note was not indexed as expected", x.linkKeys, d.Title)
	}
	for _, s := range held {
		if within(s, content) {
			t.Errorf("the index keeps %q as a part of the note's text", s)
		}
	}
}

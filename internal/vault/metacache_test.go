package vault

import (
	"fmt"
	"testing"
	"time"
	"unsafe"
)

// The parsed-Markdown cache stays within its bound, keeps answering for the
// notes it holds, and holds copies rather than slices of the notes' text.
func TestMetaCacheBoundedAndDetached(t *testing.T) {
	var c metaCache
	note := func(i int) *Note {
		content := fmt.Sprintf("---\ntags: [plan]\n---\n# Title %d\n\ntext #inline%d\n", i, i)
		n := &Note{Path: fmt.Sprintf("f/n-%d.md", i), Content: content, Version: versionOf([]byte(content)), Modified: time.Now()}
		fillMarkdown(n)
		return n
	}
	for i := range maxMetaCache + 100 {
		c.store(note(i))
	}
	if len(c.m) != maxMetaCache {
		t.Fatalf("cache holds %d entries, want %d", len(c.m), maxMetaCache)
	}
	last := note(maxMetaCache + 99)
	got := &Note{Path: last.Path, Content: last.Content, Version: last.Version}
	if !c.fill(got) {
		t.Fatal("the note stored last is not in the cache")
	}
	if got.Title != last.Title || fmt.Sprint(got.Tags) != fmt.Sprint(last.Tags) {
		t.Errorf("cached title %q tags %v, parsed %q %v", got.Title, got.Tags, last.Title, last.Tags)
	}
	within := func(s, text string) bool {
		p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return len(s) > 0 && p >= b && p < b+uintptr(len(text))
	}
	c.store(last)
	m := c.m[last.Path]
	if within(m.title, last.Content) {
		t.Error("the cached title is a slice of the note's text")
	}
	for _, tag := range m.tags {
		if within(tag, last.Content) {
			t.Errorf("the cached tag %q is a slice of the note's text", tag)
		}
	}
	changed := &Note{Path: last.Path, Content: last.Content + "more", Version: versionOf([]byte(last.Content + "more"))}
	if c.fill(changed) {
		t.Error("the cache answered for a changed version")
	}
}

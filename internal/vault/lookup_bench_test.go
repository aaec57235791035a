package vault

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkLookupIndexedPath is the lookup every fetch by path makes: with
// the index built, a note's exact path is answered from the index.
func BenchmarkLookupIndexedPath(b *testing.B) {
	v, _ := newIndexedVault(b, map[string]string{"Projects/Deep/Folder/Plan.md": "# Plan\n"}, nil)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := v.Lookup(ctx, "Projects/Deep/Folder/Plan.md"); err != nil || n.Path != "Projects/Deep/Folder/Plan.md" {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkLookupIndexedPathScoped is the same for an app that may not
// see private notes, which must know what the note says of that; the
// note was written long enough ago for what is known of it to count.
func BenchmarkLookupIndexedPathScoped(b *testing.B) {
	later := func(o *Options) { o.Now = func() time.Time { return time.Now().Add(time.Hour) } }
	v, _ := newIndexedVault(b, map[string]string{"Projects/Deep/Folder/Plan.md": "# Plan\n"}, later)
	app := scopedCtx(b, "", "", false)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := v.Lookup(app, "Projects/Deep/Folder/Plan.md"); err != nil || n.Path != "Projects/Deep/Folder/Plan.md" {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkLookupMiss is a name that names none of 5,000 notes: the miss
// compares it with every title and file name to offer the close ones.
func BenchmarkLookupMiss(b *testing.B) {
	files := map[string]string{}
	for i := range 5000 {
		name := fmt.Sprintf("Area %d/Meeting notes on topic %d", i%50, i)
		files[name+".md"] = "# " + name[strings.IndexByte(name, '/')+1:] + " and more words\n"
	}
	v, _ := newIndexedVault(b, files, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Lookup(ctx, "Meeting notes on topic 12x"); code(b, err) != CodeNotFound {
			b.Fatal(err)
		}
	}
}

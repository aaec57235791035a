package vault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// benchWords is a small vocabulary, so that common words are in almost
// every note, as the worst case for postings.
var benchWords = strings.Fields(`the garden plan meeting notes project budget review travel recipe book idea
	research summary draft release server backup network design family health running music photo
	weekly goals reading list invoice client contract kitchen bicycle mountain river winter summer
	canción corazón mañana reunión proyecto jardín cocina 会議の記録 项目预算 学习计划`)

// benchVault writes n notes of about 3.5 kB under a temporary folder.
func benchVault(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range n {
		var s strings.Builder
		fmt.Fprintf(&s, "---\ntags: [%s]\n---\n# Note %d\n\n", benchWords[r.IntN(len(benchWords))], i)
		for range 8 {
			fmt.Fprintf(&s, "## %s\n\n", benchWords[r.IntN(len(benchWords))])
			for range 50 {
				s.WriteString(benchWords[r.IntN(len(benchWords))])
				s.WriteByte(' ')
			}
			fmt.Fprintf(&s, "[[Note %d]]\n\n", r.IntN(n))
		}
		p := filepath.Join(dir, "f"+strconv.Itoa(i%50), "Note "+strconv.Itoa(i)+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func openBench(b *testing.B, dir string) *Vault {
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	if err := v.WaitIndexed(ctx); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkIndexSearch measures searches over 10,000 notes through the
// index, reading and matching only the notes shown.
func BenchmarkIndexSearch(b *testing.B) {
	v := openBench(b, benchVault(b, 10000))
	for _, q := range []string{"garden", "budget review", `"weekly goals"`, "cancion", "会議", "datab", "tag:music", "river mountain winter"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Search(ctx, Query{Text: q}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexBuild measures building the index of 10,000 notes and
// reports the heap it keeps.
func BenchmarkIndexBuild(b *testing.B) {
	dir := benchVault(b, 10000)
	v, err := Open(Options{Dir: dir, FreeSpace: plenty})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ix := &indexer{v: v, stop: make(chan struct{}), watched: map[string]bool{}}
	var x *search.Index
	for b.Loop() {
		x, _ = ix.build(ctx)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	runtime.KeepAlive(x)
	x = nil
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(before.HeapAlloc-after.HeapAlloc)/1e6, "MB-index")
	_ = x
}

// BenchmarkIndexSearchSyntax measures the Obsidian operators beyond words
// over the same 10,000 notes. A query decided on the notes themselves
// reads candidates newest first until a page is full; "🚀", found in no
// note, reads them all.
func BenchmarkIndexSearchSyntax(b *testing.B) {
	v := openBench(b, benchVault(b, 10000))
	for _, q := range []string{"garden OR river", "garden -budget", "tag:music -garden", "[tags:music]", "path:f1/ garden", `file:"Note 12"`, "- [ ]", "🚀"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Search(ctx, Query{Text: q}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package markdown

import (
	"fmt"
	"strings"
	"testing"
)

var benchNote = "---\ntitle: Bench\ntags: [a, b]\n---\n# Bench\n" +
	strings.Repeat("Some ordinary text with a [[link]] and #tag, café and naïve words.\n", 200)

func BenchmarkLinks(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Links(benchNote)
	}
}

// manyKeys is a note whose frontmatter holds n distinct keys.
func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("---\n")
	for i := range n {
		fmt.Fprintf(&b, "k%d: %d\n", i, i)
	}
	b.WriteString("---\nbody\n")
	return b.String()
}

// BenchmarkFrontmatterKeys shows the cost growing with the number of keys:
// it must stay linear, and a block past the limits is refused cheaply.
func BenchmarkFrontmatterKeys(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		note := manyKeys(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(note)))
			for b.Loop() {
				ParseFrontmatter(note)
			}
		})
	}
}

// BenchmarkFrontmatterKeysPastLimit is the dearest block that is refused:
// short keys, just under the byte limit, past the key limit.
func BenchmarkFrontmatterKeysPastLimit(b *testing.B) {
	var k strings.Builder
	k.WriteString("---\n")
	for i := 0; k.Len() < MaxFrontmatterBytes-16; i++ {
		fmt.Fprintf(&k, "%x: 1\n", i)
	}
	k.WriteString("---\n")
	note := k.String()
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		ParseFrontmatter(note)
	}
}

// BenchmarkParseFrontmatter is the frontmatter of most notes: a quoted
// title, a short list of tags and a date, read on every cold fetch.
func BenchmarkParseFrontmatter(b *testing.B) {
	note := "---\ntitle: \"Índice Ya Borrador Diseño\"\ntags: [dev/go, reading]\ncreated: 2020-08-05T01:47:00\n---\n" + benchNote
	b.ReportAllocs()
	for b.Loop() {
		ParseFrontmatter(note)
	}
}

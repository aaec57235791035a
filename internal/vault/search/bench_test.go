package search

import (
	"strings"
	"testing"
)

var benchNote = "---\ntitle: Bench\ntags: [a, b]\n---\n# Bench\n" +
	strings.Repeat("Some ordinary text with a [[link]] and #tag, café and naïve words.\n", 200)

func BenchmarkFold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Fold(benchNote)
	}
}

func BenchmarkMatch(b *testing.B) {
	q := ParseQuery(`ordinary "naive words" cafe`)
	b.ReportAllocs()
	for b.Loop() {
		Match(q, "notes/bench.md", "Bench", benchNote)
	}
}

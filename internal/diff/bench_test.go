package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The benchmarks bound the cost of the largest notes the console shows:
// 1 MB against 1 MB, from the usual edit to inputs built to be slow.

func mb(line func(i int) string) string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func benchLines(b *testing.B, a, c string) {
	b.SetBytes(int64(len(a) + len(c)))
	b.ReportAllocs()
	var d []Line
	for b.Loop() {
		d = Lines(a, c)
	}
	added, removed := Count(d)
	b.ReportMetric(float64(added+removed), "changed-lines")
}

// A 1 MB note with a tenth of its lines rewritten, in runs.
func BenchmarkLines1MBPartRewrite(b *testing.B) {
	a := mb(func(i int) string { return fmt.Sprintf("line %d of the note, with some words", i) })
	c := mb(func(i int) string {
		if i%100 < 10 {
			return fmt.Sprintf("line %d rewritten", i)
		}
		return fmt.Sprintf("line %d of the note, with some words", i)
	})
	benchLines(b, a, c)
}

// Two unrelated 1 MB notes: nothing in common.
func BenchmarkLines1MBAllNew(b *testing.B) {
	benchLines(b, mb(func(i int) string { return fmt.Sprint("a", i) }), mb(func(i int) string { return fmt.Sprint("b", i) }))
}

// The worst case: short lines from a few values in random order, so that
// every line has many possible partners and the differences are many.
func BenchmarkLines1MBRandomFewValues(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	gen := func(int) string { return string(rune('a' + r.IntN(4))) }
	benchLines(b, mb(gen), mb(gen))
}

// Blank lines and a repeated line interleaved with a rewrite: many equal
// lines in both texts, few of them at the same place.
func BenchmarkLines1MBInterleaved(b *testing.B) {
	a := mb(func(i int) string {
		if i%2 == 0 {
			return ""
		}
		return fmt.Sprint("old ", i)
	})
	c := mb(func(i int) string {
		if i%3 == 0 {
			return ""
		}
		return fmt.Sprint("new ", i)
	})
	benchLines(b, a, c)
}

// One 1 MB line with a word changed every few thousand.
func BenchmarkLines1MBOneLine(b *testing.B) {
	var a, c strings.Builder
	for i := 0; a.Len() < 1<<20; i++ {
		fmt.Fprintf(&a, "w%d ", i)
		if i%3000 == 0 {
			fmt.Fprintf(&c, "X%d ", i)
		} else {
			fmt.Fprintf(&c, "w%d ", i)
		}
	}
	benchLines(b, a.String(), c.String())
}

//go:build unix

package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
)

// rankWords is a small vocabulary, so that common words are in almost
// every note, as the worst case for postings; the first ones make titles.
var rankWords = strings.Fields(`señal idea prueba año garden plan meeting notes project budget review travel
	recipe book research summary draft release server backup network design family health running music
	weekly goals reading list invoice client contract kitchen river mountain winter canción reunión 会議の記録`)

// rankIndex is an index of n notes of about 3.5 kB, titled with two to
// four words.
func rankIndex(n int) *Index {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	x := NewIndex()
	for i := range n {
		var title []string
		for range 2 + r.IntN(3) {
			title = append(title, rankWords[r.IntN(12)])
		}
		var s strings.Builder
		fmt.Fprintf(&s, "---\ntitle: %s\ntags: [%s]\n---\n# %s\n\n", strings.Join(title, " "), rankWords[r.IntN(len(rankWords))], strings.Join(title, " "))
		for range 8 {
			fmt.Fprintf(&s, "## %s\n\n", rankWords[r.IntN(len(rankWords))])
			for range 50 {
				s.WriteString(rankWords[r.IntN(len(rankWords))])
				s.WriteByte(' ')
			}
			s.WriteString("\n\n")
		}
		p := fmt.Sprintf("f%d/Note %d.md", i%50, i)
		x.Put(Analyse(p, s.String(), int64(i), int64(s.Len())), false)
	}
	x.SortTerms()
	return x
}

// BenchmarkRank measures ranking a query's candidates in the index of
// 10,000 notes and taking the best eleven, without reading any note: the
// part of a search that scoring costs.
func BenchmarkRank(b *testing.B) {
	x := rankIndex(10000)
	for _, q := range []string{"garden", "budget review", "señal idea", "prueba año", `"weekly goals"`, "river mountain winter", "rese"} {
		pq := ParseQuery(q)
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			var r0, r1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			for b.Loop() {
				x.Top(x.Candidates(pq), 11)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			ns := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
			b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
		})
	}
}

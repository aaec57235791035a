package testkit

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// ProseNote is a note of about 3 KB for write benchmarks: the heading
// title, a "counter: 0" line the benchmark edits, and lines of common
// words drawn from a generator seeded with seed and stream, so that each
// (seed, stream) gives the same note every run.
func ProseNote(title string, seed, stream uint64) string {
	r := rand.New(rand.NewPCG(seed, stream))
	words := []string{"plan", "meeting", "garden", "river", "notes", "design", "budget", "travel", "review", "idea", "draft", "call"}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\ncounter: 0\n\n", title)
	for b.Len() < 3000 {
		for range 12 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("\n")
	}
	return b.String()
}

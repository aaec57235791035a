package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// BenchmarkRecordReads is one flush of tools.ReadRecorder under a model's
// fetches: a batch of 1,000 reads, each of a different note. "new" counts
// notes not yet read in their hour (every row an insert), "existing" the
// same notes again (every row an update). The context can be cancelled,
// as the recorder's is.
func BenchmarkRecordReads(b *testing.B) {
	const batch = 1000
	// A vault of ten thousand notes: "new" reads a tenth of them a batch,
	// then moves to the next hour, so that its inserts land all over the
	// indexes as a day of reads does.
	const notes = 10 * batch
	paths := make([]string, notes)
	for i := range paths {
		paths[i] = fmt.Sprintf("projects/area-%02d/note-%05d.md", i%37, i)
	}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, bc := range []struct {
		name string
		// at sets the reads of the i-th batch in place.
		at func(reads []Read, i int)
	}{
		{"new", func(reads []Read, i int) {
			first := (i % (notes / batch)) * batch
			t := start.Add(time.Duration(i/(notes/batch))*time.Hour + time.Duration(i%(notes/batch))*time.Second)
			for j := range reads {
				reads[j].Path, reads[j].Time = paths[first+j], t
			}
		}},
		{"existing", func(reads []Read, i int) {
			t := start.Add(time.Duration(i%3600) * time.Millisecond)
			for j := range reads {
				reads[j].Time = t
			}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := Open(context.Background(), b.TempDir(), Options{Now: testkit.NewClock(start).Now, MaxReadRows: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reads := make([]Read, batch)
			for j := range reads {
				reads[j] = Read{App: "claude", Path: paths[j], Tool: "fetch", Time: start, Count: 1}
			}
			// The rows "existing" updates are there before it starts.
			if err := s.RecordReads(ctx, reads); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testkit.CPUTime()
			for i := range b.N {
				bc.at(reads, i+1)
				if err := s.RecordReads(ctx, reads); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testkit.CPUTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

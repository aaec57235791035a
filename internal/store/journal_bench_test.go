package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// BenchmarkRecordWrite8 is the journal row of every write, eight writers
// at once as in the edit_note x8 row of make bench: each waits for its
// row to be durable.
func BenchmarkRecordWrite8(b *testing.B) {
	s := openStore(b, b.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(4) // GOMAXPROCS 2 on the reference machine: 8 writers
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if err := s.RecordWrite(ctx, JournalEntry{App: "app", Tool: "edit_note", Path: fmt.Sprintf("bench/edit-%d.md", i%8),
				OldVersion: "0123456789ab", NewVersion: "ba9876543210", Result: ResultOK}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

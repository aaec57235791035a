package store

import (
	"context"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestLatestWrites: every path's latest successful entry, chosen as
// LastWrites chooses it, in one answer, or a partial one past the limit;
// JournalWrites counts what this Store recorded.
func TestLatestWrites(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	t0 := c.Now()
	record := func(path, version, result string, at time.Time) {
		t.Helper()
		if err := s.RecordWrite(ctx, JournalEntry{Time: at, App: "app", Tool: "edit_note", Path: path, NewVersion: version, Result: result}); err != nil {
			t.Fatal(err)
		}
	}
	if got, complete, err := s.LatestWrites(ctx, 10); err != nil || !complete || len(got) != 0 || s.JournalWrites() != 0 {
		t.Fatalf("empty journal: %v %v %v, %d written", got, complete, err, s.JournalWrites())
	}
	record("a.md", "a1", ResultOK, t0)
	record("a.md", "a2", ResultOK, t0.Add(2*time.Second))
	record("a.md", "a-old", ResultOK, t0.Add(time.Second)) // recorded late, older time
	record("a.md", "", "note_changed", t0.Add(3*time.Second))
	record("b.md", "", "disk_low", t0)
	record("c.md", "c1", ResultOK, t0)
	record("c.md", "c2", ResultOK, t0) // same time: the later record wins
	got, complete, err := s.LatestWrites(ctx, 10)
	if err != nil || !complete {
		t.Fatalf("LatestWrites: complete %v, %v", complete, err)
	}
	want, err := s.LastWrites(ctx, []string{"a.md", "b.md", "c.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.md"] != want["a.md"] || got["c.md"] != want["c.md"] || got["a.md"].NewVersion != "a2" {
		t.Errorf("LatestWrites = %+v, want %+v", got, want)
	}
	if got, complete, err := s.LatestWrites(ctx, 1); err != nil || complete || len(got) != 2 {
		t.Errorf("past the limit: %d paths, complete %v, %v; want a partial answer", len(got), complete, err)
	}
	if n := s.JournalWrites(); n != 7 {
		t.Errorf("JournalWrites = %d, want 7", n)
	}
}

package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestOwnerActions(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	dir := t.TempDir()
	s := openStore(t, dir, c)
	ctx := context.Background()
	if err := s.RecordOwnerAction(ctx, OwnerAction{Target: "x", Writer: "owner (cli)"}); !errors.Is(err, ErrInvalidJournalEntry) {
		t.Errorf("no action: %v", err)
	}
	if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked token", Target: "x"}); !errors.Is(err, ErrInvalidJournalEntry) {
		t.Errorf("no writer: %v", err)
	}
	if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked token", Target: "laptop", Writer: "owner (cli)"}); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	mid := c.Now()
	if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked app", Target: "client-1", Writer: "owner (console)"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.OwnerActions(ctx, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Target != "client-1" || got[1].Target != "laptop" || !got[0].Time.Equal(mid) ||
		got[0].Writer != "owner (console)" || got[1].Writer != "owner (cli)" {
		t.Errorf("OwnerActions = %+v, want newest first", got)
	}
	if got, _ := s.OwnerActions(ctx, mid, 10); len(got) != 1 || got[0].Action != "revoked app" {
		t.Errorf("since %v: %+v", mid, got)
	}
	if got, _ := s.OwnerActions(ctx, time.Time{}, 1); len(got) != 1 {
		t.Errorf("limit 1: %+v", got)
	}
	// They are not journal entries.
	if j, err := s.Journal(ctx, time.Time{}, 0); err != nil || len(j) != 0 {
		t.Errorf("Journal = %+v, %v", j, err)
	}
}

// Owner actions are kept OwnerActionsKept after they happened, measured by
// the store's clock, then pruned.
func TestPruneOwnerActions(t *testing.T) {
	c := testkit.NewClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	for _, target := range []string{"old", "edge", "new"} {
		if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked token", Target: target, Writer: "owner (cli)"}); err != nil {
			t.Fatal(err)
		}
		c.Advance(24 * time.Hour)
	}
	// Now is exactly OwnerActionsKept after "edge".
	c.Advance(OwnerActionsKept - 2*24*time.Hour)
	if n, err := s.PruneOwnerActions(ctx, OwnerActionsKept); err != nil || n != 1 {
		t.Fatalf("prune a year after the first: %d, %v; want 1", n, err)
	}
	got, _ := s.OwnerActions(ctx, time.Time{}, 10)
	if len(got) != 2 || got[0].Target != "new" || got[1].Target != "edge" {
		t.Fatalf("after pruning: %+v; want new and edge", got)
	}
	if n, err := s.PruneOwnerActions(ctx, OwnerActionsKept); err != nil || n != 0 {
		t.Fatalf("prune again: %d, %v; want 0", n, err)
	}
	c.Advance(time.Nanosecond)
	if n, _ := s.PruneOwnerActions(ctx, OwnerActionsKept); n != 1 {
		t.Fatalf("a moment later: pruned %d; want edge", n)
	}
}

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
	if err := s.RecordOwnerAction(ctx, OwnerAction{Target: "x"}); !errors.Is(err, ErrInvalidJournalEntry) {
		t.Errorf("no action: %v", err)
	}
	if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked token", Target: "laptop"}); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	mid := c.Now()
	if err := s.RecordOwnerAction(ctx, OwnerAction{Action: "revoked app", Target: "client-1"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.OwnerActions(ctx, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Target != "client-1" || got[1].Target != "laptop" || !got[0].Time.Equal(mid) {
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

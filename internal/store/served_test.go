package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestServed(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	dir := t.TempDir()
	s := openStore(t, dir, c)
	if _, err := s.LastServed(ctx); !errors.Is(err, ErrNotServed) {
		t.Fatalf("fresh state: %v, want ErrNotServed", err)
	}
	if err := s.RecordServed(ctx, Served{Vault: "/srv/a", PublicURL: "http://127.0.0.1:8080"}); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	if err := s.RecordServed(ctx, Served{Vault: "/srv/b", PublicURL: "https://notes.example.org"}); err != nil {
		t.Fatal(err)
	}
	// Another process (cortex admin) reads the latest start.
	other := openStore(t, dir, c)
	got, err := other.LastServed(ctx)
	want := Served{Vault: "/srv/b", PublicURL: "https://notes.example.org", Started: testkit.Epoch.Add(time.Hour)}
	if err != nil || got.Vault != want.Vault || got.PublicURL != want.PublicURL || !got.Started.Equal(want.Started) {
		t.Errorf("LastServed = %+v, %v; want %+v", got, err, want)
	}
	if err := s.RecordServed(ctx, Served{Vault: "", PublicURL: "x"}); err == nil {
		t.Error("an empty vault was recorded")
	}
}

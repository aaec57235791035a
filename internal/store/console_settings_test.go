package store

import (
	"context"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The time zone is UTC until set, the last one set wins, and it outlives
// the process.
func TestTimeZone(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	dir := t.TempDir()
	ctx := context.Background()
	s := openStore(t, dir, c)
	if got, err := s.TimeZone(ctx); err != nil || got != "UTC" {
		t.Fatalf("TimeZone before any is set = %q, %v; want UTC", got, err)
	}
	for _, name := range []string{"Europe/Paris", "America/New_York"} {
		if err := s.SetTimeZone(ctx, name); err != nil {
			t.Fatal(err)
		}
		if got, err := s.TimeZone(ctx); err != nil || got != name {
			t.Fatalf("TimeZone after setting %s = %q, %v", name, got, err)
		}
	}
	s.Close()
	s = openStore(t, dir, c)
	if got, err := s.TimeZone(ctx); err != nil || got != "America/New_York" {
		t.Fatalf("TimeZone after reopening = %q, %v; want America/New_York", got, err)
	}
	var rows int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM console_settings`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("console_settings holds %d rows (%v), want 1", rows, err)
	}
}

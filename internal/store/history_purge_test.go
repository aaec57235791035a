package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// PurgeWriter forgets what one writer wrote since a time: its versions,
// and other writers' versions that repeat a text it added then; texts
// from before stay, and each path keeps whether its note is live.
func TestHistoryPurgeWriter(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	h := openHistory(t, t.TempDir(), c, HistoryOptions{})
	before := func(items ...Keep) {
		for _, it := range items {
			keep(t, h, it)
		}
	}
	before(
		Keep{Path: "a.md", Content: []byte("a1"), Writer: "external", Kind: KindExternal},
		Keep{Path: "old.md", Content: []byte("old text"), Writer: "claude", Kind: KindCreate},
		Keep{Path: "d.md", Content: []byte("d by chatgpt"), Writer: "chatgpt", Kind: KindCreate},
	)
	c.Advance(time.Hour)
	since := c.Now()
	c.Advance(time.Minute)
	before(
		Keep{Path: "a.md", Content: []byte("a2 by claude"), Writer: "claude", Kind: KindEdit},
		Keep{Path: "s.md", Content: []byte("password: hunter2"), Writer: "claude", Kind: KindCreate},
		Keep{Path: "old.md", Content: []byte("old text, edited"), Writer: "claude", Kind: KindEdit},
		Keep{Path: "d.md", Writer: "claude", Kind: KindDelete, Gone: true},
	)
	c.Advance(time.Minute)
	before(
		Keep{Path: "a.md", Content: []byte("a3"), Writer: "chatgpt", Kind: KindEdit},
		Keep{Path: "s.md", Writer: "chatgpt", Kind: KindDelete, Gone: true}, // repeats claude's text
	)
	secret := versionsOf(t, h, "s.md")[0].Version

	n, err := h.PurgeWriter(ctx, "claude", since)
	if err != nil || n != 5 {
		t.Fatalf("PurgeWriter = %d, %v; want 5", n, err)
	}
	type row struct {
		writer string
		gone   bool
	}
	for path, want := range map[string][]row{
		"a.md":   {{"chatgpt", false}, {"external", false}},
		"s.md":   nil,
		"old.md": {{"claude", false}}, // from before: stays, still live
		"d.md":   {{"chatgpt", true}}, // its delete went: still deleted
	} {
		vs := versionsOf(t, h, path)
		if len(vs) != len(want) {
			t.Fatalf("%s: %+v, want %v", path, vs, want)
		}
		for i, v := range vs {
			if v.Writer != want[i].writer || v.Gone != want[i].gone {
				t.Fatalf("%s: %+v, want %v", path, vs, want)
			}
		}
	}
	if _, _, err := h.FindAnywhere(ctx, secret); !errors.Is(err, ErrNoHistory) {
		t.Fatalf("the secret is still stored: %v", err)
	}
	if _, err := h.PurgeWriter(ctx, "claude", since); !errors.Is(err, ErrNoHistory) {
		t.Fatalf("second purge: %v, want ErrNoHistory", err)
	}
}

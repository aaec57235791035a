package tools

import (
	"context"
	"errors"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
)

// countingJournal counts the lookups that reach the journal.
type countingJournal struct {
	memJournal
	lookups int
	// during, when set, runs inside the next lookup (to race a write).
	during func()
}

func (j *countingJournal) LastWrites(ctx context.Context, paths []string) (map[string]store.JournalEntry, error) {
	j.lookups++
	if f := j.during; f != nil {
		j.during = nil
		f()
	}
	return j.memJournal.LastWrites(ctx, paths)
}

func TestCacheJournal(t *testing.T) {
	ctx := context.Background()
	ok := func(p, v, app string) store.JournalEntry {
		return store.JournalEntry{Path: p, NewVersion: v, App: app, Result: store.ResultOK}
	}
	writer := func(t *testing.T, j Journal, p string) string {
		t.Helper()
		m, err := j.LastWrites(ctx, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if e, found := m[p]; found {
			return e.App + "@" + e.NewVersion
		}
		return "-"
	}
	tests := []struct {
		name        string
		run         func(t *testing.T, under *countingJournal, c Journal)
		want        string
		wantLookups int
	}{
		{"unknown note asks once", func(t *testing.T, _ *countingJournal, c Journal) {
			writer(t, c, "a.md")
		}, "-", 1},
		{"known note asks once", func(t *testing.T, u *countingJournal, c Journal) {
			u.RecordWrite(ctx, ok("a.md", "v1", "app1"))
			writer(t, c, "a.md")
		}, "app1@v1", 1},
		{"a write through the cache needs no lookup", func(t *testing.T, _ *countingJournal, c Journal) {
			writer(t, c, "a.md")
			c.RecordWrite(ctx, ok("a.md", "v2", "app2"))
		}, "app2@v2", 1},
		{"a failed attempt keeps the last writer", func(t *testing.T, _ *countingJournal, c Journal) {
			c.RecordWrite(ctx, ok("a.md", "v1", "app1"))
			c.RecordWrite(ctx, store.JournalEntry{Path: "a.md", App: "app2", Result: "note_changed"})
		}, "app1@v1", 0},
		{"a journal failure forgets the note", func(t *testing.T, u *countingJournal, c Journal) {
			c.RecordWrite(ctx, ok("a.md", "v1", "app1"))
			u.fail = errors.New("disk full")
			if err := c.RecordWrite(ctx, ok("a.md", "v2", "app2")); err == nil {
				t.Fatal("want the journal's error")
			}
			u.fail = nil
		}, "app1@v1", 1},
		{"a lookup racing a write does not store the old answer", func(t *testing.T, u *countingJournal, c Journal) {
			u.RecordWrite(ctx, ok("a.md", "v1", "app1"))
			u.during = func() { c.RecordWrite(ctx, ok("b.md", "v1", "app1")) }
			writer(t, c, "a.md")
		}, "app1@v1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &countingJournal{}
			c := CacheJournal(u)
			tt.run(t, u, c)
			if got := writer(t, c, "a.md"); got != tt.want {
				t.Errorf("last writer = %s, want %s", got, tt.want)
			}
			if u.lookups != tt.wantLookups {
				t.Errorf("journal lookups = %d, want %d", u.lookups, tt.wantLookups)
			}
		})
	}
}

func TestCacheJournalIsBounded(t *testing.T) {
	u := &countingJournal{}
	c := CacheJournal(u).(*cachedJournal)
	for i := range maxCachedWriters + 10 {
		c.RecordWrite(context.Background(), store.JournalEntry{Path: string(rune('a'+i%26)) + string(rune(i)), Result: store.ResultOK})
	}
	if n := len(c.last); n != maxCachedWriters {
		t.Errorf("cache holds %d notes, want %d: full, not started over", n, maxCachedWriters)
	}
	last := string(rune('a'+(maxCachedWriters+9)%26)) + string(rune(maxCachedWriters+9))
	if _, ok := c.last[last]; !ok {
		t.Error("the note written last is not in the cache")
	}
}

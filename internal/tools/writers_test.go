package tools

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
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

// TestCacheJournalSeesOtherWriters: entries written to the journal by
// anything but the cache — the console's undo in this process, `cortex
// admin undo` in another — are what the next lookup after a request's
// credential check answers, not the note's writer remembered before.
func TestCacheJournalSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := store.Open(ctx, dir, store.Options{}) // as cortex admin would
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	secret, _, err := st.CreateToken(ctx, "cli")
	if err != nil {
		t.Fatal(err)
	}
	request := func() { // what every authenticated request does first
		t.Helper()
		if _, err := st.VerifyToken(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	writer := func(c Journal, p string) string {
		t.Helper()
		m, err := c.LastWrites(ctx, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := m[p]; ok {
			return e.App + "@" + e.NewVersion
		}
		return "-"
	}
	ok := func(p, v, app string) store.JournalEntry {
		return store.JournalEntry{Path: p, Tool: "edit_note", NewVersion: v, App: app, Result: store.ResultOK}
	}
	c := CacheJournal(st)
	request()
	if err := c.RecordWrite(ctx, ok("a.md", "v1", "claude")); err != nil {
		t.Fatal(err)
	}
	request()
	if got := writer(c, "a.md"); got != "claude@v1" {
		t.Fatalf("after the tool's write: %s", got)
	}
	if got := writer(c, "b.md"); got != "-" {
		t.Fatalf("an unwritten note: %s", got)
	}

	// Another process undoes the change and writes b.md; this process's
	// console writes c.md straight to the store.
	for _, e := range []store.JournalEntry{ok("a.md", "v0", "owner (cli)"), ok("b.md", "w1", "owner (cli)")} {
		if err := other.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordWrite(ctx, ok("c.md", "x1", "owner (console)")); err != nil {
		t.Fatal(err)
	}
	if got := writer(c, "c.md"); got != "owner (console)@x1" { // a miss: asked of the store
		t.Fatalf("c.md: %s", got)
	}
	request()
	for p, want := range map[string]string{"a.md": "owner (cli)@v0", "b.md": "owner (cli)@w1", "c.md": "owner (console)@x1"} {
		if got := writer(c, p); got != want {
			t.Errorf("%s after the next request: %s, want %s", p, got, want)
		}
	}
	// A failed write elsewhere changes nothing.
	if err := other.RecordWrite(ctx, store.JournalEntry{Path: "a.md", Tool: "edit_note", App: "gpt", Result: "stale_version"}); err != nil {
		t.Fatal(err)
	}
	request()
	if got := writer(c, "a.md"); got != "owner (cli)@v0" {
		t.Errorf("after a failed write elsewhere: %s", got)
	}
}

// countingStore counts the lookups of single notes' writers; with fail,
// it records nothing.
type countingStore struct {
	*store.Store
	lookups atomic.Int64
	fail    atomic.Bool
}

func (c *countingStore) RecordWrite(ctx context.Context, e store.JournalEntry) error {
	if c.fail.Load() {
		return errJournalDown
	}
	return c.Store.RecordWrite(ctx, e)
}

func (c *countingStore) LastWrites(ctx context.Context, paths []string) (map[string]store.JournalEntry, error) {
	c.lookups.Add(1)
	return c.Store.LastWrites(ctx, paths)
}

// TestCacheJournalKnowsEveryWriter: after the first request the cache
// knows the last writer of every note, those with none included, without
// a query per note: it loads every path's latest entry once, and then
// follows the entries added by its own writes, by this process's console
// and by other processes. A note whose journaling failed is asked for.
func TestCacheJournalKnowsEveryWriter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := store.Open(ctx, dir, store.Options{}) // as cortex admin would
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	secret, _, err := st.CreateToken(ctx, "cli")
	if err != nil {
		t.Fatal(err)
	}
	request := func() {
		t.Helper()
		if _, err := st.VerifyToken(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	ok := func(p, v, app string) store.JournalEntry {
		return store.JournalEntry{Path: p, Tool: "edit_note", NewVersion: v, App: app, Result: store.ResultOK}
	}
	for _, e := range []store.JournalEntry{ok("a.md", "v1", "claude"), ok("a.md", "v2", "gpt"), ok("b.md", "w1", "claude")} {
		if err := st.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	cs := &countingStore{Store: st}
	c := CacheJournal(cs)
	request()
	writers := func(paths ...string) string {
		t.Helper()
		m, err := c.LastWrites(ctx, paths)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range paths {
			if e, ok := m[p]; ok {
				out = append(out, e.App+"@"+e.NewVersion)
			} else {
				out = append(out, "-")
			}
		}
		return strings.Join(out, " ")
	}
	if got := writers("a.md", "b.md", "c.md", "d.md"); got != "gpt@v2 claude@w1 - -" {
		t.Errorf("at start: %s", got)
	}
	if err := c.RecordWrite(ctx, ok("c.md", "x1", "claude")); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordWrite(ctx, ok("d.md", "y1", "owner (console)")); err != nil { // this process, not through the cache
		t.Fatal(err)
	}
	if got := writers("c.md", "d.md"); got != "claude@x1 owner (console)@y1" {
		t.Errorf("after this process's writes: %s", got)
	}
	if err := other.RecordWrite(ctx, ok("a.md", "v3", "owner (cli)")); err != nil {
		t.Fatal(err)
	}
	request()
	if got := writers("a.md", "e.md"); got != "owner (cli)@v3 -" {
		t.Errorf("after another process's write: %s", got)
	}
	if n := cs.lookups.Load(); n != 0 {
		t.Errorf("%d lookups of single notes; want none", n)
	}
	// A write whose journaling failed may or may not be in the journal.
	cs.fail.Store(true)
	if err := c.RecordWrite(ctx, ok("e.md", "z1", "claude")); err == nil {
		t.Fatal("recording in a failing journal succeeded")
	}
	if got := writers("e.md"); got != "-" || cs.lookups.Load() != 1 {
		t.Errorf("a note whose journaling failed: %s after %d lookups; want it asked of the journal", got, cs.lookups.Load())
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestRecordWrite(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	tests := []struct {
		name  string
		entry JournalEntry
		want  error
	}{
		{"ok", JournalEntry{App: "claude", Tool: "write_note", Path: "a.md", NewVersion: "v1", Result: ResultOK}, nil},
		{"failure recorded", JournalEntry{App: "claude", Tool: "edit_note", Path: "a.md", OldVersion: "v0", Result: "note_changed"}, nil},
		{"no path", JournalEntry{Tool: "write_note", Result: ResultOK}, ErrInvalidJournalEntry},
		{"no result", JournalEntry{Tool: "write_note", Path: "a.md"}, ErrInvalidJournalEntry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.RecordWrite(ctx, tt.entry); !errors.Is(err, tt.want) {
				t.Errorf("RecordWrite = %v, want %v", err, tt.want)
			}
		})
	}
	got, err := s.Journal(ctx, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("journal has %d entries, want 2", len(got))
	}
	// Zero Time means now; newest first (equal times: last recorded first).
	if got[0].Result != "note_changed" || got[0].OldVersion != "v0" || !got[0].Time.Equal(c.Now()) || got[0].ID == 0 {
		t.Errorf("entry = %+v", got[0])
	}
}

func TestLastWrites(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	t0 := c.Now()
	record := func(path, version, result string, at time.Time) {
		t.Helper()
		e := JournalEntry{Time: at, App: "app", Tool: "write_note", Path: path, NewVersion: version, Result: result}
		if err := s.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	record("a.md", "a1", ResultOK, t0)
	record("a.md", "a2", ResultOK, t0.Add(2*time.Second))
	record("a.md", "a-old", ResultOK, t0.Add(time.Second)) // recorded late, older time
	record("a.md", "", "note_changed", t0.Add(3*time.Second))
	record("b.md", "", "disk_low", t0)
	record("c.md", "c1", ResultOK, t0)
	record("c.md", "c2", ResultOK, t0) // same time: the later record wins

	got, err := s.LastWrites(ctx, []string{"a.md", "b.md", "c.md", "missing.md", "a.md", "A.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.md": "a2", "c.md": "c2"}
	if len(got) != len(want) {
		t.Errorf("LastWrites returned %d paths, want %d: %+v", len(got), len(want), got)
	}
	for path, v := range want {
		if got[path].NewVersion != v || got[path].Path != path {
			t.Errorf("LastWrites[%s] = %+v, want version %s", path, got[path], v)
		}
	}

	if empty, err := s.LastWrites(ctx, nil); err != nil || len(empty) != 0 {
		t.Errorf("LastWrites(nil) = %v, %v", empty, err)
	}
}

func TestLastWritesManyPaths(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	var paths []string
	for i := range 500 {
		p := fmt.Sprintf("notes/%03d 'quoted\" é.md", i)
		paths = append(paths, p)
		if i%2 == 0 {
			if err := s.RecordWrite(ctx, JournalEntry{Path: p, NewVersion: fmt.Sprint(i), Result: ResultOK}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := s.LastWrites(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Errorf("LastWrites found %d paths, want 250", len(got))
	}
	if got[paths[498]].NewVersion != "498" {
		t.Errorf("LastWrites[%q] = %+v", paths[498], got[paths[498]])
	}
}

// TestLastWritesUsesIndex guards the query plan: a scan of the journal here
// would grow with every write ever made.
func TestLastWritesUsesIndex(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN
		SELECT j.id FROM (SELECT DISTINCT value AS path FROM json_each(?)) AS p
		JOIN journal AS j ON j.id = (
			SELECT id FROM journal WHERE path = p.path AND result = 'ok'
			ORDER BY time DESC, id DESC LIMIT 1)`, `["a.md"]`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "journal_ok_path_time") {
		t.Errorf("query plan does not use the path index:\n%s", text)
	}
	for _, line := range plan {
		if line == "SCAN j" || strings.HasPrefix(line, "SCAN journal") {
			t.Errorf("query plan scans the journal:\n%s", text)
		}
	}
}

func TestJournalAndPrune(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	t0 := c.Now()
	for i := range 10 {
		e := JournalEntry{Time: t0.Add(time.Duration(i) * time.Hour), Path: fmt.Sprintf("%d.md", i), Result: ResultOK}
		if err := s.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(es []JournalEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.Path)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name  string
		since time.Time
		limit int
		want  string
	}{
		{"all", time.Time{}, 0, "9.md,8.md,7.md,6.md,5.md,4.md,3.md,2.md,1.md,0.md"},
		{"limit", time.Time{}, 3, "9.md,8.md,7.md"},
		{"since inclusive", t0.Add(7 * time.Hour), 0, "9.md,8.md,7.md"},
		{"since and limit", t0.Add(2 * time.Hour), 2, "9.md,8.md"},
		{"future", t0.Add(100 * time.Hour), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Journal(ctx, tt.since, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if paths(got) != tt.want {
				t.Errorf("Journal = %s, want %s", paths(got), tt.want)
			}
		})
	}

	n, err := s.PruneJournal(ctx, t0.Add(4*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("PruneJournal removed %d, want 4", n)
	}
	got, _ := s.Journal(ctx, time.Time{}, 0)
	if paths(got) != "9.md,8.md,7.md,6.md,5.md,4.md" {
		t.Errorf("after prune: %s", paths(got))
	}
	if n, err := s.PruneJournal(ctx, t0.Add(4*time.Hour)); err != nil || n != 0 {
		t.Errorf("second prune = %d, %v", n, err)
	}
}

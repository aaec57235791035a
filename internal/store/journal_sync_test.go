package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The journal's rows are written on connections of their own with
// synchronous=NORMAL, and RecordWrite syncs the WAL itself before it
// returns; everything else in cortex.db stays FULL.
func TestJournalConnectionsSyncThemselves(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		db   *sql.DB
		want string
	}{{"journal", s.journal, "1"}, {"state", s.db, "2"}} {
		var got string
		if err := c.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s connections: synchronous = %s, want %s", c.name, got, c.want)
		}
	}
}

// RecordWrite returns only once a sync begun after its commit has
// returned, and fails when that sync fails.
func TestRecordWriteSyncsItsCommit(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	orig := s.journalWAL.sync
	var began []uint64
	var fail error
	s.journalWAL.sync = func() error {
		began = append(began, s.journalWAL.committed.Load())
		if fail != nil {
			return fail
		}
		return orig()
	}
	e := JournalEntry{App: "app", Tool: "edit_note", Path: "a.md", OldVersion: "1", NewVersion: "2", Result: ResultOK}
	if err := s.RecordWrite(ctx, e); err != nil {
		t.Fatal(err)
	}
	if len(began) != 1 || began[0] != 1 {
		t.Fatalf("syncs began after commits %v, want [1]", began)
	}
	fail = errors.New("disk gone")
	if err := s.RecordWrite(ctx, e); !errors.Is(err, fail) {
		t.Fatalf("RecordWrite with a failing sync = %v, want it to fail", err)
	}
}

// Writes whose commits land while a sync runs share the next sync: four
// RecordWrites, the first one's sync held until the three others have
// committed, cost two syncs, the second begun after all four commits.
func TestRecordWritesShareSyncs(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	gate := gateSyncs(s.journalWAL)
	results := make(chan error, 4)
	write := func(i int) {
		results <- s.RecordWrite(ctx, JournalEntry{App: "app", Tool: "create_note", Path: fmt.Sprintf("n%d.md", i), NewVersion: "v", Result: ResultOK})
	}
	go write(0)
	<-gate.held
	for i := 1; i < 4; i++ {
		go write(i)
	}
	for s.journalWAL.committed.Load() < 4 {
		runtime.Gosched()
	}
	close(gate.hold)
	for range 4 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	if began := gate.starts(); len(began) != 2 || began[0] != 1 || began[1] != 4 {
		t.Fatalf("syncs began after commits %v; want [1 4]: one for the first write, one shared by the three", began)
	}
	got, err := s.JournalAfter(ctx, 0, 10)
	if err != nil || len(got) != 4 {
		t.Fatalf("journal holds %d rows (%v), want 4", len(got), err)
	}
}

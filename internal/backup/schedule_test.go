package backup

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// fakeClock is the schedule's clock: the test moves it and fires the
// timer the schedule asked for.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	waits chan time.Duration
	fire  chan time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	c.waits <- d
	return c.fire
}

// advance moves the clock by d and fires the pending timer.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	t := c.t
	c.mu.Unlock()
	c.fire <- t
}

func TestScheduleOnTimeKeptAndSkippedUnderTheFloor(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	st, err := store.Open(context.Background(), stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := &fakeClock{t: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), waits: make(chan time.Duration), fire: make(chan time.Time)}
	var free atomic.Uint64
	free.Store(100 << 30)
	var logs bytes.Buffer
	var logMu sync.Mutex
	dir := filepath.Join(t.TempDir(), "backups")
	s := &Schedule{Dir: dir, Every: 24 * time.Hour, Keep: 3, Record: st, After: clock.after,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
		Backup: Options{Vault: vaultDir, State: stateDir, Version: "test", Now: clock.now,
			MinFree: 1 << 30, FreeSpace: func(string) (uint64, error) { return free.Load(), nil }}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()

	// No backup recorded yet: the first is taken at once, then one a day.
	for day := range 5 {
		if d := <-clock.waits; d != 24*time.Hour {
			t.Fatalf("day %d: the schedule waits %v, want 24h", day, d)
		}
		last, err := st.LastBackup(context.Background())
		if err != nil || last.Result != store.BackupOK || !last.Time.Equal(clock.now()) {
			t.Fatalf("day %d: last backup %+v %v, want ok at %v", day, last, err, clock.now())
		}
		if want := "cortex-backup-" + clock.now().Format("20060102T150405Z") + Ext; filepath.Base(last.Detail) != want {
			t.Errorf("day %d: backup %s, want %s", day, last.Detail, want)
		}
		clock.advance(24 * time.Hour)
	}
	// Kept to --backup-keep: the newest three.
	<-clock.waits
	list, _ := List(dir)
	if len(list) != 3 || !strings.Contains(list[2].Path, clock.now().Format("20060102T150405Z")) {
		t.Fatalf("kept %v, want the newest 3", list)
	}

	// The disk is nearly full: the backup is skipped, logged and recorded,
	// and nothing is written.
	free.Store(1<<30 + 4<<10) // less than the last backup needs above the floor
	clock.advance(24 * time.Hour)
	if d := <-clock.waits; d != 24*time.Hour {
		t.Fatalf("after a skip the schedule waits %v, want 24h", d)
	}
	last, err := st.LastBackup(context.Background())
	if err != nil || last.Result != store.BackupSkipped || !strings.Contains(last.Detail, "free-space floor") {
		t.Fatalf("last backup %+v %v, want skipped", last, err)
	}
	if after, _ := List(dir); len(after) != 3 || after[2] != list[2] {
		t.Errorf("a skipped backup changed the folder: %v", after)
	}
	logMu.Lock()
	if !strings.Contains(logs.String(), "level=WARN msg=\"scheduled backup skipped\"") {
		t.Errorf("no warning logged:\n%s", logs.String())
	}
	logMu.Unlock()
	cancel()
	<-done
}

// A restarted server waits out the rest of the interval after the last
// recorded backup instead of taking one at once.
func TestScheduleResumesAfterTheLastBackup(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	st, err := store.Open(context.Background(), stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := &fakeClock{t: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), waits: make(chan time.Duration), fire: make(chan time.Time)}
	if err := st.RecordBackup(context.Background(), store.BackupRun{Time: clock.now().Add(-20 * time.Hour), Result: store.BackupOK, Detail: "x"}); err != nil {
		t.Fatal(err)
	}
	s := &Schedule{Dir: filepath.Join(t.TempDir(), "b"), Every: 24 * time.Hour, Keep: 7, Record: st, After: clock.after,
		Backup: Options{Vault: vaultDir, State: stateDir, Now: clock.now}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	if d := <-clock.waits; d != 4*time.Hour {
		t.Errorf("waits %v after a backup 20h ago, want 4h", d)
	}
	cancel()
	<-done
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

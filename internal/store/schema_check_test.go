package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A statement that would run for ever on a copy ends when its context
// does: the driver interrupts SQLite. CheckCopy relies on it for its time
// limit, whatever a copy holds that the schema check did not catch.
func TestCopyStatementEndsAtDeadline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "loop.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE VIEW loop AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := readOnly(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var n int64
	err = ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM loop`).Scan(&n)
	if err == nil {
		t.Fatal("an endless count finished")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("interrupted after %s", took)
	}
}

// CheckCopy stopped by its time limit says so, not that the copy is
// damaged.
func TestCheckCopyTimeLimit(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	stop := errors.New("time limit")
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Nanosecond, stop)
	defer cancel()
	<-ctx.Done()
	_, err = CheckCopy(ctx, FileName, filepath.Join(dir, FileName))
	if !errors.Is(err, stop) || errors.Is(err, ErrCopyDamaged) {
		t.Errorf("CheckCopy past its deadline: %v", err)
	}
}

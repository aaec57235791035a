package main

import (
	"bytes"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cortex-mcp/cortex/internal/config"
)

// lowerGC lowers the collector's target for a while and puts back what
// was there, and never raises a lower one or turns on one that is off.
func TestLowerGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	for _, tt := range []struct{ before, during int }{{100, 50}, {200, 50}, {30, 30}, {50, 50}, {-1, -1}} {
		debug.SetGCPercent(tt.before)
		restore := lowerGC(50)
		if got := debug.SetGCPercent(tt.during); got != tt.during {
			t.Errorf("GOGC %d: %d while lowered, want %d", tt.before, got, tt.during)
		}
		restore()
		if got := debug.SetGCPercent(100); got != tt.before {
			t.Errorf("GOGC %d: %d after, want it back", tt.before, got)
		}
	}
}

// The vault's hook holds the collector at bulkReadGCPercent for the pass
// and puts the default back when it ends.
func TestBulkReadLowersGCForThePass(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	done := bulkRead()
	during := debug.SetGCPercent(bulkReadGCPercent)
	done()
	after := debug.SetGCPercent(100)
	if during != bulkReadGCPercent || after != 100 {
		t.Errorf("GOGC %d during the pass and %d after, want %d and 100", during, after, bulkReadGCPercent)
	}
}

// Passes that overlap (the index build and the history's first pass) hold
// the lower target until the last of them ends, whichever ends first.
func TestBulkReadOverlappingPasses(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	first, second := bulkRead(), bulkRead()
	first()
	if got := debug.SetGCPercent(bulkReadGCPercent); got != bulkReadGCPercent {
		t.Errorf("GOGC %d while the second pass still runs, want %d", got, bulkReadGCPercent)
	}
	second()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after both passes, want 100", got)
	}
}

// The limit chosen is the runtime's, and the start-up log says what it is
// and where it came from; off leaves the runtime's own.
func TestSetMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	noenv := func(string) string { return "" }
	sys := fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("268435456\n")}}
	tests := []struct {
		name    string
		setting int64
		want    int64
		log     string
	}{
		{"flag", 96 << 20, 96 << 20, `limit=96MiB from=--memory-limit`},
		{"auto in a container", config.MemoryLimitAuto, 192 << 20, `limit=192MiB from="3/4 of the cgroup's 256MiB, at most 256MiB, lowered to follow the live heap"`},
		{"off", 0, math.MaxInt64, `limit=none from="--memory-limit off: Go's default"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			var buf bytes.Buffer
			setMemoryLimit(tt.setting, noenv, sys, slog.New(slog.NewTextHandler(&buf, nil)))
			if got := debug.SetMemoryLimit(-1); got != tt.want {
				t.Errorf("runtime limit %d, want %d", got, tt.want)
			}
			if !strings.Contains(buf.String(), `msg="memory limit" `+tt.log) || strings.Count(buf.String(), "\n") != 1 {
				t.Errorf("log:\n%s\nwant one line with %s", buf.String(), tt.log)
			}
		})
	}
}

package main

import (
	"runtime/debug"
	"testing"
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

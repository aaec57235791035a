package vault

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

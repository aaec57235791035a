package main

import (
	"bytes"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
)

// While a pass reads every note the limit stays at the ceiling; once the
// passes end it follows the live heap, logged once at info; a stopped
// follower sets nothing more.
func TestLiveFollower(t *testing.T) {
	const mib = 1 << 20
	live, passes := int64(0), 0
	var sets []int64
	var buf bytes.Buffer
	f := &liveFollower{ceiling: 256 * mib, live: func() int64 { return live }, passes: func() int { return passes },
		set: func(n int64) int64 { sets = append(sets, n); return 0 }, log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	steps := []struct {
		live   int64
		passes int
		want   int64 // 0: nothing set
	}{
		{1 * mib, 0, config.LiveMemoryLimit(1*mib, 256*mib)}, // before the index build: not logged at info
		{5 * mib, 1, 256 * mib},
		{30 * mib, 1, 0}, // unchanged
		{24 * mib, 0, config.LiveMemoryLimit(24*mib, 256*mib)},
		{24 * mib, 0, 0},
		{40 * mib, 0, config.LiveMemoryLimit(40*mib, 256*mib)},
		{60 * mib, 1, 256 * mib}, // another pass
		{30 * mib, 0, config.LiveMemoryLimit(30*mib, 256*mib)},
		{500 * mib, 0, 256 * mib}, // the ceiling holds
	}
	for i, s := range steps {
		live, passes, sets = s.live, s.passes, nil
		if !f.afterGC() {
			t.Fatalf("step %d: the follower stopped by itself", i)
		}
		if s.want == 0 && len(sets) != 0 || s.want != 0 && (len(sets) != 1 || sets[0] != s.want) {
			t.Errorf("step %d (live %s, passes %d): set %v, want %s", i, config.FormatSize(s.live), s.passes, sets, config.FormatSize(s.want))
		}
	}
	if n := strings.Count(buf.String(), "level=INFO"); n != 1 || !strings.Contains(buf.String(), `msg="memory limit follows the live heap" limit=44MiB live=24MiB`) {
		t.Errorf("log:\n%s\nwant the first limit after the passes at info, the rest at debug", buf.String())
	}
	sets = nil
	f.stop()
	if len(sets) != 1 || sets[0] != 256*mib {
		t.Errorf("stopping set %v, want the ceiling back", sets)
	}
	sets = nil
	if f.afterGC() || len(sets) != 0 {
		t.Errorf("a stopped follower went on (set %v)", sets)
	}
	none := &liveFollower{live: func() int64 { return 0 }, passes: func() int { return 1 }, set: func(n int64) int64 { sets = append(sets, n); return 0 }, log: slog.New(slog.DiscardHandler)}
	if none.afterGC(); len(sets) != 1 || sets[0] != math.MaxInt64 {
		t.Errorf("no ceiling, during a pass: set %v, want no limit", sets)
	}
}

// armAfterGC's function runs after a collection, again after the next
// one, and no more once it returns false.
func TestArmAfterGC(t *testing.T) {
	calls := make(chan int, 10)
	n := 0
	armAfterGC(func() bool { n++; calls <- n; return n < 2 })
	for want := 1; want <= 2; want++ {
		runtime.GC()
		select {
		case got := <-calls:
			if got != want {
				t.Fatalf("call %d, want %d", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no call %d after a collection", want)
		}
	}
	runtime.GC()
	runtime.GC()
	select {
	case got := <-calls:
		t.Fatalf("call %d after the function said stop", got)
	default:
	}
}

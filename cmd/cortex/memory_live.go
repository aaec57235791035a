package main

import (
	"cmp"
	"context"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/cortex-mcp/cortex/internal/config"
)

// liveFollower lowers the soft memory limit cortex chose itself to follow
// the live heap (config.LiveMemoryLimit) after every collection, and
// holds it at the ceiling while a pass reads every note (the index build,
// the history's first pass), whose garbage would otherwise keep the
// collector running. Without it the process sat at about twice its heap
// after traffic (127 MB of RSS on a 10k-note vault) on any machine with
// 1 GB or more.
type liveFollower struct {
	ceiling int64             // the limit chosen at start; 0 for none
	live    func() int64      // the live heap after the last collection
	passes  func() int        // passes reading every note under way
	set     func(int64) int64 // debug.SetMemoryLimit
	log     *slog.Logger
	mu      sync.Mutex
	stopped bool
	read    bool // a pass has run: the limit after it is logged at info
	logged  bool
	limit   int64
}

// followLiveHeap starts following the live heap with the limit chosen at
// start as the ceiling; the function it returns stops it.
func followLiveHeap(ceiling int64, log *slog.Logger) (stop func()) {
	f := &liveFollower{ceiling: ceiling, live: liveHeap, passes: bulkPasses, set: debug.SetMemoryLimit, log: log}
	armAfterGC(f.afterGC)
	return f.stop
}

// afterGC sets the limit for the live heap now; false once stopped.
func (f *liveFollower) afterGC() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	limit := f.ceiling
	if limit <= 0 {
		limit = math.MaxInt64
	}
	reading := f.passes() > 0
	f.read = f.read || reading
	if !reading {
		limit = config.LiveMemoryLimit(f.live(), f.ceiling)
	}
	if limit == f.limit {
		return true
	}
	f.limit = limit
	f.set(limit)
	if !reading {
		lvl := slog.LevelDebug
		if f.read && !f.logged {
			lvl, f.logged = slog.LevelInfo, true
		}
		f.log.Log(context.Background(), lvl, "memory limit follows the live heap", "limit", config.FormatSize(limit), "live", config.FormatSize(f.live()))
	}
	return true
}

// stop ends the following and puts the ceiling back, the limit chosen at
// start.
func (f *liveFollower) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	if f.limit != 0 {
		f.set(cmp.Or(f.ceiling, math.MaxInt64))
	}
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64)) // #nosec G115 -- capped just before
}

// gcSentinel is garbage whose cleanup tells that a collection ran. It
// holds a pointer so that it is never one of the tiny objects the runtime
// batches, whose cleanups may never run.
type gcSentinel struct {
	_ *int
	_ [16]byte
}

// armAfterGC calls fn after each collection for as long as it returns true.
func armAfterGC(fn func() bool) {
	s := &gcSentinel{}
	runtime.AddCleanup(s, func(fn func() bool) {
		if fn() {
			armAfterGC(fn)
		}
	}, fn)
}

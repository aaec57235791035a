package main

import (
	"io/fs"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"

	"github.com/cortex-mcp/cortex/internal/config"
)

// setMemoryLimit sets the soft memory limit the setting asks for
// (config.ChooseMemoryLimit, reading the machine under sys) and logs the
// limit in force, once, at start: what an operator checks first when
// cortex uses more or less memory than they expected.
func setMemoryLimit(setting int64, getenv func(string) string, sys fs.FS, log *slog.Logger) config.MemoryLimitChoice {
	choice := config.ChooseMemoryLimit(setting, getenv("GOMEMLIMIT"), sys)
	if choice.Bytes > 0 {
		debug.SetMemoryLimit(choice.Bytes)
	}
	limit := "none"
	if n := debug.SetMemoryLimit(-1); n != math.MaxInt64 {
		limit = config.FormatSize(n)
	}
	log.Info("memory limit", "limit", limit, "from", choice.From)
	return choice
}

// bulkReadGCPercent is the collector's target while the vault reads every
// note once (the index build, the history's copy of the notes as found).
// Such a pass drops each note as soon as it is read, so with Go's default
// (100) the heap reaches twice what the index holds before anything is
// collected: at 50k notes that peak, not the index, was the process's
// largest size.
const bulkReadGCPercent = 50

// bulkRead is the vault's BulkRead hook, the process's answer to a pass
// that reads every note: the collector works harder during it, and what
// the pass read is handed back to the system when it ends rather than kept
// as idle heap. Passes may overlap (the index build and the history's
// first pass): the first lowers the target and the last puts it back.
func bulkRead() (done func()) {
	bulk.Lock()
	defer bulk.Unlock()
	if bulk.passes == 0 {
		bulk.restore = lowerGC(bulkReadGCPercent)
	}
	bulk.passes++
	var once sync.Once
	return func() {
		once.Do(func() {
			bulk.Lock()
			defer bulk.Unlock()
			if bulk.passes--; bulk.passes == 0 {
				debug.FreeOSMemory()
				bulk.restore()
			}
		})
	}
}

// bulk counts the passes under way.
var bulk struct {
	sync.Mutex
	passes  int
	restore func()
}

// bulkPasses is the number of passes under way.
func bulkPasses() int {
	bulk.Lock()
	defer bulk.Unlock()
	return bulk.passes
}

// lowerGC sets the collector's target to percent unless it is lower
// already (or off, GOGC=off), and returns what puts it back.
func lowerGC(percent int) (restore func()) {
	old := debug.SetGCPercent(percent)
	if old >= 0 && old <= percent || old < 0 {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

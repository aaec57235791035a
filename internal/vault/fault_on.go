//go:build faultinject && linux

package vault

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// This file exists only in test builds made with -tags faultinject. The
// environment variable CORTEX_FAULT lists, comma separated, the points at
// which the process kills itself with SIGKILL (as a crash or power cut
// would stop it), "no-renameat2" to make moves take their fallback, and
// "fast-ticks" to run the periodic work often, and "no-history" to write
// notes without keeping history (for measuring what history costs).

func faultSet(name string) bool {
	for f := range strings.SplitSeq(os.Getenv("CORTEX_FAULT"), ",") {
		if f == name {
			return true
		}
	}
	return false
}

func fault(point string) {
	if faultSet(point) {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal arrives; nothing after this point runs
	}
}

// faultScale runs the periodic work 600 times as often with "fast-ticks":
// the reconcile every 50 ms, the sweep every 100 ms.
func faultScale(d time.Duration) time.Duration {
	if faultSet("fast-ticks") {
		return d / 600
	}
	return d
}

func faultNoRenameat2() bool { return faultSet("no-renameat2") }

func faultNoHistory() bool { return faultSet("no-history") }

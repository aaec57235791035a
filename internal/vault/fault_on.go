//go:build faultinject && linux

package vault

import (
	"os"
	"strings"
	"syscall"
)

// This file exists only in test builds made with -tags faultinject. The
// environment variable CORTEX_FAULT lists, comma separated, the points at
// which the process kills itself with SIGKILL (as a crash or power cut
// would stop it) and "no-renameat2" to make moves take their fallback.

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

func faultNoRenameat2() bool { return faultSet("no-renameat2") }

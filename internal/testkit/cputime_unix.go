//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, user and system: on a
// machine shared with other work, a benchmark's CPU per op moves far less
// than its wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build !unix

package testkit

import "time"

// CPUTime is unknown here; benchmarks then report 0 CPU per op.
func CPUTime() time.Duration { return 0 }

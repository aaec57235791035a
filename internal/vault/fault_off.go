//go:build !(faultinject && linux)

package vault

import "time"

// fault is a point where a test build (-tags faultinject) may kill the
// process; in every other build it does nothing and costs nothing.
func fault(string) {}

// faultScale lets a test build run the periodic work (reconcile, sweep)
// at a fraction of its period.
func faultScale(d time.Duration) time.Duration { return d }

// faultNoRenameat2 lets a test build take the fallback path of moves.
func faultNoRenameat2() bool { return false }

// faultNoHistory lets a test build write notes without keeping history, to
// measure what history costs.
func faultNoHistory() bool { return false }

package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// benchOnly skips t unless the harness was asked for (make bench sets
// CORTEX_BENCH=1): its rows take minutes.
func benchOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("CORTEX_BENCH") != "1" {
		t.Skip("set CORTEX_BENCH=1 (make bench) to run the benchmark harness")
	}
}

// intEnv is the first number of the knob name, or def.
func intEnv(name string, def int) int { return intsEnv(name, []int{def})[0] }

// vaultRuns generates the synthetic vault of n notes afresh for each of
// runs runs (the same seed, so the same notes), hands it to measure, and
// returns its size in bytes.
func vaultRuns(t *testing.T, n, runs int, measure func(run int, vault string, paths []string)) int64 {
	t.Helper()
	var size int64
	for run := range runs {
		vault := filepath.Join(t.TempDir(), "vault")
		paths, total, err := generate(vault, n, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		size = total
		measure(run, vault, paths)
	}
	return size
}

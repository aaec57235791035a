package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole `serve` run to the file
// named by CORTEX_CPU_PROFILE, for measuring the real binary under load
// (internal/bench sets it with CORTEX_BENCH_PROFILE). Unset, which is the
// default, it does nothing. The returned function ends the profile.
func startProfile(getenv func(string) string) (stop func(), err error) {
	path := getenv("CORTEX_CPU_PROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path) // #nosec G304 -- a path the operator chose for the profile
	if err != nil {
		return nil, fmt.Errorf("CORTEX_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CORTEX_CPU_PROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// Package profile writes a CPU profile of the running server to a file the
// operator names, for measuring the real binary under load (`make bench`
// sets it through CORTEX_BENCH_PROFILE). It is off unless asked for, opens
// only that one file, and never reads the vault or the state.
package profile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start begins a CPU profile written to path; the returned function ends it
// and closes the file. An empty path does nothing.
func Start(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path) // #nosec G304 -- a path the operator chose for the profile
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

package main

import (
	"runtime/debug"
)

// gcPercent is the garbage collector's target for `cortex serve` when the
// operator has not set GOGC. Most of what a request allocates is the MCP
// SDK's short-lived JSON decoding buffers (about 32 KB for each value it
// decodes, 275–400 KB per fetch), so the collector's work follows how often
// it runs: at 200 instead of Go's 100 a fetch costs about 30 % fewer
// instructions (docs/performance.md), for a heap that may grow to three
// times what is live instead of twice before it is collected.
const gcPercent = 200

// gcDefaults applies gcPercent unless GOGC is set, so the operator's
// setting (or GOGC=100 to go back) always wins. It returns the setting in
// force, for the log.
func gcDefaults(getenv func(string) string) string {
	if v := getenv("GOGC"); v != "" {
		return v
	}
	debug.SetGCPercent(gcPercent)
	return "200 (default; set GOGC to change)"
}

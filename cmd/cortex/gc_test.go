package main

import (
	"runtime/debug"
	"testing"
)

func TestGCDefaults(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })

	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	gcDefaults(getenv)
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC unset: percent = %d, want %d", got, gcPercent)
	}

	env["GOGC"] = "100"
	gcDefaults(getenv)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100 set by the operator: percent = %d, want it left at 100", got)
	}
}

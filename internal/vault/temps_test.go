package vault

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The periodic sweep removes temp files older than a minute by the
// vault's clock, in every folder it writes to, and spares younger ones,
// which may belong to a write running now.
func TestSweepRemovesTempsOlderThanAMinute(t *testing.T) {
	clock := testkit.NewClock(time.Time{})
	v, dir := newTestVault(t, nil, func(o *Options) { o.Now = clock.Now })
	files := map[string]time.Duration{ // path → age by the clock
		".cortex-tmp-old":        2 * time.Minute,
		"a/b/.cortex-tmp-old":    61 * time.Second,
		".trash/.cortex-tmp-old": time.Hour,
		".cortex-tmp-young":      59 * time.Second,
		"a/.cortex-tmp-now":      0,
		"a/note.md":              time.Hour,
		".git/.cortex-tmp-keep":  time.Hour,
	}
	for p, age := range files {
		writeFiles(t, dir, map[string]string{p: "x"})
		at := clock.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(dir, p), at, at); err != nil {
			t.Fatal(err)
		}
	}
	v.sweepTemps()
	for p, age := range files {
		want := age < strayAge || p == "a/note.md" || p == ".git/.cortex-tmp-keep"
		if got := exists(dir, p); got != want {
			t.Errorf("%s (%v old) exists = %v, want %v", p, age, got, want)
		}
	}
	// A minute on, the young one is stray too.
	clock.Advance(time.Minute)
	v.sweepTemps()
	if exists(dir, ".cortex-tmp-young") || !exists(dir, "a/note.md") {
		t.Error("the second sweep kept the temp file that had aged, or removed a note")
	}
}

package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// scopeRead is the scoped token's read patterns: five of the synthetic
// vault's ten top folders, about half its notes.
var scopeRead = strings.Join(topics[:5], ",")

// TestBenchScope is `make bench`'s row for what a scoped token costs
// (issue 19): fetch and search over HTTP with a token reading half the
// top folders beside a whole-vault token, one call in flight, in a vault
// of CORTEX_BENCH_SCOPE_NOTES notes (default 10,000) of which every
// 500th is private by its frontmatter. Each of CORTEX_BENCH_RUNS runs
// (default 5) starts a fresh server, so that the parsed-note cache is
// cold, waits for the index and the history's first pass, and measures
// the two tokens in turns (the order alternating from run to run) for
// CORTEX_BENCH_SECONDS each (default 2). Like a model, each fetch asks
// for a note not fetched before in that run, one the scoped token sees,
// and the two tokens fetch different halves of those notes. It prints the
// medians and the median of the per-run ratios. It only runs when
// CORTEX_BENCH=1; CORTEX_BENCH_PROFILE=DIR has each server write a CPU
// profile there.
func TestBenchScope(t *testing.T) {
	benchOnly(t)
	n := intEnv("CORTEX_BENCH_SCOPE_NOTES", 10000)
	runs := intEnv("CORTEX_BENCH_RUNS", 5)
	d := time.Duration(intEnv("CORTEX_BENCH_SECONDS", 2)) * time.Second
	bin := testkit.Cortex(t)
	vault := filepath.Join(t.TempDir(), "vault")
	paths, total, err := generate(vault, n, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	seen := privateNotes(t, vault, paths)
	// Halves of the notes the scoped token sees, spread over the vault.
	halves := [2][]string{}
	for i, p := range seen {
		halves[i%2] = append(halves[i%2], p)
	}
	rows := map[string][]float64{}
	for run := range runs {
		s := startServer(t, bin, vault)
		select {
		case <-s.kept:
		case <-time.After(5 * time.Minute):
			t.Fatalf("the history did not report keeping the notes within 5 minutes")
		}
		tok, err := exec.Command(bin, "admin", "token", "create", "scoped", "--read", scopeRead, "--state", s.state).Output()
		if err != nil {
			t.Fatalf("scoped token: %v", err)
		}
		scoped := *s
		scoped.token = strings.TrimSpace(string(tok))
		tokens := map[string]*server{"whole": s, "scoped": &scoped}
		order := []string{"whole", "scoped"}
		if run%2 == 1 {
			order = []string{"scoped", "whole"}
		}
		got := map[string]opResult{}
		for _, name := range []string{"fetch", "search"} {
			for i, who := range order {
				notes := halves[(i+run)%2]
				op := ops(notes, nil)[name]
				if name == "fetch" {
					// Each note once, in an order spread over the folders
					// (104729 is prime).
					op = func(ctx context.Context, c *client, w, i int) error {
						return c.tool(ctx, "fetch", map[string]any{"id": notes[i*104729%len(notes)]}, nil)
					}
				}
				r, err := tokens[who].run(context.Background(), version2025, 1, d, op)
				if err != nil {
					t.Fatalf("%s x1 %s: %v", name, who, err)
				}
				if calls := int(r.perSec * d.Seconds()); name == "fetch" && calls > len(notes) {
					t.Logf("%d fetches of %d notes: some were fetched twice; lower CORTEX_BENCH_SECONDS", calls, len(notes))
				}
				key := fmt.Sprintf("%s x1 %s token", name, who)
				got[key] = r
				rows[key+" p50 (ms)"] = append(rows[key+" p50 (ms)"], ms(r.p50))
				rows[key+" CPU/call (ms)"] = append(rows[key+" CPU/call (ms)"], ms(r.cpuPer))
			}
			w, sc := got[name+" x1 whole token"], got[name+" x1 scoped token"]
			rows[name+" x1 scoped / whole p50 (%)"] = append(rows[name+" x1 scoped / whole p50 (%)"], 100*float64(sc.p50)/float64(w.p50))
			if w.cpuPer > 0 {
				rows[name+" x1 scoped / whole CPU/call (%)"] = append(rows[name+" x1 scoped / whole CPU/call (%)"], 100*float64(sc.cpuPer)/float64(w.cpuPer))
			}
		}
		_ = s.Stop()
	}
	printTable(n, total, runs, rows)
}

// privateNotes marks every 500th note private in its frontmatter, dates
// every file an hour back (a vault in use was not all written a second
// ago, and notes that new have their privacy checked on disk again), and
// returns the notes the scoped token sees.
func privateNotes(t *testing.T, vault string, paths []string) []string {
	t.Helper()
	var seen []string
	for i, p := range paths {
		if i%500 == 7 {
			full := filepath.Join(vault, filepath.FromSlash(p))
			data, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(strings.Replace(string(data), "---\n", "---\nprivate: true\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if top, _, _ := strings.Cut(p, "/"); strings.Contains(","+scopeRead+",", ","+top+",") {
			seen = append(seen, p)
		}
	}
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(vault, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

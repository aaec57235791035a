package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestBench is the harness behind `make bench`. It only runs when
// CORTEX_BENCH=1; CORTEX_BENCH_SIZES (default 1000,10000,50000),
// CORTEX_BENCH_RUNS (default 3) and CORTEX_BENCH_SECONDS (per measurement,
// default 3) tune it; CORTEX_BENCH_OPS (e.g. fetch,search) measures only
// those tools, and CORTEX_BENCH_PROFILE=DIR has each server write a CPU
// profile of its run into DIR. Every figure printed is the median of the runs.
func TestBench(t *testing.T) {
	benchOnly(t)
	sizes := intsEnv("CORTEX_BENCH_SIZES", []int{1000, 10000, 50000})
	runs := intEnv("CORTEX_BENCH_RUNS", 3)
	secs := intEnv("CORTEX_BENCH_SECONDS", 3)
	bin := testkit.Cortex(t)

	// Idle memory on an empty vault.
	var idleEmpty []float64
	for range runs {
		s := startServer(t, bin, t.TempDir())
		_, rss, _ := s.procStat()
		idleEmpty = append(idleEmpty, float64(rss))
		_ = s.Stop()
	}
	fmt.Printf("\nRSS idle on an empty vault: %.1f MB (median of %d)\n", median(idleEmpty)/1e6, runs)

	for _, n := range sizes {
		rows := map[string][]float64{}
		vaultBytes := vaultRuns(t, n, runs, func(run int, vault string, paths []string) {
			measureOnce(t, bin, vault, paths, time.Duration(secs)*time.Second, rows, run)
		})
		printTable(n, vaultBytes, runs, rows)
	}
}

func measureOnce(t *testing.T, bin, vault string, paths []string, d time.Duration, rows map[string][]float64, run int) {
	ctx := context.Background()
	// Per-worker notes for edit_note, written before start like any vault content.
	if err := os.MkdirAll(filepath.Join(vault, "bench"), 0o755); err != nil {
		t.Fatal(err)
	}
	for w := range 8 {
		if err := os.WriteFile(filepath.Join(vault, "bench", fmt.Sprintf("edit-%d.md", w)), []byte("# Edit\n\ncounter 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startServer(t, bin, vault)
	defer s.Stop()
	waitStarted(t, s, rows, run)

	c := newClient(s.URL, s.token, 1, version2025)
	if err := c.initialize(ctx); err != nil {
		t.Fatal(err)
	}
	versions := make([]string, 8)
	for w := range versions {
		var out struct {
			Metadata struct {
				Version string `json:"version"`
			} `json:"metadata"`
		}
		if err := c.tool(ctx, "fetch", map[string]any{"id": fmt.Sprintf("bench/edit-%d.md", w)}, &out); err != nil {
			t.Fatal(err)
		}
		versions[w] = out.Metadata.Version
	}
	all := ops(paths, folderList(paths))
	all["edit_note"] = nil
	// Every operation at 2025-11-25; fetch and search also at 2026-07-28
	// (stateless, with _meta and the Mcp-* headers), to compare.
	type job struct{ name, version, label string }
	var jobs []job
	for _, name := range []string{"fetch", "search", "search_syntax", "list", "edit_note", "create_note"} {
		if only := os.Getenv("CORTEX_BENCH_OPS"); only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		jobs = append(jobs, job{name, version2025, name})
		if name == "fetch" || name == "search" {
			jobs = append(jobs, job{name, version2026, name + "@" + version2026})
		}
	}
	// The naive reference server (naive_test.go) on the same vault, measured
	// in turns with cortex.
	var ref *server
	if slices.ContainsFunc(jobs, func(j job) bool { return j.name == "fetch" }) {
		ref = startNaive(t, vault)
		defer ref.Stop()
	}
	for _, j := range jobs {
		name := j.name
		for _, inflight := range []int{1, 8} {
			op := all[name]
			if name == "fetch" {
				fetchBesideNaive(t, ctx, s, ref, j.version, j.label, inflight, d, op, rows)
				continue
			}
			if name == "edit_note" {
				op = editOp(versions)
			}
			r, err := s.run(ctx, j.version, inflight, d, op)
			if err != nil {
				t.Fatalf("%s x%d: %v", j.label, inflight, err)
			}
			key := fmt.Sprintf("%s x%d", j.label, inflight)
			rows[key+" p50 (ms)"] = append(rows[key+" p50 (ms)"], ms(r.p50))
			rows[key+" p99 (ms)"] = append(rows[key+" p99 (ms)"], ms(r.p99))
			rows[key+" calls/s"] = append(rows[key+" calls/s"], r.perSec)
			rows[key+" CPU/call (ms)"] = append(rows[key+" CPU/call (ms)"], ms(r.cpuPer))
			if name == "edit_note" {
				resetCounters(t, vault, versions, c)
			}
		}
	}

	// An edit made outside cortex: how long until search finds it.
	for i := range 3 {
		word := fmt.Sprintf("zqxoutside%d%d", run, i)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(vault, "bench", word+".md"), []byte("# Outside\n\n"+word+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for {
			var out struct {
				Results []struct{ ID string } `json:"results"`
			}
			if err := c.tool(ctx, "search", map[string]any{"query": word}, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Results) > 0 {
				rows["outside edit searchable (ms)"] = append(rows["outside edit searchable (ms)"], ms(time.Since(start)))
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Logf("outside edit not searchable after 30 s")
				break
			}
		}
	}
	_, rss, peak := s.procStat()
	rows["RSS after the calls (MB)"] = append(rows["RSS after the calls (MB)"], float64(rss)/1e6)
	rows["RSS peak (MB)"] = append(rows["RSS peak (MB)"], float64(peak)/1e6)
}

// resetCounters rewrites the edit notes from outside so the next measurement
// starts at counter 0, and refreshes the versions.
func resetCounters(t *testing.T, vault string, versions []string, c *client) {
	for w := range versions {
		if err := os.WriteFile(filepath.Join(vault, "bench", fmt.Sprintf("edit-%d.md", w)), []byte("# Edit\n\ncounter 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Metadata struct {
				Version string `json:"version"`
			} `json:"metadata"`
		}
		if err := c.tool(context.Background(), "fetch", map[string]any{"id": fmt.Sprintf("bench/edit-%d.md", w)}, &out); err != nil {
			t.Fatal(err)
		}
		versions[w] = out.Metadata.Version
	}
}

// waitStarted waits for the index and then for the history's first copy
// of every note, recording when each was done and the memory then, and
// reports whether both were seen. Measuring during the history's pass
// would charge its CPU to the calls.
func waitStarted(t *testing.T, s *server, rows map[string][]float64, run int) bool {
	t.Helper()
	rows["serving after start (ms)"] = append(rows["serving after start (ms)"], ms(s.serving))
	select {
	case at := <-s.ready:
		rows["index ready (ms)"] = append(rows["index ready (ms)"], ms(at.Sub(s.Started)))
	case <-time.After(2 * time.Minute):
		t.Logf("run %d: no 'index ready' line within 2 minutes", run)
		return false
	}
	_, rss, peak := s.procStat()
	rows["RSS steady with index (MB)"] = append(rows["RSS steady with index (MB)"], float64(rss)/1e6)
	rows["RSS peak at index ready (MB)"] = append(rows["RSS peak at index ready (MB)"], float64(peak)/1e6)
	select {
	case at := <-s.kept:
		rows["history kept at start (ms)"] = append(rows["history kept at start (ms)"], ms(at.Sub(s.Started)))
	case <-time.After(5 * time.Minute):
		t.Logf("run %d: the history did not report keeping the notes within 5 minutes", run)
		return false
	}
	_, rss, peak = s.procStat()
	rows["RSS after history kept (MB)"] = append(rows["RSS after history kept (MB)"], float64(rss)/1e6)
	rows["RSS peak at history kept (MB)"] = append(rows["RSS peak at history kept (MB)"], float64(peak)/1e6)
	return true
}

func printTable(n int, bytes int64, runs int, rows map[string][]float64) {
	printMedians(fmt.Sprintf("%d notes (%.0f MB), median of %d runs", n, float64(bytes)/1e6, runs), rows)
}

// printMedians prints a Markdown table under heading: each row's median,
// the rows sorted by name.
func printMedians(heading string, rows map[string][]float64) {
	fmt.Printf("\n### %s\n\n| measure | value |\n|---|---|\n", heading)
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("| %s | %s |\n", k, format(median(rows[k])))
	}
}

func format(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}

func intsEnv(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return def
	}
	return out
}

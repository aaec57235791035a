package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestBenchHistory is `make bench`'s row for what the note history costs:
// edit_note calls a second over HTTP against the real binary with history
// and without it (the test build's CORTEX_FAULT=no-history), one and eight
// writers, each writer on a ~3 KB note of its own, in a vault of
// CORTEX_BENCH_HISTORY_NOTES notes (default 10,000). The two modes
// alternate within each of CORTEX_BENCH_RUNS runs (default 5), so both see
// the same machine; it prints the medians and the median of the per-run
// ratios. It only runs when CORTEX_BENCH=1; CORTEX_BENCH_PROFILE=DIR has
// each server write a CPU profile there.
func TestBenchHistory(t *testing.T) {
	benchOnly(t)
	n := intEnv("CORTEX_BENCH_HISTORY_NOTES", 10000)
	runs := intEnv("CORTEX_BENCH_RUNS", 5)
	d := time.Duration(intEnv("CORTEX_BENCH_SECONDS", 3)) * time.Second
	bin := testkit.CortexWithFaults(t)
	vault := filepath.Join(t.TempDir(), "vault")
	_, total, err := generate(vault, n, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(vault, "bench"), 0o755); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]float64{}
	for run := range runs {
		perSec := map[string]float64{}
		modes := []bool{true, false}
		if run%2 == 1 {
			modes = []bool{false, true}
		}
		for _, on := range modes {
			for inflight, r := range editRates(t, bin, vault, on, d) {
				key := fmt.Sprintf("edit_note x%d history %s", inflight, onOff(on))
				perSec[key] = r.perSec
				rows[key+" calls/s"] = append(rows[key+" calls/s"], r.perSec)
				rows[key+" CPU/call (ms)"] = append(rows[key+" CPU/call (ms)"], ms(r.cpuPer))
				rows[key+" p50 (ms)"] = append(rows[key+" p50 (ms)"], ms(r.p50))
			}
		}
		for _, inflight := range []int{1, 8} {
			on, off := perSec[fmt.Sprintf("edit_note x%d history on", inflight)], perSec[fmt.Sprintf("edit_note x%d history off", inflight)]
			key := fmt.Sprintf("edit_note x%d calls/s with history / without (%%)", inflight)
			rows[key] = append(rows[key], 100*on/off)
		}
	}
	printTable(n, total, runs, rows)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// editRates starts the server on vault, with history or without, and
// measures edit_note with one writer and with eight.
func editRates(t *testing.T, bin, vault string, history bool, d time.Duration) map[int]opResult {
	t.Helper()
	ctx := context.Background()
	for w := range 8 {
		if err := os.WriteFile(filepath.Join(vault, "bench", fmt.Sprintf("hist-%d.md", w)), []byte(testkit.ProseNote(fmt.Sprintf("Edited %d", w), uint64(w), 11)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "state")
	tok, err := exec.Command(bin, "admin", "token", "create", "bench", "--state", state).Output()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	env := os.Environ()
	if dir := os.Getenv("CORTEX_BENCH_PROFILE"); dir != "" {
		env = append(env, "CORTEX_CPU_PROFILE="+filepath.Join(dir, fmt.Sprintf("cortex-history-%s-%d.pprof", onOff(history), time.Now().UnixNano())))
	}
	// Ready when the history has the notes as found at start (it stores
	// them in the background after the index), or with no history when
	// the index is.
	want := "kept the notes as found at start"
	if !history {
		env, want = append(env, "CORTEX_FAULT=no-history"), "search index ready"
	}
	ready := make(chan struct{})
	srv := testkit.StartServer(t, testkit.ServerOptions{Bin: bin, Env: env, MaxLog: 1 << 20,
		Args: []string{"--vault", vault, "--state", state, "--rate-limit", "10000000", "--min-free-mb", "0"},
		OnLine: func(line string) {
			if strings.Contains(line, want) {
				select {
				case <-ready:
				default:
					close(ready)
				}
			}
		},
	})
	defer srv.Stop()
	select {
	case <-ready:
	case <-time.After(5 * time.Minute):
		t.Fatalf("no %q line within 5 minutes:\n%s", want, srv.Logs.String())
	}
	s := &server{Server: srv, token: strings.TrimSpace(string(tok))}
	out := map[int]opResult{}
	op := histEditOp(ctx, t, s)
	// A second of edits first, not measured: the first writes after the
	// start pay for what the start left behind (the history's WAL from
	// storing the notes as found, the index's first compaction).
	if _, err := s.run(ctx, version2025, 8, time.Second, op); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	for _, inflight := range []int{1, 8} {
		r, err := s.run(ctx, version2025, inflight, d, op)
		if err != nil {
			t.Fatalf("edit_note x%d history %s: %v", inflight, onOff(history), err)
		}
		out[inflight] = r
	}
	return out
}

// histEditOp edits each worker's own note, carrying its version and
// counter from call to call; the notes start at counter 0.
func histEditOp(ctx context.Context, t *testing.T, s *server) func(ctx context.Context, c *client, w, i int) error {
	c := newClient(s.URL, s.token, 1, version2025)
	if err := c.initialize(ctx); err != nil {
		t.Fatal(err)
	}
	versions, counters := make([]string, 8), make([]int, 8)
	for w := range versions {
		var out struct {
			Metadata struct {
				Version string `json:"version"`
			} `json:"metadata"`
		}
		if err := c.tool(ctx, "fetch", map[string]any{"id": fmt.Sprintf("bench/hist-%d.md", w)}, &out); err != nil {
			t.Fatal(err)
		}
		versions[w] = out.Metadata.Version
	}
	return func(ctx context.Context, c *client, w, _ int) error {
		var out struct {
			Version string `json:"version"`
		}
		err := c.tool(ctx, "edit_note", map[string]any{"id": fmt.Sprintf("bench/hist-%d.md", w), "version": versions[w],
			"old_text": fmt.Sprintf("counter: %d\n", counters[w]), "new_text": fmt.Sprintf("counter: %d\n", counters[w]+1)}, &out)
		if err == nil {
			versions[w], counters[w] = out.Version, counters[w]+1
		}
		return err
	}
}

package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestBenchTable measures the way a model reads and prints the table
// docs/performance.md opens with, goals beside the figures. On the shared
// generator's vault (shared_vault_test.go), once the index is built and
// the history's first pass is done, cortex and the naive reference server
// (naive_test.go) take turns on the same calls: each fetch a different note
// (every note of the vault in a shuffled order before any comes again, so
// per-note caches are as cold as a model finds them), each search one of
// the generator's 50 queries in turn. A round is four turns, fetch and
// search at 1 and 8 in flight, each of CORTEX_BENCH_CALLS calls (default
// 2000) or CORTEX_BENCH_TURN_SECONDS (default 30), whichever comes first,
// the naive server's turn right after cortex's (before it in odd rounds);
// the naive server skips search at 8 in flight, which no goal needs. RSS is
// read once cortex has answered the first round's calls (8,000 unless a
// turn ran out of time; the row then says how many). Knobs:
// CORTEX_BENCH_TABLE_NOTES (default 10000,50000; 2000 for a quick look),
// CORTEX_BENCH_ROUNDS (default 3), CORTEX_BENCH_GENVAULT.
func TestBenchTable(t *testing.T) {
	benchOnly(t)
	gen := genvault(t)
	bin := testkit.Cortex(t)
	rounds := intEnv("CORTEX_BENCH_ROUNDS", 3)
	calls := intEnv("CORTEX_BENCH_CALLS", 2000)
	turn := time.Duration(intEnv("CORTEX_BENCH_TURN_SECONDS", 30)) * time.Second
	for _, n := range intsEnv("CORTEX_BENCH_TABLE_NOTES", []int{10000, 50000}) {
		v := generateShared(t, gen, n)
		rows := measureTable(t, bin, v, rounds, calls, turn)
		printGoals(n, v.bytes, rounds, rows)
		printMedians(fmt.Sprintf("%d notes: every figure of the table's run, median of %d rounds", n, rounds), rows)
	}
}

// mixedCalls is the traffic after which the table reads cortex's RSS.
const mixedCalls = 8000

type callOp = func(ctx context.Context, c *client, w, i int) error

// fetchEveryNote fetches the notes in a shuffled order, each once before
// any comes again, whatever the worker; each server gets its own cursor.
func fetchEveryNote(paths []string) callOp {
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(paths)) // #nosec G404 -- a benchmark's fixed order, not a secret
	var next atomic.Int64
	return func(ctx context.Context, c *client, _, _ int) error {
		k := (next.Add(1) - 1) % int64(len(order))
		return c.tool(ctx, "fetch", map[string]any{"id": paths[order[k]]}, nil)
	}
}

// searchEach asks the queries in turn with args (cortex's page of 20,
// as a model asks; the naive server takes the query alone).
func searchEach(queries []string, args map[string]any) callOp {
	var next atomic.Int64
	return func(ctx context.Context, c *client, _, _ int) error {
		a := map[string]any{"query": queries[(next.Add(1)-1)%int64(len(queries))]}
		for k, v := range args {
			a[k] = v
		}
		return c.tool(ctx, "search", a, nil)
	}
}

func measureTable(t *testing.T, bin string, v sharedVault, rounds, calls int, turn time.Duration) map[string][]float64 {
	t.Helper()
	ctx := context.Background()
	rows := map[string][]float64{}
	s := startServer(t, bin, v.dir)
	defer s.Stop()
	if !waitStarted(t, s, rows, 0) {
		t.Fatal("cortex did not finish its start-up passes; the table would measure them")
	}
	ref := startNaive(t, v.dir)
	defer ref.Stop()
	ops := map[*server]map[string]callOp{
		s:   {"fetch": fetchEveryNote(v.paths), "search": searchEach(v.queries, map[string]any{"limit": 20})},
		ref: {"fetch": fetchEveryNote(v.paths), "search": searchEach(v.queries, nil)},
	}
	name := map[*server]string{s: "cortex", ref: "naive"}
	// The RSS row: after the first round, 8,000 calls at the defaults.
	rssAfter, served := min(mixedCalls, 4*calls), 0
	for round := range rounds {
		for _, tu := range []struct {
			op       string
			inflight int
		}{{"fetch", 1}, {"fetch", 8}, {"search", 1}, {"search", 8}} {
			order := []*server{s, ref}
			if round%2 == 1 {
				order = []*server{ref, s}
			}
			cpu := map[*server]float64{}
			for _, srv := range order {
				if srv == ref && tu.op == "search" && tu.inflight == 8 {
					continue
				}
				r, err := srv.runN(ctx, version2025, tu.inflight, calls, turn, ops[srv][tu.op])
				if err != nil {
					t.Fatalf("%s %s x%d: %v", name[srv], tu.op, tu.inflight, err)
				}
				key := fmt.Sprintf("%s %s x%d", name[srv], tu.op, tu.inflight)
				rows[key+" p50 (ms)"] = append(rows[key+" p50 (ms)"], ms(r.p50))
				rows[key+" p99 (ms)"] = append(rows[key+" p99 (ms)"], ms(r.p99))
				rows[key+" calls/s"] = append(rows[key+" calls/s"], r.perSec)
				rows[key+" CPU/call (µs)"] = append(rows[key+" CPU/call (µs)"], float64(r.cpuPer.Microseconds()))
				cpu[srv] = float64(r.cpuPer)
				if srv != s {
					continue
				}
				if served < rssAfter && served+r.calls >= rssAfter {
					_, rss, _ := s.procStat()
					rows["cortex RSS after mixed calls (MB)"] = append(rows["cortex RSS after mixed calls (MB)"], float64(rss)/1e6)
					rows["cortex mixed calls before RSS"] = append(rows["cortex mixed calls before RSS"], float64(served+r.calls))
				}
				served += r.calls
			}
			if tu.op == "fetch" && cpu[ref] > 0 {
				key := fmt.Sprintf("cortex fetch x%d CPU/call over naive's", tu.inflight)
				rows[key] = append(rows[key], cpu[s]/cpu[ref])
			}
		}
	}
	_, rss, peak := s.procStat()
	rows["cortex RSS after all rounds (MB)"] = append(rows["cortex RSS after all rounds (MB)"], float64(rss)/1e6)
	rows["cortex RSS peak (MB)"] = append(rows["cortex RSS peak (MB)"], float64(peak)/1e6)
	return rows
}

// goal is one row of the table: where its figures are and what it asks.
type goal struct {
	label          string
	cortex, naive  string // keys into the rows; naive "" for none
	unit           string
	ask            string  // the goal as written, "–" for none
	limit          float64 // the figure (or the ratio) that meets it
	atLeast, ratio bool    // the figure must reach limit; limit is over naive's
}

// goals are the table's rows with the goals of the vault's size: those of
// 10k notes up to 10k, of 50k beyond.
func goals(n int) []goal {
	big := n > 10000
	pick := func(small, large float64) float64 {
		if big {
			return large
		}
		return small
	}
	g := []goal{
		{label: "server CPU per fetch, 1 in flight", cortex: "cortex fetch x1 CPU/call (µs)", naive: "naive fetch x1 CPU/call (µs)", unit: "µs",
			ask: "≤ 1.2× naive", limit: 1.2, ratio: true},
		{label: "fetch p50, 1 in flight", cortex: "cortex fetch x1 p50 (ms)", naive: "naive fetch x1 p50 (ms)", unit: "ms",
			ask: fmt.Sprintf("≤ %.1f ms", pick(1.0, 1.1)), limit: pick(1.0, 1.1)},
		{label: "fetches/s, 8 in flight", cortex: "cortex fetch x8 calls/s", naive: "naive fetch x8 calls/s",
			ask: "≥ 2,400", limit: 2400, atLeast: true},
		{label: "search p50, 1 in flight", cortex: "cortex search x1 p50 (ms)", naive: "naive search x1 p50 (ms)", unit: "ms",
			ask: fmt.Sprintf("≤ %.1f ms", pick(2.0, 5.0)), limit: pick(2.0, 5.0)},
		{label: "RSS after 8,000 mixed calls", cortex: "cortex RSS after mixed calls (MB)", unit: "MB",
			ask: fmt.Sprintf("≤ %.0f MB", pick(64, 160)), limit: pick(64, 160)},
	}
	if big { // no goal at 50k for the CPU ratio and the rate
		g[0].ask, g[2].ask = "–", "–"
	}
	return g
}

// printGoals prints the table: each figure the median of the rounds, with
// their range, the goal beside it and whether the median meets it.
func printGoals(n int, bytes int64, rounds int, rows map[string][]float64) {
	fmt.Printf("\n### %d notes (%.0f MB), cortex and the naive go-sdk server in turns, %d rounds\n\n", n, float64(bytes)/1e6, rounds)
	fmt.Printf("| %d notes | cortex | naive go-sdk server | goal | met |\n|---|---|---|---|---|\n", n)
	for _, g := range goals(n) {
		c, naive := rows[g.cortex], "–"
		if g.naive != "" {
			naive = cell(rows[g.naive], g.unit)
		}
		figure := median(c)
		if g.ratio {
			figure = median(rows["cortex fetch x1 CPU/call over naive's"])
		}
		met := "–"
		switch {
		case g.ask == "–" || len(c) == 0:
		case g.atLeast && figure >= g.limit, !g.atLeast && figure <= g.limit:
			met = "yes"
		default:
			met = "no"
		}
		if g.ratio {
			met += fmt.Sprintf(" (%.2f×)", figure)
		}
		label := g.label
		if k := rows["cortex mixed calls before RSS"]; g.cortex == "cortex RSS after mixed calls (MB)" && len(k) > 0 && k[0] != mixedCalls {
			label = fmt.Sprintf("RSS after %s mixed calls", thousands(k[0]))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", label, cell(c, g.unit), naive, g.ask, met)
	}
}

// cell is the median of v with its unit, and the range when it has one.
func cell(v []float64, unit string) string {
	if len(v) == 0 {
		return "n/a"
	}
	f := func(x float64) string {
		switch unit {
		case "ms":
			return fmt.Sprintf("%.2f", x)
		case "MB": // to a tenth, so that 64.4 does not read as meeting 64
			return fmt.Sprintf("%.1f", x)
		}
		return thousands(x)
	}
	out := f(median(v))
	if unit != "" {
		out += " " + unit
	}
	if lo, hi := slices.Min(v), slices.Max(v); len(v) > 1 && f(lo) != f(hi) {
		out += fmt.Sprintf(" (%s–%s)", f(lo), f(hi))
	}
	return out
}

// thousands writes v rounded to a whole number, with commas: 2,400.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// The table's cells: whole numbers with commas, milliseconds to the
// hundredth, megabytes to the tenth, the range of the rounds when they differ.
func TestTableCells(t *testing.T) {
	for _, tt := range []struct {
		v    []float64
		unit string
		want string
	}{
		{[]float64{1290}, "µs", "1,290 µs"},
		{[]float64{1685, 1290, 1400}, "µs", "1,400 µs (1,290–1,685)"},
		{[]float64{2703.4, 3030}, "", "3,030 (2,703–3,030)"},
		{[]float64{1.344, 1.3441}, "ms", "1.34 ms"},
		{[]float64{115.24}, "MB", "115.2 MB"},
		{[]float64{1234567}, "", "1,234,567"},
		{nil, "ms", "n/a"},
	} {
		if got := cell(tt.v, tt.unit); got != tt.want {
			t.Errorf("cell(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

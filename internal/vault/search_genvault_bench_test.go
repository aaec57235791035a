package vault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// genVault is a vault written by the shared generator (../shared/bench,
// beside the repository), with its 50 search queries. CORTEX_BENCH_VAULT
// names one written already (DIR, with DIR.queries.json beside it), which
// spares the generator's 15 s on each -count; else one of 10,000 notes is
// written to a temporary folder, or the benchmark is skipped when the
// generator or python3 is missing.
func genVault(b *testing.B) (dir string, queries []string) {
	b.Helper()
	dir = os.Getenv("CORTEX_BENCH_VAULT")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "v10k")
		writeGenVault(b, dir, 10000)
	}
	data, err := os.ReadFile(dir + ".queries.json")
	if err != nil {
		b.Fatal(err)
	}
	var qs struct {
		Queries []struct {
			Q string `json:"q"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		b.Fatal(err)
	}
	for _, q := range qs.Queries {
		queries = append(queries, q.Q)
	}
	return dir, queries
}

// BenchmarkSearchGenVault searches the generator's 50 queries in turn over
// its 10,000-note vault, 20 hits a page as the side-by-side bench asks:
// one op is one search, so ns/op is the mean over the mix. cpu-ns/op is
// the process's CPU time per search, steadier than ns/op when other work
// shares the machine.
func BenchmarkSearchGenVault(b *testing.B) {
	dir, queries := genVault(b)
	v := openBench(b, dir)
	b.ReportAllocs()
	i := 0
	cpu := testkit.CPUTime()
	for b.Loop() {
		if _, err := v.SearchPage(ctx, Query{Text: queries[i%len(queries)], Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(testkit.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

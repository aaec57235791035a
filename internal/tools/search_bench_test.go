package tools

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// BenchmarkSearchQueries runs the shared generator's 50 search queries in
// turn through a real client session, 20 results a page as the
// side-by-side bench asks, over the vault CORTEX_BENCH_VAULT names (DIR,
// with DIR.queries.json beside it); it is skipped without one.
func BenchmarkSearchQueries(b *testing.B) {
	ctx := context.Background()
	dir := os.Getenv("CORTEX_BENCH_VAULT")
	if dir == "" {
		b.Skip("CORTEX_BENCH_VAULT names no vault of the shared generator")
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
	if err := json.Unmarshal(data, &qs); err != nil || len(qs.Queries) == 0 {
		b.Fatal("no queries: ", err)
	}
	v := indexedVault(b, dir)
	cs := connect(b, NewServer(Deps{Vault: v, App: "bench"}, ""))
	b.ReportAllocs()
	i := 0
	cpu := testkit.CPUTime()
	for b.Loop() {
		q := qs.Queries[i%len(qs.Queries)].Q
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "limit": 20}})
		if err != nil || r.IsError {
			b.Fatal(q, err, r)
		}
		i++
	}
	b.ReportMetric(float64(testkit.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

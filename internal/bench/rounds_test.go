package bench

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// fetchBesideNaive measures fetch on cortex (s) and on the naive reference
// server (ref) in turns, CORTEX_BENCH_ROUNDS times (default 3), on the same
// vault with the same calls. Both servers run throughout, so each pair of
// figures meets the same load of the shared machine; the ratio rows are the
// median of each round's cortex figure over the naive one's.
func fetchBesideNaive(t *testing.T, ctx context.Context, s, ref *server, version, label string, inflight int, d time.Duration,
	op func(ctx context.Context, c *client, w, i int) error, rows map[string][]float64) {
	t.Helper()
	key := fmt.Sprintf("%s x%d", label, inflight)
	naive := "naive go-sdk " + key
	for round := range intEnv("CORTEX_BENCH_ROUNDS", 3) {
		// Each round starts elsewhere in the sequence of notes, so that
		// what one round read is not what the next reads first.
		op := func(ctx context.Context, c *client, w, i int) error { return op(ctx, c, w, i+round*100003) }
		r, err := s.run(ctx, version, inflight, d, op)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		n, err := ref.run(ctx, version, inflight, d, op)
		if err != nil {
			t.Fatalf("%s: %v", naive, err)
		}
		rows[key+" p50 (ms)"] = append(rows[key+" p50 (ms)"], ms(r.p50))
		rows[key+" p99 (ms)"] = append(rows[key+" p99 (ms)"], ms(r.p99))
		rows[key+" calls/s"] = append(rows[key+" calls/s"], r.perSec)
		rows[key+" CPU/call (ms)"] = append(rows[key+" CPU/call (ms)"], ms(r.cpuPer))
		rows[naive+" p50 (ms)"] = append(rows[naive+" p50 (ms)"], ms(n.p50))
		rows[naive+" calls/s"] = append(rows[naive+" calls/s"], n.perSec)
		rows[naive+" CPU/call (ms)"] = append(rows[naive+" CPU/call (ms)"], ms(n.cpuPer))
		if n.cpuPer > 0 {
			rows[key+" CPU/call over naive's"] = append(rows[key+" CPU/call over naive's"], float64(r.cpuPer)/float64(n.cpuPer))
		}
		if n.perSec > 0 {
			rows[key+" calls/s over naive's"] = append(rows[key+" calls/s over naive's"], r.perSec/n.perSec)
		}
	}
}

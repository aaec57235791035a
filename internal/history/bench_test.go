package history

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// benchVault writes n notes and opens the journal, the history (withHistory)
// and one tools session on them, on real files.
func benchVault(b *testing.B, n int, withHistory bool) (*mcp.ClientSession, *vault.Vault, *store.HistoryDB, string) {
	b.Helper()
	ctx := context.Background()
	dir, state := b.TempDir(), b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(testkit.ProseNote(fmt.Sprintf("Note %d", i), uint64(i), 7)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st, err := store.Open(ctx, state, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	opts := vault.Options{Dir: dir, FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }}
	var h *store.HistoryDB
	if withHistory {
		if h, err = store.OpenHistory(ctx, state, store.HistoryOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close() })
		opts.History = Keeper(h)
	}
	v, err := vault.Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	srv := tools.NewServer(tools.Deps{Vault: v, Journal: tools.CacheJournal(st), App: "bench"}, "")
	sst, cst := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, sst, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs, v, h, state
}

// editer edits notes through the tool, remembering versions and counters.
type editer struct {
	cs       *mcp.ClientSession
	versions map[string]string
	counters map[string]int
}

func (e *editer) edit(b *testing.B, v *vault.Vault, p string) {
	ctx := context.Background()
	if e.versions[p] == "" {
		n, err := v.Read(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		e.versions[p] = n.Version
	}
	c := e.counters[p]
	res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note", Arguments: map[string]any{
		"id": p, "version": e.versions[p], "old_text": fmt.Sprintf("counter: %d\n", c), "new_text": fmt.Sprintf("counter: %d\n", c+1),
	}})
	if err != nil || res.IsError {
		b.Fatalf("edit_note: %v %+v", err, res)
	}
	var out struct {
		Version string `json:"version"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &out)
	e.versions[p], e.counters[p] = out.Version, c+1
}

// BenchmarkEditNote measures edit_note calls a second through the tools,
// on real files (note, journal and history on the same disk), without and
// with the note history.
func BenchmarkEditNote(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("history=%v", on), func(b *testing.B) {
			cs, v, h, _ := benchVault(b, 100, on)
			e := &editer{cs: cs, versions: map[string]string{}, counters: map[string]int{}}
			cpu := cpuTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				e.edit(b, v, fmt.Sprintf("n%05d.md", i%100))
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/call")
			if h != nil {
				s, err := h.Stats(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(s.Stored)/float64(b.N), "history-B/edit")
			}
		})
	}
}

// BenchmarkHistorySize reports the history's size after 10,000 edit_note
// calls spread over a vault of 10,000 notes of about 3 KB.
func BenchmarkHistorySize(b *testing.B) {
	for b.Loop() {
		cs, v, h, state := benchVault(b, 10000, true)
		e := &editer{cs: cs, versions: map[string]string{}, counters: map[string]int{}}
		r := rand.New(rand.NewPCG(1, 2))
		for range 10000 {
			e.edit(b, v, fmt.Sprintf("n%05d.md", r.IntN(10000)))
		}
		s, err := h.Stats(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		var file int64
		for _, f := range []string{store.HistoryFileName, store.HistoryFileName + "-wal"} {
			if fi, err := os.Stat(filepath.Join(state, f)); err == nil {
				file += fi.Size()
			}
		}
		b.ReportMetric(float64(s.Versions), "versions")
		b.ReportMetric(float64(s.Size)/(1<<20), "text-MiB")
		b.ReportMetric(float64(s.Stored)/(1<<20), "stored-MiB")
		b.ReportMetric(float64(file)/(1<<20), "file-MiB")
	}
}

// BenchmarkEditNoteParallel is BenchmarkEditNote with eight writers at
// once, each on notes of its own, as the HTTP benchmark's x8 runs.
func BenchmarkEditNoteParallel(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("history=%v", on), func(b *testing.B) {
			cs, v, _, _ := benchVault(b, 64, on)
			var worker atomic.Int64
			b.SetParallelism(4)
			cpu := cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				w := int(worker.Add(1)) - 1
				e := &editer{cs: cs, versions: map[string]string{}, counters: map[string]int{}}
				for i := 0; pb.Next(); i++ {
					e.edit(b, v, fmt.Sprintf("n%05d.md", (w*8+i%8)%64))
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system: on a
// busy machine it varies far less than wall-clock rates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// BenchmarkFetchAcross fetches a different note each time, the way a model
// reads, through a real client session, with the journal in a real SQLite
// store behind CacheJournal as cortex serves it: per-note caches are cold.
// CORTEX_BENCH_VAULT names a vault to read (the shared generator's); else
// 10,000 notes with frontmatter are written. Run it with -benchtime at most
// the number of notes (5000x) so that no note is fetched twice. cpu-ns/op
// is the process's CPU time per fetch, client and server together.
func BenchmarkFetchAcross(b *testing.B) {
	ctx := context.Background()
	dir := os.Getenv("CORTEX_BENCH_VAULT")
	if dir == "" {
		dir = b.TempDir()
		for i := range 10000 {
			p := filepath.Join(dir, fmt.Sprintf("f%02d", i%40), fmt.Sprintf("Note %d.md", i))
			body := fmt.Sprintf("---\ntitle: Note %d\ntags: [a, b/c]\nstatus: open\ncreated: 2026-01-%02d\n---\n# Note %d\n\n%s", i, 1+i%28, i,
				strings.Repeat("Words about the garden and the plan, [[Note 1]].\n", 60))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	var notes []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			notes = append(notes, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	v := indexedVault(b, dir)
	st := openStore(b)
	secret, _, err := st.CreateToken(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.VerifyToken(ctx, secret); err != nil { // as the edge does for every request
		b.Fatal(err)
	}
	srv := NewServer(Deps{Vault: v, Journal: CacheJournal(st), PublicURL: config.MustParsePublicURL(testURL + "/"), App: "bench"}, "")
	cs := connect(b, srv)
	b.ReportAllocs()
	i := 0
	cpu := testkit.CPUTime()
	for b.Loop() {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": notes[i%len(notes)]}})
		if err != nil || r.IsError {
			b.Fatal(err, r)
		}
		i += 7919 // a prime: every note once before any twice
	}
	b.ReportMetric(float64(testkit.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// indexedVault opens the vault in dir with its index built, closed when
// the test ends.
func indexedVault(tb testing.TB, dir string) *vault.Vault {
	tb.Helper()
	v, err := vault.Open(vault.Options{Dir: dir, Index: true, FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	if err := v.WaitIndexed(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return v
}

// openStore opens a state database in a folder of the test's own, closed
// when the test ends.
func openStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), tb.TempDir(), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

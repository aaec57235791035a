package backup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
)

// BenchmarkRestore restores a backup of a 10k-note vault (100 folders,
// about 1.5 KiB a note) into fresh folders on the benchmark's disk, the
// durable way: every file and folder on stable storage before it returns.
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
			st, err := store.Open(context.Background(), stateDir, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			st.Close()
			body := strings.Repeat("A line of a note, long enough to look like one.\n", 30)
			for i := range n {
				p := filepath.Join(vaultDir, fmt.Sprintf("f%02d", i%100), fmt.Sprintf("note-%05d.md", i))
				if i < 100 {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						b.Fatal(err)
					}
				}
				if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\n%s", i, body)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			res, err := Create(context.Background(), filepath.Join(dir, "backups"), Options{Vault: vaultDir, State: stateDir, Version: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				into := filepath.Join(dir, fmt.Sprintf("restore-%d", i))
				i++
				if _, err := Restore(context.Background(), res.Path, filepath.Join(into, "vault"), filepath.Join(into, "state"), RestoreOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := os.RemoveAll(into); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkRestorerSync writes 10k notes of about 1.5 KiB in 100 folders
// through a Restorer and makes them durable three ways: an fsync after
// each file as it is written (what restores did first), one fsync per
// file and folder after all the writes (the fallback), and one syncfs(2).
func BenchmarkRestorerSync(b *testing.B) {
	const n = 10000
	body := strings.Repeat("A line of a note, long enough to look like one.\n", 30)
	for _, mode := range []string{"fsync-as-written", "fsync-after-writes", "syncfs"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			i := 0
			for b.Loop() {
				into := filepath.Join(dir, fmt.Sprintf("v%d", i))
				i++
				r, err := NewRestorer(into)
				if err != nil {
					b.Fatal(err)
				}
				r.noSyncfs = mode != "syncfs"
				for k := range n {
					p := fmt.Sprintf("f%02d/note-%05d.md", k%100, k)
					if k < 100 {
						if err := r.Dir(fmt.Sprintf("f%02d", k)); err != nil {
							b.Fatal(err)
						}
					}
					if err := r.File(p, time.Time{}, strings.NewReader(body)); err != nil {
						b.Fatal(err)
					}
					if mode == "fsync-as-written" {
						if err := r.syncOne(p); err != nil {
							b.Fatal(err)
						}
						r.files = r.files[:0]
					}
				}
				if err := r.Sync(); err != nil {
					b.Fatal(err)
				}
				if err := r.Close(); err != nil {
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

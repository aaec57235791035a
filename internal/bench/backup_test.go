package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestBenchBackup measures `cortex admin backup` of the synthetic vaults
// while the real server serves them: how long the backup takes, how large
// the archive is, and the p50 of one client's fetch calls while the backup
// runs, next to the p50 of the same calls just before it, on the same
// server in the same run. It runs with `make bench` (CORTEX_BENCH=1);
// CORTEX_BENCH_BACKUP_SIZES (default 10000,50000), CORTEX_BENCH_RUNS and
// CORTEX_BENCH_SECONDS (the fetch measurement without a backup) tune it.
func TestBenchBackup(t *testing.T) {
	benchOnly(t)
	sizes := intsEnv("CORTEX_BENCH_BACKUP_SIZES", []int{10000, 50000})
	runs := intEnv("CORTEX_BENCH_RUNS", 3)
	secs := intEnv("CORTEX_BENCH_SECONDS", 3)
	bin := testkit.Cortex(t)
	for _, n := range sizes {
		rows := map[string][]float64{}
		vaultBytes := vaultRuns(t, n, runs, func(run int, vault string, paths []string) {
			measureBackup(t, bin, vault, paths, time.Duration(secs)*time.Second, rows, run)
		})
		printMedians(fmt.Sprintf("backup of %d notes (%.0f MB), median of %d runs", n, float64(vaultBytes)/1e6, runs), rows)
	}
}

func measureBackup(t *testing.T, bin, vault string, paths []string, d time.Duration, rows map[string][]float64, run int) {
	ctx := context.Background()
	s := startServer(t, bin, vault)
	defer s.Stop()
	// Measure a server at rest: its index built and its history's first
	// copy of the notes kept.
	for what, ch := range map[string]chan time.Time{"index ready": s.ready, "history kept": s.kept} {
		select {
		case <-ch:
		case <-time.After(5 * time.Minute):
			t.Fatalf("run %d: no %q within 5 minutes", run, what)
		}
	}
	fetch := ops(paths, nil)["fetch"]
	quiet, err := s.run(ctx, version2025, 1, d, fetch)
	if err != nil {
		t.Fatalf("fetch without a backup: %v", err)
	}

	c := newClient(s.URL, s.token, 1, version2025)
	if err := c.initialize(ctx); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "backups")
	cmd := exec.Command(bin, "admin", "backup", "--to", to, "--state", s.state, "--vault", vault) // #nosec G204 -- the test's own binary
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var lat []time.Duration
	var took time.Duration
	// Go on along the quiet run's sequence of notes, so that no call reads
	// a note that the quiet run has just brought into the caches.
	next := int(quiet.perSec*d.Seconds()) + 1000
	for i := next; ; i++ {
		select {
		case err := <-done:
			took = time.Since(start)
			if err != nil {
				t.Fatalf("backup: %v\n%s", err, errOut.String())
			}
		default:
			t0 := time.Now()
			if err := fetch(ctx, c, 0, i); err != nil {
				t.Fatalf("fetch during the backup: %v", err)
			}
			lat = append(lat, time.Since(t0))
			continue
		}
		break
	}
	fi, err := os.Stat(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("the backup's archive: %v (%s)", err, errOut.String())
	}
	if len(lat) == 0 {
		t.Fatalf("run %d: no fetch completed while the backup ran (%s)", run, took)
	}
	slices.Sort(lat)
	rows["backup time (s)"] = append(rows["backup time (s)"], took.Seconds())
	rows["backup archive (MB)"] = append(rows["backup archive (MB)"], float64(fi.Size())/1e6)
	rows["fetch x1 p50 without a backup (ms)"] = append(rows["fetch x1 p50 without a backup (ms)"], ms(quiet.p50))
	rows["fetch x1 p50 while a backup runs (ms)"] = append(rows["fetch x1 p50 while a backup runs (ms)"], ms(lat[len(lat)/2]))
	rows["fetch x1 p99 while a backup runs (ms)"] = append(rows["fetch x1 p99 while a backup runs (ms)"], ms(lat[len(lat)*99/100]))
	rows["fetch calls while a backup runs"] = append(rows["fetch calls while a backup runs"], float64(len(lat)))
}

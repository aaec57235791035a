package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// server is one running cortex under measurement.
type server struct {
	*testkit.Server
	token   string
	state   string         // its state folder
	serving time.Duration  // exec → first 200 from /healthz
	ready   chan time.Time // receives when the index reports ready
	kept    chan time.Time // receives when the history has kept the notes as found at start
}

func startServer(t *testing.T, bin, vault string) *server {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	tok, err := exec.Command(bin, "admin", "token", "create", "bench", "--state", state).Output()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	s := &server{token: strings.TrimSpace(string(tok)), state: state, ready: make(chan time.Time, 1), kept: make(chan time.Time, 1)}
	var env []string
	if dir := os.Getenv("CORTEX_BENCH_PROFILE"); dir != "" {
		// A CPU profile of the whole server run, for go tool pprof.
		env = append(os.Environ(), "CORTEX_CPU_PROFILE="+filepath.Join(dir, fmt.Sprintf("cortex-%d.pprof", time.Now().UnixNano())))
	}
	s.Server = testkit.StartServer(t, testkit.ServerOptions{Bin: bin, MaxLog: 1 << 20, Env: env,
		Args: []string{"--vault", vault, "--state", state,
			"--rate-limit", "10000000", "--min-free-mb", "0", "--log-level", "info"},
		OnLine: func(line string) {
			for text, ch := range map[string]chan time.Time{"index ready": s.ready, "kept the notes as found at start": s.kept} {
				if strings.Contains(line, text) {
					select {
					case ch <- time.Now():
					default:
					}
				}
			}
		},
	})
	// Time to serve: poll /healthz as fast as the loop allows (measurement).
	for {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				s.serving = time.Since(s.Started)
				break
			}
		}
		if time.Since(s.Started) > time.Minute {
			t.Fatal("healthz never answered")
		}
	}
	return s
}

// procStat returns CPU time (user+system) and current and peak RSS in bytes.
func (s *server) procStat() (cpu time.Duration, rss, peak int64) {
	pid := s.Pid
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		cpu = time.Duration(ut+st) * (time.Second / 100) // USER_HZ is 100 on Linux
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				switch f[0] {
				case "VmRSS:":
					rss = n << 10
				case "VmHWM:":
					peak = n << 10
				}
			}
		}
	}
	return
}

type opResult struct {
	p50, p99 time.Duration
	perSec   float64
	cpuPer   time.Duration
	errors   int
	calls    int
}

// run drives op with `inflight` workers speaking protocol version for d
// and measures it.
func (s *server) run(ctx context.Context, version string, inflight int, d time.Duration, op func(ctx context.Context, c *client, worker, i int) error) (opResult, error) {
	return s.runN(ctx, version, inflight, 0, d, op)
}

// runN is run stopping after calls calls (0: no count), or after d,
// whichever comes first.
func (s *server) runN(ctx context.Context, version string, inflight, calls int, d time.Duration, op func(ctx context.Context, c *client, worker, i int) error) (opResult, error) {
	clients := make([]*client, inflight)
	for w := range clients {
		clients[w] = newClient(s.URL, s.token, 1, version)
		if err := clients[w].initialize(ctx); err != nil {
			return opResult{}, err
		}
	}
	cpu0, _, _ := s.procStat()
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var firstErr error
	var taken atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline) && (calls == 0 || taken.Add(1) <= int64(calls)); i++ {
				t0 := time.Now()
				err := op(ctx, clients[w], w, i)
				mine = append(mine, time.Since(t0))
				if err != nil {
					mu.Lock()
					errs++
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _, _ := s.procStat()
	if len(lat) == 0 {
		return opResult{}, fmt.Errorf("no calls completed")
	}
	if errs > len(lat)/100 {
		return opResult{}, fmt.Errorf("%d of %d calls failed, first: %v", errs, len(lat), firstErr)
	}
	slices.Sort(lat)
	return opResult{
		p50:    lat[len(lat)/2],
		p99:    lat[len(lat)*99/100],
		perSec: float64(len(lat)) / elapsed.Seconds(),
		cpuPer: (cpu1 - cpu0) / time.Duration(len(lat)),
		errors: errs,
		calls:  len(lat),
	}, nil
}

var searchQueries = []string{"garden", "tomato onion", "budget review", `"weekly goals"`, "cancion", "corazón",
	"会議", "项目预算", "datab", "kitchen coffee morning", "tag:music", "server backup"}

// syntaxQueries use the Obsidian operators beyond words, measured beside
// searchQueries: alternatives, exclusions, path and property filters, and
// a query without words, found as written (newest notes read first).
var syntaxQueries = []string{"garden OR river", "garden -budget", "tag:music -garden", "[tags:music]",
	"path:bench garden", "[created:2026]", "- [ ]", "#music OR #travel"}

func ops(paths []string, folders []string) map[string]func(ctx context.Context, c *client, w, i int) error {
	return map[string]func(ctx context.Context, c *client, w, i int) error{
		"fetch": func(ctx context.Context, c *client, w, i int) error {
			return c.tool(ctx, "fetch", map[string]any{"id": paths[(w*7919+i*104729)%len(paths)]}, nil)
		},
		"search": func(ctx context.Context, c *client, w, i int) error {
			return c.tool(ctx, "search", map[string]any{"query": searchQueries[(w+i)%len(searchQueries)]}, nil)
		},
		"search_syntax": func(ctx context.Context, c *client, w, i int) error {
			return c.tool(ctx, "search", map[string]any{"query": syntaxQueries[(w+i)%len(syntaxQueries)]}, nil)
		},
		"list": func(ctx context.Context, c *client, w, i int) error {
			return c.tool(ctx, "list", map[string]any{"folder": folders[(w*31+i)%len(folders)]}, nil)
		},
		"create_note": func(ctx context.Context, c *client, w, i int) error {
			return c.tool(ctx, "create_note", map[string]any{"path": fmt.Sprintf("bench/create-%d-%d-%d.md", time.Now().UnixNano(), w, i),
				"content": "# Created\n\nA note written by the benchmark.\n"}, nil)
		},
	}
}

// editOp edits one note per worker, carrying the version from call to call.
func editOp(versions []string) func(ctx context.Context, c *client, w, i int) error {
	return func(ctx context.Context, c *client, w, i int) error {
		var out struct {
			Version string `json:"version"`
		}
		err := c.tool(ctx, "edit_note", map[string]any{"id": fmt.Sprintf("bench/edit-%d.md", w), "version": versions[w],
			"old_text": fmt.Sprintf("counter %d\n", i), "new_text": fmt.Sprintf("counter %d\n", i+1)}, &out)
		if err == nil {
			versions[w] = out.Version
		}
		return err
	}
}

func folderList(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		d := filepath.ToSlash(filepath.Dir(p))
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

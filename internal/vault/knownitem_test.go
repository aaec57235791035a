package vault

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// TestBenchKnownItem measures known-item search, the search of someone
// who knows the note they want: random notes of a generated vault, each
// looked for by its title, then by a few words in a row of its body that
// no other note holds (plain and quoted). It prints MRR@10 (the mean of 1/rank, 0 past the
// tenth hit) and hit@1 for each kind. It runs with `make bench`
// (CORTEX_BENCH=1) on the vault in CORTEX_BENCH_VAULT (a temporary one
// if unset), which the shared generator (CORTEX_BENCH_GENVAULT, default
// ../shared/bench/genvault.py beside the repository) writes first if it
// is not there, with CORTEX_BENCH_KNOWN_NOTES notes (default 10,000) and
// seed 1. CORTEX_BENCH_KNOWN_QUERIES (default
// 300) sets the notes asked for by title, CORTEX_BENCH_KNOWN_PHRASES
// (default 100) those asked for by words of their body.
func TestBenchKnownItem(t *testing.T) {
	if os.Getenv("CORTEX_BENCH") != "1" {
		t.Skip("a benchmark: run with CORTEX_BENCH=1 (make bench)")
	}
	dir := os.Getenv("CORTEX_BENCH_VAULT")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "vault")
	}
	if _, err := os.Stat(dir); err != nil {
		writeGenVault(t, dir, envInt(t, "CORTEX_BENCH_KNOWN_NOTES", 10000))
	}
	queries := envInt(t, "CORTEX_BENCH_KNOWN_QUERIES", 300)
	phrased := envInt(t, "CORTEX_BENCH_KNOWN_PHRASES", 100)
	start := time.Now()
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\nknown-item search on %s, indexed in %v\n", dir, time.Since(start).Round(time.Millisecond))
	notes := notePaths(t, dir)
	lower := make([]string, len(notes)) // as the shared generator's oracle compares
	for i, p := range notes {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		lower[i] = strings.ToLower(string(b))
	}
	unique := func(s string) bool {
		s, n := strings.ToLower(s), 0
		for _, c := range lower {
			if strings.Contains(c, s) {
				if n++; n > 1 {
					return false
				}
			}
		}
		return n == 1
	}

	r := rand.New(rand.NewPCG(1, 2))
	var titles, words, phrases []knownQuery
	for _, p := range pick(r, notes, queries) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		content := string(b)
		titles = append(titles, knownQuery{p, markdown.Title(content, p)})
		if len(words) == phrased {
			continue
		}
		if run := bodyRun(r, content, unique); run != "" {
			words = append(words, knownQuery{p, run})
			phrases = append(phrases, knownQuery{p, `"` + run + `"`})
		}
	}
	for _, k := range []struct {
		name string
		qs   []knownQuery
	}{{"title", titles}, {"body words", words}, {"body phrase", phrases}} {
		mrr, hit1, misses, took := knownRun(t, v, k.qs)
		fmt.Printf("%-12s %4d queries  MRR@10 %.3f  hit@1 %.3f  search p50 %v\n", k.name, len(k.qs), mrr, hit1, took)
		for _, m := range misses[:min(len(misses), 5)] {
			fmt.Printf("    %s\n", m)
		}
	}
}

// knownQuery is a query and the note it looks for.
type knownQuery struct{ path, text string }

// knownRun searches each query and returns MRR@10, hit@1, a few queries
// whose note did not come first, and the median time of a search.
func knownRun(t *testing.T, v *Vault, qs []knownQuery) (mrr, hit1 float64, misses []string, p50 time.Duration) {
	var took []time.Duration
	for _, q := range qs {
		start := time.Now()
		p, err := v.SearchPage(ctx, Query{Text: q.text, Limit: 10})
		took = append(took, time.Since(start))
		if err != nil {
			t.Fatalf("%q: %v", q.text, err)
		}
		rank := slices.IndexFunc(p.Hits, func(h Hit) bool { return h.Path == q.path }) + 1
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		if rank == 1 {
			hit1++
			continue
		}
		first := ""
		if len(p.Hits) > 0 {
			first = p.Hits[0].Path
		}
		misses = append(misses, fmt.Sprintf("%q: rank %d of %s (first: %s)", q.text, rank, q.path, first))
	}
	if len(qs) == 0 {
		return 0, 0, nil, 0
	}
	slices.Sort(took)
	n := float64(len(qs))
	return mrr / n, hit1 / n, misses, took[len(took)/2]
}

// bodyRun is four to seven words in a row from one line of the note's
// body (not a heading, code or a link), as written, that only this note
// holds; "" when none is found.
func bodyRun(r *rand.Rand, content string, unique func(string) bool) string {
	_, bodyStart, _ := markdown.Split(content)
	var lines []string
	code := false
	for _, l := range strings.Split(content[bodyStart:], "\n") {
		if strings.HasPrefix(l, "```") {
			code = !code
		}
		if !code && l != "" && !strings.HasPrefix(l, "#") && !strings.Contains(l, "[[") && !strings.HasPrefix(l, "```") {
			lines = append(lines, l)
		}
	}
	for range 20 {
		if len(lines) == 0 {
			return ""
		}
		var ws []string
		for _, w := range strings.Fields(lines[r.IntN(len(lines))]) {
			w = strings.Trim(w, `.,;:!?"'()[]>*-`)
			if w != "" && !strings.ContainsAny(w, "#`=_[]") {
				ws = append(ws, w)
			}
		}
		n := 4 + r.IntN(4)
		if len(ws) < n {
			continue
		}
		i := r.IntN(len(ws) - n + 1)
		if run := strings.Join(ws[i:i+n], " "); unique(run) {
			return run
		}
	}
	return ""
}

// notePaths lists the notes of dir outside dot-folders, sorted; dir may
// be a symbolic link.
func notePaths(t *testing.T, dir string) []string {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no notes in %s", dir)
	}
	slices.Sort(out)
	return out
}

// pick chooses n of xs at random, without repeats.
func pick(r *rand.Rand, xs []string, n int) []string {
	xs = slices.Clone(xs)
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs[:min(n, len(xs))]
}

// genVault writes a vault of n notes into dir with the shared generator,
// whole or not at all, or skips the test when there is no generator.
func writeGenVault(t testing.TB, dir string, n int) {
	gen := os.Getenv("CORTEX_BENCH_GENVAULT")
	if gen == "" {
		gen = filepath.Join("..", "..", "..", "shared", "bench", "genvault.py")
	}
	if _, err := os.Stat(gen); err != nil {
		t.Skipf("no vault at %s and no generator at %s: set CORTEX_BENCH_VAULT or CORTEX_BENCH_GENVAULT", dir, gen)
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", gen, "--notes", strconv.Itoa(n), "--seed", "1", "--out", tmp).CombinedOutput() // #nosec G204 -- the benchmark's own generator
	if err != nil {
		t.Fatalf("the vault generator failed: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

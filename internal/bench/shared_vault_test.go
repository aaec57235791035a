package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The shared generator: a deterministic Obsidian-like vault (dot-folders,
// a trash, links, tags, four languages) and the 50 search queries the
// issue's figures were taken with, so that `make bench` and a side-by-side
// run from outside measure the same vault with the same queries. It is a
// Python script kept beside the repository (../shared/bench/genvault.py);
// CORTEX_BENCH_GENVAULT names it elsewhere.
const (
	genvaultEnv     = "CORTEX_BENCH_GENVAULT"
	genvaultDefault = "../../../shared/bench/genvault.py" // from internal/bench
)

// sharedVault is one vault written by the shared generator.
type sharedVault struct {
	dir     string
	bytes   int64    // the notes' size
	paths   []string // every note, vault-relative
	queries []string // the 50 content queries, in the generator's order
}

// genvault finds the shared generator, or skips t saying where it looked.
func genvault(t *testing.T) string {
	t.Helper()
	path := os.Getenv(genvaultEnv)
	if path == "" {
		path = genvaultDefault
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("the shared vault generator is not at %s: set %s to its genvault.py", abs, genvaultEnv)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the shared vault generator needs python3")
	}
	return abs
}

// generateShared writes the generator's vault of n notes (seed 1, as the
// issue's figures) into a fresh folder and reads its queries back.
func generateShared(t *testing.T, gen string, n int) sharedVault {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	cmd := exec.Command("python3", gen, "--notes", strconv.Itoa(n), "--seed", "1", "--out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genvault: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(dir + ".queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		NoteBytes int64    `json:"note_bytes"`
		Paths     []string `json:"note_paths"`
		Queries   []struct {
			Q string `json:"q"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatalf("genvault queries: %v", err)
	}
	v := sharedVault{dir: dir, bytes: meta.NoteBytes, paths: meta.Paths}
	for _, q := range meta.Queries {
		v.queries = append(v.queries, q.Q)
	}
	if len(v.paths) != n || len(v.queries) == 0 {
		t.Fatalf("genvault wrote %d notes and %d queries, want %d notes", len(v.paths), len(v.queries), n)
	}
	return v
}

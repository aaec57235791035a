package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestHistorySurvivesSIGKILL kills the real server with SIGKILL while
// several clients edit notes, then checks the promise of the history: for
// every write the server acknowledged, the version it replaced and the
// version it wrote are stored, with their exact text, and its journal row.
func TestHistorySurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	in := newInstance(t)
	const writers, notesEach = 4, 2
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		for n := range notesEach {
			p := filepath.Join(in.Vault, fmt.Sprintf("n%d-%d.md", w, n))
			if err := os.WriteFile(p, []byte("# Note\ncount: 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tok := in.token("writer")
	in.start("--min-free-mb", "0", "--rate-limit", "1000000")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type ack struct{ path, prev, version, text string }
	var (
		mu    sync.Mutex
		acked []ack
		total atomic.Int64
		wg    sync.WaitGroup
	)
	enough := make(chan struct{})
	var once sync.Once
	for w := range writers {
		cs := in.connect(ctx, tok)
		wg.Add(1)
		go func() {
			defer wg.Done()
			versions := map[string]string{}
			counts := map[string]int{}
			for i := 0; ; i++ {
				p := fmt.Sprintf("n%d-%d.md", w, i%notesEach)
				if versions[p] == "" {
					versions[p] = versionOf("# Note\ncount: 0\n")
				}
				c := counts[p]
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note", Arguments: map[string]any{
					"id": p, "version": versions[p], "old_text": fmt.Sprintf("count: %d\n", c), "new_text": fmt.Sprintf("count: %d\n", c+1),
				}})
				if err != nil || res.IsError {
					return // the server is gone
				}
				var out struct {
					Version         string `json:"version"`
					PreviousVersion string `json:"previous_version"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(b, &out); err != nil {
					return
				}
				text := fmt.Sprintf("# Note\ncount: %d\n", c+1)
				mu.Lock()
				acked = append(acked, ack{p, out.PreviousVersion, out.Version, text})
				mu.Unlock()
				versions[p], counts[p] = out.Version, c+1
				if total.Add(1) >= 200 {
					once.Do(func() { close(enough) })
				}
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(2 * time.Minute):
		t.Fatalf("only %d writes in two minutes:\n%s", total.Load(), in.logs.String())
	}
	// Kill while the writers are still writing.
	in.srv.Kill()
	cancel()
	wg.Wait()

	h, err := store.OpenHistory(context.Background(), in.State, store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d writes acknowledged before SIGKILL", len(acked))
	for _, a := range acked {
		for _, v := range []string{a.prev, a.version} {
			_, data, err := h.Find(context.Background(), a.path, v)
			if err != nil {
				t.Fatalf("%s version %s of an acknowledged write is not in the history: %v", a.path, v, err)
			}
			if versionOf(string(data)) != v {
				t.Fatalf("%s version %s holds text of version %s", a.path, v, versionOf(string(data)))
			}
		}
		if _, data, _ := h.Find(context.Background(), a.path, a.version); string(data) != a.text {
			t.Fatalf("%s version %s holds %q, want %q", a.path, a.version, data, a.text)
		}
	}
	// Every acknowledged write has its journal row: the journal shares
	// its syncs among writers, and still returns only once its row is in.
	st, err := store.Open(context.Background(), in.State, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	journaled := map[string]bool{}
	for after := int64(0); ; {
		rows, err := st.JournalAfter(context.Background(), after, store.MaxJournalLimit)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			break
		}
		for _, r := range rows {
			if r.Result == store.ResultOK {
				journaled[r.Path+" "+r.OldVersion+" "+r.NewVersion] = true
			}
			after = r.ID
		}
	}
	for _, a := range acked {
		if !journaled[a.path+" "+a.prev+" "+a.version] {
			t.Fatalf("the acknowledged write of %s %s → %s has no journal row", a.path, a.prev, a.version)
		}
	}
	// What is on disk now is stored too: its version was kept before the
	// note was replaced.
	for w := range writers {
		for n := range notesEach {
			p := fmt.Sprintf("n%d-%d.md", w, n)
			b, err := os.ReadFile(filepath.Join(in.Vault, p))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "# Note\ncount: ") {
				t.Fatalf("%s is torn: %q", p, b)
			}
			if _, _, err := h.Find(context.Background(), p, versionOf(string(b))); err != nil {
				t.Errorf("%s as on disk after the crash is not in the history: %v", p, err)
			}
		}
	}
}

// versionOf is a note's version as the tools report it.
func versionOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// A crash after the history is written and before the note is replaced
// leaves the note as it was and both texts in the history: the old one is
// never lost, and the new one can be restored.
func TestCrashBetweenHistoryAndWrite(t *testing.T) {
	in := newInstance(t)
	in.bin = testkit.CortexWithFaults(t)
	token := in.token("laptop")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	const before = "# Plan\nthe old text\n"
	if err := os.WriteFile(filepath.Join(in.Vault, "plan.md"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CORTEX_FAULT", "write-after-history")
	in.start()
	cs := in.connect(ctx, token)
	crashOn(t, ctx, in, cs, "edit_note", map[string]any{"id": "plan.md", "version": versionOf(before), "old_text": "old", "new_text": "new"})
	if b, err := os.ReadFile(filepath.Join(in.Vault, "plan.md")); err != nil || string(b) != before {
		t.Fatalf("plan.md after the crash: %q, %v", b, err)
	}
	h, err := store.OpenHistory(ctx, in.State, store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, text := range []string{before, "# Plan\nthe new text\n"} {
		if _, got, err := h.Find(ctx, "plan.md", versionOf(text)); err != nil || string(got) != text {
			t.Errorf("history of %q: %q, %v", text, got, err)
		}
	}
}

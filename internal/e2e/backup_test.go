package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
)

// TestBackupWhileWritingRestores: a backup taken while eight clients write
// verifies, restores into fresh folders, and the restored server serves
// every write acknowledged before the backup began, accepts a token made
// before it and refuses one revoked before it.
func TestBackupWhileWritingRestores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	in := newInstance(t)
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	tok := in.token("writer")
	gone := in.token("gone")
	if _, errOut, err := in.admin("token", "revoke", "gone"); err != nil {
		t.Fatalf("revoke: %v %s", err, errOut)
	}
	in.start("--min-free-mb", "0", "--rate-limit", "1000000")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const writers = 8
	type ack struct {
		path, text string
		log        bool // an append to the writer's log: the note holds text as a prefix of its lines
	}
	var (
		mu    sync.Mutex
		acked []ack
		total atomic.Int64
		wg    sync.WaitGroup
	)
	// milestones close when the writers have made that many writes in all.
	type milestone struct {
		n  int64
		ch chan struct{}
	}
	first, second := milestone{100, make(chan struct{})}, milestone{0, make(chan struct{})}
	var secondAt atomic.Int64
	secondAt.Store(1 << 62)
	var once1, once2 sync.Once
	stop := make(chan struct{})
	for w := range writers {
		cs := in.connect(ctx, tok)
		wg.Add(1)
		go func() {
			defer wg.Done()
			logPath := fmt.Sprintf("w%d/log.md", w)
			logText := "# Log\n"
			if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": logPath, "content": logText}}); err != nil || r.IsError {
				t.Errorf("create log: %v %v", err, r)
				return
			}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := fmt.Sprintf("w%d/n%04d.md", w, i)
				text := fmt.Sprintf("# Note %d of writer %d\n\nwritten while a backup may run\n", i, w)
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": p, "content": text}})
				if err != nil || r.IsError {
					return
				}
				line := fmt.Sprintf("entry %d\n", i)
				r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "append", Arguments: map[string]any{"id": logPath, "text": line}})
				if err != nil || r.IsError {
					return
				}
				logText += line
				mu.Lock()
				acked = append(acked, ack{path: p, text: text}, ack{path: logPath, text: logText, log: true})
				mu.Unlock()
				n := total.Add(2)
				if n >= first.n {
					once1.Do(func() { close(first.ch) })
				}
				if n >= secondAt.Load() {
					once2.Do(func() { close(second.ch) })
				}
			}
		}()
	}
	select {
	case <-first.ch:
	case <-time.After(2 * time.Minute):
		t.Fatalf("only %d writes in two minutes:\n%s", total.Load(), in.logs.String())
	}
	// Everything acknowledged now must be in the backup.
	mu.Lock()
	before := append([]ack(nil), acked...)
	mu.Unlock()
	backups := filepath.Join(t.TempDir(), "backups")
	out, errOut, err := in.admin("backup", "--to", backups)
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, errOut)
	}
	file := strings.TrimSpace(out)
	during := total.Load() - int64(len(before))
	// Let the writers go on a little after the backup, then stop them.
	secondAt.Store(total.Load() + 40)
	select {
	case <-second.ch:
	case <-time.After(2 * time.Minute):
		t.Fatalf("writers stopped after the backup:\n%s", in.logs.String())
	}
	close(stop)
	wg.Wait()
	t.Logf("%d writes acknowledged before the backup, %d while it ran; %s", len(before), during, strings.TrimSpace(errOut))
	if during <= 0 {
		t.Logf("no write landed while the backup ran")
	}

	if _, errOut, err := in.admin("backup", "verify", file); err != nil {
		t.Fatalf("verify: %v\n%s", err, errOut)
	}
	restored := newInstance(t)
	if _, errOut, err := in.admin("restore", file, "--vault", restored.Vault, "--state", restored.State); err != nil {
		t.Fatalf("restore: %v\n%s", err, errOut)
	}
	restored.start("--min-free-mb", "0", "--rate-limit", "1000000")
	cs := restored.connect(ctx, tok)
	latest := map[string]ack{}
	for _, a := range before {
		latest[a.path] = a
	}
	for p, a := range latest {
		r := call(t, ctx, cs, "fetch", map[string]any{"id": p})
		if r.isError {
			t.Fatalf("%s, written before the backup, is not served after the restore: %s", p, r.text)
		}
		got, err := os.ReadFile(filepath.Join(restored.Vault, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case a.log && !strings.HasPrefix(string(got), a.text):
			t.Errorf("%s lost appends acknowledged before the backup:\n got %q\nwant a prefix %q", p, got, a.text)
		case !a.log && string(got) != a.text:
			t.Errorf("%s restored as %q, want %q", p, got, a.text)
		}
	}
	if resp := restored.postMCP(gone, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token revoked before the backup answers %s after the restore", resp.Status)
	}
	if err := restored.stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{store.FileName, store.HistoryFileName} {
		rep, err := store.CheckCopy(context.Background(), name, filepath.Join(restored.State, name))
		if err != nil {
			t.Errorf("restored %s: %v", name, err)
		}
		for _, c := range rep.Counts {
			// Each acknowledged write was journaled, and its note's
			// versions kept, before it was acknowledged.
			if (c.What == "journal entries" || c.What == "note versions") && c.N < int64(len(before)) {
				t.Errorf("restored %s holds %d %s, fewer than the %d writes acknowledged before the backup", name, c.N, c.What, len(before))
			}
		}
	}
}

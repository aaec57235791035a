package history

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit/notekit"
)

// One app creating and deleting 1 MB random notes until it has written
// more than twice the history's cap does not stop another app: every
// write of both succeeds, the stored history stays under the cap (and the
// file on disk near it), the flood evicts only its own texts, and the
// other app keeps every version it wrote.
func TestHistoryFloodLeavesOtherAppsWriting(t *testing.T) {
	const limit = 8 << 20
	ctx := context.Background()
	w := &world{World: notekit.New(t, notekit.Options{Files: map[string]string{"journal.md": "# Journal\n"},
		Keeper: Keeper, HistoryMaxBytes: limit}), t: t}
	w.svc = New(Options{Vault: w.Vault, History: w.History, Journal: w.Store, Now: w.Clock.Now})

	random := make([]byte, 750_000) // 1,000,000 characters of base64
	var written int
	for i := 0; written < 2*limit; i++ {
		rand.Read(random)
		text := base64.StdEncoding.EncodeToString(random)
		p := fmt.Sprintf("flood/%03d.md", i)
		w.Call("flood", "create_note", map[string]any{"path": p, "content": text})
		w.Call("flood", "delete_note", map[string]any{"id": p, "version": w.Version(p)})
		written += len(text)

		w.Call("claude", "append", map[string]any{"id": "journal.md", "text": fmt.Sprintf("entry %d\n", i)})
		if i%4 == 0 {
			w.Call("claude", "create_note", map[string]any{"path": fmt.Sprintf("ideas/%d.md", i), "content": "an idea\n"})
		}
		st, err := w.History.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Stored > limit {
			t.Fatalf("after %d flood notes the history stores %d bytes, over its cap of %d", i+1, st.Stored, limit)
		}
	}

	vs, err := w.svc.Versions(ctx, "journal.md")
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(w.Read("journal.md"), "entry ")
	if len(vs) != n+1 { // the text found at the first append, then each append
		t.Fatalf("journal.md has %d versions after %d appends", len(vs), n)
	}
	for _, v := range vs {
		if v.Writer != "claude" && v.Writer != "external" {
			t.Fatalf("journal.md version by %q", v.Writer)
		}
	}
	r := w.History.Room()
	if r.Share == 0 || r.Deleted != 0 || r.Oldest != 0 || !slices.Equal(r.Writers, []string{"flood"}) {
		t.Fatalf("room made %+v: want only the flood's own texts dropped", r)
	}
	// The file on disk: the stored texts, SQLite's pages around them and
	// the WAL, which a checkpoint rewinds but does not shrink.
	var size int64
	for _, f := range []string{store.HistoryFileName, store.HistoryFileName + "-wal"} {
		if fi, err := os.Stat(filepath.Join(w.State, f)); err == nil {
			size += fi.Size()
		}
	}
	st, err := w.History.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("flood wrote %d MB; history stores %d versions in %d bytes; history.db and its WAL: %d bytes", written/1e6, st.Versions, st.Stored, size)
	if size > 2*limit {
		t.Fatalf("history.db and its WAL take %d bytes for a cap of %d", size, limit)
	}
}

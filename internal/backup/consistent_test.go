package backup

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// A backup taken while 8 apps write: every note of the restored vault has
// its version in the restored history and, written by an app, in the
// restored journal, so that each can be undone after a restore. The
// writes go the way the tools make them: the vault (which keeps the
// version in history.db first), then the journal.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	vaultDir, stateDir := fixture(t)
	st, err := store.Open(ctx, stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := store.OpenHistory(ctx, stateDir, store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	v, err := vault.Open(vault.Options{Dir: vaultDir, History: history.Keeper(h)})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	const writers, perWriter = 8, 40
	midway := make(chan struct{})
	backedUp := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			app := fmt.Sprintf("app-%d", w)
			wctx := vault.WithWriter(ctx, app)
			for i := 0; ; i++ {
				if i == perWriter/2 && w == 0 {
					once.Do(func() { close(midway) })
				}
				if i >= perWriter {
					select {
					case <-backedUp:
						return
					default: // keep writing until the backup is done
					}
				}
				p := fmt.Sprintf("w%d/n%03d.md", w, i%perWriter)
				var r vault.WriteResult
				var err error
				tool := "create_note"
				if i < perWriter {
					r, err = v.Create(wctx, p, fmt.Sprintf("# %s %d\n", app, i))
				} else {
					tool = "append"
					r, err = v.Append(wctx, p, fmt.Sprintf("more %d\n", i), "")
				}
				if err != nil {
					errs <- fmt.Errorf("%s %s: %w", tool, p, err)
					return
				}
				if err := st.RecordWrite(ctx, store.JournalEntry{App: app, Tool: tool, Path: r.Path,
					OldVersion: r.OldVersion, NewVersion: r.Version, Result: store.ResultOK}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	<-midway
	res, err := Create(ctx, filepath.Join(t.TempDir(), "backups"), Options{Vault: vaultDir, State: stateDir})
	close(backedUp)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	rv, rs := filepath.Join(dst, "vault"), filepath.Join(dst, "state")
	if _, err := Restore(ctx, res.Path, rv, rs, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	rst, err := store.Open(ctx, rs, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	rh, err := store.OpenHistory(ctx, rs, store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rh.Close()
	journal, err := rst.Journal(ctx, time.Time{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	journaled := map[[2]string]bool{}
	for _, e := range journal {
		if e.Result == store.ResultOK {
			journaled[[2]string{e.Path, e.NewVersion}] = true
		}
	}
	checked := 0
	err = vault.Snapshot(ctx, rv, vault.SnapshotOptions{}, func(f vault.SnapshotFile) error {
		if !f.Note || filepath.Dir(f.Path) == "." || f.Path[0] != 'w' {
			return nil // the fixture's own notes were never written by an app
		}
		checked++
		if _, _, err := rh.Find(ctx, f.Path, f.Version); err != nil {
			t.Errorf("%s at %s: not in the restored history: %v", f.Path, f.Version, err)
		}
		if !journaled[[2]string{f.Path, f.Version}] {
			t.Errorf("%s at %s: not in the restored journal", f.Path, f.Version)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < perWriter/2 {
		t.Errorf("only %d notes written before the backup", checked)
	}
	// The fixture's three notes were put there beside cortex: the
	// history may not hold them yet, and the manifest says so.
	if res.Manifest.Unrecorded > 3 {
		t.Errorf("manifest counts %d unrecorded notes", res.Manifest.Unrecorded)
	}
	t.Logf("%d notes checked; backup took %s", checked, res.Took.Round(time.Millisecond))
}

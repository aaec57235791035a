// Package notekit sets up, for tests, what the owner's side of cortex works
// on: a vault of notes with their history and the write journal, on real
// SQLite files in temporary folders, a clock moved by hand, and the real MCP
// tools that apps write through (in memory, no sockets).
//
// It is for tests only, like testkit; unlike testkit it builds on store,
// vault and tools, so their own tests cannot use it.
package notekit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Options say what New sets up.
type Options struct {
	// Files are the vault's first files: slash paths to contents.
	Files map[string]string
	// Keeper is how the vault keeps each version in the history database
	// (history.Keeper); required.
	Keeper func(*store.HistoryDB) vault.Versions
	// PublicURL is given to the tools, for the links they answer with.
	PublicURL config.PublicURL
	// HistoryMaxBytes caps the history (0: the default).
	HistoryMaxBytes int64
}

// World is a vault, its history and journal, and the apps that write to
// it. Everything is closed when the test ends.
type World struct {
	Dir     string // the vault folder
	State   string // the state folder (cortex.db, history.db)
	Clock   *testkit.Clock
	Store   *store.Store
	History *store.HistoryDB
	Vault   *vault.Vault

	t    testing.TB
	opts Options
	apps map[string]*mcp.ClientSession
}

// New sets up a world with o's files; its clock starts at testkit.Epoch
// and the disk never runs out.
func New(t testing.TB, o Options) *World {
	t.Helper()
	ctx := context.Background()
	w := &World{Dir: t.TempDir(), State: t.TempDir(), Clock: testkit.NewClock(time.Time{}), t: t, opts: o, apps: map[string]*mcp.ClientSession{}}
	testkit.WriteFiles(t, w.Dir, o.Files)
	state := w.State
	var err error
	if w.Store, err = store.Open(ctx, state, store.Options{Now: w.Clock.Now}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Store.Close() })
	if w.History, err = store.OpenHistory(ctx, state, store.HistoryOptions{Now: w.Clock.Now, MaxBytes: o.HistoryMaxBytes}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.History.Close() })
	w.Vault, err = vault.Open(vault.Options{Dir: w.Dir, History: o.Keeper(w.History), Now: w.Clock.Now,
		FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Vault.Close() })
	return w
}

// Call runs a tool as app, as an assistant would, and returns its
// structured output; a tool error fails the test. The clock then moves on
// a second, so that each call has a moment of its own.
func (w *World) Call(app, tool string, args map[string]any) map[string]any {
	w.t.Helper()
	ctx := context.Background()
	cs := w.apps[app]
	if cs == nil {
		srv := tools.NewServer(tools.Deps{Vault: w.Vault, Journal: w.Store, App: app, Now: w.Clock.Now, PublicURL: w.opts.PublicURL}, "")
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			w.t.Fatal(err)
		}
		var err error
		if cs, err = mcp.NewClient(&mcp.Implementation{Name: app, Version: "1"}, nil).Connect(ctx, ct, nil); err != nil {
			w.t.Fatal(err)
		}
		w.t.Cleanup(func() { cs.Close() })
		w.apps[app] = cs
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	out := map[string]any{}
	json.Unmarshal(b, &out)
	if res.IsError {
		w.t.Fatalf("%s %s failed: %s", app, tool, b)
	}
	w.Clock.Advance(time.Second)
	return out
}

// Read is the file at slash path p as it is on disk, or "<absent>".
func (w *World) Read(p string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Dir, filepath.FromSlash(p)))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

// Version is the note's current version, as the tools report it.
func (w *World) Version(p string) string {
	w.t.Helper()
	n, err := w.Vault.Read(context.Background(), p)
	if err != nil {
		w.t.Fatalf("read %s: %v", p, err)
	}
	return n.Version
}

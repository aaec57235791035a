package tools

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// TestReadsRecorded: each read tool records the notes its answer showed,
// and a failed call or a writing tool records nothing.
func TestReadsRecorded(t *testing.T) {
	e := newEnv(t)
	e.write("Plan.md", "# Plan\n\nturnips, see [[Garden]] and ![[pic.png]]\n")
	e.write("Garden.md", "# Garden\n\nturnips again [[Plan]] [[Plan]]\n")
	e.write("pic.png", string(pngBytes(t)))
	e.write("Folder/Inside.md", "inside\n")

	e.ok("fetch", map[string]any{"id": "Plan"}, nil)
	e.ok("fetch", map[string]any{"id": "pic.png"}, nil)
	e.ok("search", map[string]any{"query": "turnips", "limit": 1}, nil)
	e.ok("list", map[string]any{}, nil)
	e.ok("links", map[string]any{"id": "Garden.md"}, nil)
	e.ok("recent", map[string]any{"limit": 1}, nil)
	e.fail("fetch", map[string]any{"id": "Missing"}, "not_found")
	e.ok("append", map[string]any{"id": "Folder/Inside.md", "text": "more"}, nil)
	if err := e.reads.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := e.readLog.shown()
	var search, recent string // one result each; which one is the tools' choice
	for k := range got {
		switch k[:6] {
		case "search":
			search = k
		case "recent":
			recent = k
		}
	}
	want := map[string]int64{
		"fetch Plan.md": 1, "fetch pic.png": 1,
		search: 1,
		// The notes and attachments listed, not the folder.
		"list Garden.md": 1, "list Plan.md": 1, "list pic.png": 1,
		// The note and those it names, each once.
		"links Garden.md": 1, "links Plan.md": 1,
		recent: 1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("recorded %v\nwant %v", got, want)
	}
	for _, r := range e.readLog.reads {
		if r.App != "tester" {
			t.Errorf("recorded for app %q, want the journal's name tester", r.App)
		}
	}
}

// TestReadsInStore: a real client session's reads land in a real state
// database, where the owner reads them back per app and per note.
func TestReadsInStore(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"Plan.md":   "# Plan\n\nbeans\n",
		"Garden.md": "# Garden\n\nbeans and peas\n",
	})
	v, err := vault.Open(vault.Options{Dir: dir, FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ctx := context.Background()
	st := openStore(t)
	rec := NewReadRecorder(st, ReadRecorderOptions{})
	cs := connect(t, NewServer(Deps{Vault: v, Journal: st, Reads: rec, App: "claude"}, ""))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"fetch", map[string]any{"id": "Plan"}},
		{"fetch", map[string]any{"id": "Plan.md"}},
		{"search", map[string]any{"query": "beans"}},
		{"list", map[string]any{}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
	}
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.ReadsByApp(ctx, "claude", time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]string{}
	for _, r := range got {
		counts[r.Path] = fmt.Sprint(r.Count, r.Tools)
	}
	want := map[string]string{"Plan.md": "4 [fetch list search]", "Garden.md": "2 [list search]"}
	if !maps.Equal(counts, want) {
		t.Errorf("ReadsByApp = %v, want %v", counts, want)
	}
	of, err := st.ReadsOfNote(ctx, "Garden.md", time.Time{})
	if err != nil || len(of) != 1 || of[0].App != "claude" {
		t.Errorf("ReadsOfNote = %+v, %v", of, err)
	}
}

// TestReadRecorderRun: Run writes every Every, sooner when half full, and
// what is left when its context ends; a nil recorder records nothing.
func TestReadRecorderRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &memReads{}
		r := NewReadRecorder(log, ReadRecorderOptions{Every: 5 * time.Second, MaxPending: 100})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()

		r.Record("a", "fetch", []string{"x.md"})
		synctest.Wait()
		if n := len(log.shown()); n != 0 {
			t.Fatalf("written before Every: %d", n)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := log.shown(); !maps.Equal(got, map[string]int64{"fetch x.md": 1}) {
			t.Fatalf("after Every: %v", got)
		}

		// Half full: written at once.
		var many []string
		for i := range 50 {
			many = append(many, fmt.Sprintf("n%d.md", i))
		}
		r.Record("a", "list", many)
		synctest.Wait()
		if n := len(log.shown()); n != 51 {
			t.Fatalf("half full: %d written, want 51", n)
		}

		r.Record("a", "search", []string{"last.md"})
		cancel()
		<-done
		if got := log.shown()["search last.md"]; got != 1 {
			t.Errorf("the last flush lost a read: %v", log.shown())
		}
	})
	var none *ReadRecorder
	none.Record("a", "fetch", []string{"x.md"})
	if err := none.Flush(context.Background()); err != nil || none.Dropped() != 0 {
		t.Errorf("nil recorder: %v %d", err, none.Dropped())
	}
	if NewReadRecorder(nil, ReadRecorderOptions{}) != nil {
		t.Error("a recorder without a log")
	}
}

// TestReadRecorderDrops: past MaxPending, new reads are dropped, counted
// and logged; reads already held still count.
func TestReadRecorderDrops(t *testing.T) {
	var logBuf testkit.Buffer
	readLog := &memReads{}
	r := NewReadRecorder(readLog, ReadRecorderOptions{MaxPending: 3,
		Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	r.Record("a", "list", []string{"1.md", "2.md", "3.md", "4.md", "5.md"})
	r.Record("a", "list", []string{"1.md", "6.md"})
	if d := r.Dropped(); d != 3 {
		t.Errorf("Dropped = %d, want 3", d)
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := readLog.shown()
	if !maps.Equal(got, map[string]int64{"list 1.md": 2, "list 2.md": 1, "list 3.md": 1}) {
		t.Errorf("recorded %v", got)
	}
	if !strings.Contains(logBuf.String(), "dropped=3") {
		t.Errorf("log: %s", logBuf.String())
	}
	// After a flush there is room again.
	r.Record("a", "fetch", []string{"7.md"})
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if readLog.shown()["fetch 7.md"] != 1 || r.Dropped() != 3 {
		t.Errorf("after the flush: %v, dropped %d", readLog.shown(), r.Dropped())
	}
}

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// memJournal is an in-memory Journal with the store's semantics: LastWrites
// returns the latest successful entry per path.
type memJournal struct {
	mu      sync.Mutex
	entries []store.JournalEntry
	fail    error // returned by every call when set
}

func (j *memJournal) RecordWrite(_ context.Context, e store.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return j.fail
	}
	if e.Path == "" || e.Result == "" {
		return store.ErrInvalidJournalEntry
	}
	e.ID = int64(len(j.entries) + 1)
	j.entries = append(j.entries, e)
	return nil
}

func (j *memJournal) LastWrites(_ context.Context, paths []string) (map[string]store.JournalEntry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return nil, j.fail
	}
	out := map[string]store.JournalEntry{}
	for _, p := range paths {
		for _, e := range j.entries {
			if e.Path == p && e.Result == store.ResultOK {
				out[p] = e
			}
		}
	}
	return out, nil
}

func (j *memJournal) all() []store.JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]store.JournalEntry(nil), j.entries...)
}

// env is a real vault in a temporary directory served over the SDK's
// in-memory transport to a real client session.
type env struct {
	t   testing.TB
	dir string
	v   *vault.Vault
	j   *memJournal
	// reads records into readLog; a test flushes it to see what was
	// recorded.
	reads   *ReadRecorder
	readLog *memReads
	cs      *mcp.ClientSession
	log     *testkit.Buffer
	srv     *mcp.Server
}

const testURL = "http://127.0.0.1:8080"

func newEnv(t testing.TB, opts ...func(*vault.Options)) *env {
	t.Helper()
	return newEnvDeps(t, nil, opts...)
}

// newEnvDeps is newEnv with deps changing the tools' dependencies after
// the vault is open.
func newEnvDeps(t testing.TB, deps func(*Deps), opts ...func(*vault.Options)) *env {
	t.Helper()
	dir := t.TempDir()
	o := vault.Options{
		Dir:       dir,
		FreeSpace: func(string) (uint64, error) { return 1 << 40, nil },
	}
	for _, f := range opts {
		f(&o)
	}
	v, err := vault.Open(o)
	if err != nil {
		t.Fatalf("open vault: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	e := &env{t: t, dir: dir, v: v, j: &memJournal{}, log: &testkit.Buffer{}}
	now := o.Now // the vault's clock, when a test sets one, is the tools' too
	if now == nil {
		now = time.Now
	}
	logger := slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.readLog = &memReads{}
	e.reads = NewReadRecorder(e.readLog, ReadRecorderOptions{Logger: logger, Now: now})
	d := Deps{
		Vault:     v,
		Journal:   e.j,
		PublicURL: config.MustParsePublicURL(testURL + "/"),
		Logger:    logger,
		Now:       now,
		Version:   "test",
		App:       "tester",
		Reads:     e.reads,
	}
	if deps != nil {
		deps(&d)
	}
	e.srv = NewServer(d, "Keep notes short.")
	e.cs = connect(t, e.srv)
	return e
}

// connect opens a real client session to srv over the SDK's in-memory
// transport.
func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	return connectCtx(t, context.Background(), srv)
}

// connectCtx is connect with the server's side of the session run in
// ctx, which may carry a scope as the HTTP edge puts one.
func connectCtx(t testing.TB, ctx context.Context, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// result is a tool result as a model sees it.
type result struct {
	isError bool
	text    string
	data    map[string]any // structured content
	raw     json.RawMessage
}

func (e *env) call(name string, args map[string]any) result {
	e.t.Helper()
	res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: protocol error: %v", name, err)
	}
	r := result{isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent == nil {
		e.t.Fatalf("%s: no structured content (text %q)", name, r.text)
	}
	r.raw, err = json.Marshal(res.StructuredContent)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(r.raw, &r.data); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// ok calls a tool that must succeed and decodes its output into out.
func (e *env) ok(name string, args map[string]any, out any) result {
	e.t.Helper()
	r := e.call(name, args)
	if r.isError {
		e.t.Fatalf("%s(%v) failed: %s", name, args, r.text)
	}
	if !r.isError && !jsonEqual(r.text, string(r.raw)) {
		e.t.Errorf("%s: text content %s differs from structured content %s", name, r.text, r.raw)
	}
	if out != nil {
		if err := json.Unmarshal(r.raw, out); err != nil {
			e.t.Fatalf("%s: decode: %v", name, err)
		}
	}
	return r
}

// fail calls a tool that must fail with code and returns the structured
// error.
func (e *env) fail(name string, args map[string]any, code string) toolError {
	e.t.Helper()
	r := e.call(name, args)
	if !r.isError {
		e.t.Fatalf("%s(%v) succeeded, want %s: %s", name, args, code, r.raw)
	}
	var out errorOutput
	if err := json.Unmarshal(r.raw, &out); err != nil || out.Error == nil {
		e.t.Fatalf("%s: structured error missing: %s", name, r.raw)
	}
	if out.Error.Code != code || !strings.HasPrefix(r.text, code+": ") {
		e.t.Fatalf("%s(%v) = %q (code %s), want %s", name, args, r.text, out.Error.Code, code)
	}
	if out.Error.Message == "" || strings.Contains(r.text, e.dir) || strings.Contains(r.text, "goroutine") {
		e.t.Errorf("%s: bad error text %q", name, r.text)
	}
	return *out.Error
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// write puts a file into the vault directly, as an editor or sync tool
// would.
func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(rel)))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// version fetches a note's current version.
func (e *env) version(id string) string {
	e.t.Helper()
	var out fetchOut
	e.ok("fetch", map[string]any{"id": id}, &out)
	return out.Metadata.Version
}

var errJournalDown = errors.New("journal down")

// memReads is an in-memory ReadLog.
type memReads struct {
	mu    sync.Mutex
	reads []store.Read
	calls int
}

func (m *memReads) RecordReads(_ context.Context, reads []store.Read) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.reads = append(m.reads, reads...)
	return nil
}

// shown maps "tool path" to how many times it was recorded.
func (m *memReads) shown() map[string]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int64{}
	for _, r := range m.reads {
		out[r.Tool+" "+r.Path] += r.Count
	}
	return out
}

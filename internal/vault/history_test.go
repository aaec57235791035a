package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeHistory records what the vault keeps. At each Keep it reads the
// note's file, so that a test can check the note was not yet replaced.
type fakeHistory struct {
	dir string

	mu      sync.Mutex
	kept    []Kept
	onDisk  []string // the file at the first Kept's path, at Keep time
	dropped []int64
	fail    error
	next    int64
	seen    chan Kept // every Kept, when not nil
}

func (h *fakeHistory) Keep(_ context.Context, vs []Kept) ([]int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail != nil {
		return nil, h.fail
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(vs[0].Path)))
	h.onDisk = append(h.onDisk, string(b))
	ids := make([]int64, len(vs))
	for i, k := range vs {
		h.next++
		ids[i] = h.next
		h.kept = append(h.kept, k)
		if h.seen != nil {
			h.seen <- k
		}
	}
	return ids, nil
}

func (h *fakeHistory) Drop(_ context.Context, ids []int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropped = append(h.dropped, ids...)
	return nil
}

func withHistory(h *fakeHistory) func(*Options) {
	return func(o *Options) { o.History = h }
}

func TestHistoryKeptBeforeEachWrite(t *testing.T) {
	h := &fakeHistory{}
	v, dir := newTestVault(t, map[string]string{"a.md": "one\n", "b.md": "[[a]]\n"}, withHistory(h))
	h.dir = dir
	wctx := WithWriter(ctx, "claude")

	r, err := v.Edit(wctx, "a.md", versionOf([]byte("one\n")), "one", "two", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Append(wctx, "a.md", "three\n", ""); err != nil {
		t.Fatal(err)
	}
	cur := versionOf([]byte(readFile(t, dir, "a.md")))
	if _, err := v.Move(wctx, "a.md", "c.md", cur, true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Delete(wctx, "c.md", cur); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Create(wctx, "d.md", "new"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Restore(WithWriter(ctx, "owner (cli)"), "d.md", versionOf([]byte("new")), "older"); err != nil {
		t.Fatal(err)
	}

	type want struct {
		path, content, writer, kind string
		gone, observed              bool
	}
	wants := []want{
		{"a.md", "one\n", WriterExternal, KindExternal, false, true},
		{"a.md", "two\n", "claude", KindEdit, false, false},
		{"a.md", "two\n", WriterExternal, KindExternal, false, true},
		{"a.md", "two\nthree\n", "claude", KindAppend, false, false},
		{"a.md", "two\nthree\n", "claude", KindMove, true, false},
		{"c.md", "two\nthree\n", "claude", KindMove, false, false},
		{"b.md", "[[a]]\n", WriterExternal, KindExternal, false, true},
		{"b.md", "[[c]]\n", "claude", KindEdit, false, false},
		{"c.md", "two\nthree\n", "claude", KindDelete, true, false},
		{"d.md", "new", "claude", KindCreate, false, false},
		{"d.md", "new", WriterExternal, KindExternal, false, true},
		{"d.md", "older", "owner (cli)", KindRestore, false, false},
	}
	if len(h.kept) != len(wants) {
		t.Fatalf("kept %d versions, want %d: %+v", len(h.kept), len(wants), h.kept)
	}
	for i, w := range wants {
		k := h.kept[i]
		got := want{k.Path, string(k.Content), k.Writer, k.Kind, k.Gone, k.Observed}
		if got != w {
			t.Errorf("kept[%d] = %+v, want %+v", i, got, w)
		}
	}
	// The first version of every Keep is the one on disk at that moment:
	// the note had not been replaced yet.
	if h.onDisk[0] != "one\n" || h.onDisk[1] != "two\n" {
		t.Errorf("on disk while keeping: %q", h.onDisk[:2])
	}
	if r.OldVersion != versionOf([]byte("one\n")) {
		t.Errorf("edit result %+v", r)
	}
}

func TestHistoryFailureRefusesTheWrite(t *testing.T) {
	h := &fakeHistory{fail: errors.New("database is locked")}
	v, dir := newTestVault(t, map[string]string{"a.md": "one\n"}, withHistory(h))
	h.dir = dir
	ver := versionOf([]byte("one\n"))
	_, err := v.Edit(ctx, "a.md", ver, "one", "two", false)
	wantCode(t, err, CodeHistoryUnavailable)
	_, err = v.Delete(ctx, "a.md", ver)
	wantCode(t, err, CodeHistoryUnavailable)
	_, err = v.Create(ctx, "b.md", "x")
	wantCode(t, err, CodeHistoryUnavailable)
	if got := readFile(t, dir, "a.md"); got != "one\n" {
		t.Fatalf("the note changed without history: %q", got)
	}
	if exists(dir, "b.md") || exists(dir, ".trash") {
		t.Fatal("a note was created or trashed without history")
	}
	// A vault error from the history (the disk floor) reaches the caller.
	h.fail = &Error{Code: CodeDiskLow, Message: "low"}
	_, err = v.Append(ctx, "a.md", "x", "")
	wantCode(t, err, CodeDiskLow)
}

func TestHistoryDroppedWhenTheWriteFails(t *testing.T) {
	h := &fakeHistory{}
	v, dir := newTestVault(t, map[string]string{"a.md": "one\n", "b.md": "taken"}, withHistory(h))
	h.dir = dir
	ver := versionOf([]byte("one\n"))
	// Moving onto a note that appeared after the check fails in relink;
	// here the target exists from the start and fails the check before
	// anything is kept.
	if _, err := v.Move(ctx, "a.md", "b.md", ver, false); err == nil {
		t.Fatal("move onto an existing note succeeded")
	}
	if len(h.kept) != 0 {
		t.Fatalf("kept %+v for a refused move", h.kept)
	}
	// A create that loses the race for its path drops what it kept.
	if err := os.WriteFile(filepath.Join(dir, "c.md"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := v.Create(ctx, "c.md", "mine")
	wantCode(t, err, CodeNoteExists)
	if len(h.kept) != 0 && len(h.dropped) != len(h.kept) {
		t.Fatalf("kept %+v, dropped %v", h.kept, h.dropped)
	}
}

func TestHistoryKeepsOutsideChanges(t *testing.T) {
	h := &fakeHistory{seen: make(chan Kept, 16)}
	dir := t.TempDir()
	h.dir = dir
	writeFiles(t, dir, map[string]string{"a.md": "one\n"})
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: true, History: h})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	next := func() Kept {
		t.Helper()
		select {
		case k := <-h.seen:
			return k
		case <-time.After(10 * time.Second):
			t.Fatal("no version kept for an outside change")
			return Kept{}
		}
	}
	// The note as found at start is kept once the index is built.
	if k := next(); k.Path != "a.md" || string(k.Content) != "one\n" || k.Writer != WriterExternal || !k.Observed {
		t.Fatalf("kept %+v for the note as found", k)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("edited in an editor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := next()
	if k.Path != "a.md" || string(k.Content) != "edited in an editor\n" || k.Writer != WriterExternal || !k.Observed {
		t.Fatalf("kept %+v", k)
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	k = next()
	if k.Path != "a.md" || !k.Gone || k.Content != nil {
		t.Fatalf("kept %+v for an outside removal", k)
	}
}

// At start every note is kept once, in batches.
func TestHistoryKeepsEveryNoteFoundAtStart(t *testing.T) {
	h := &fakeHistory{seen: make(chan Kept, 200)}
	dir := t.TempDir()
	h.dir = dir
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("f%d/n%d.md", i%7, i)] = fmt.Sprintf("note %d\n", i)
	}
	writeFiles(t, dir, files)
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: true, History: h})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for range files {
		select {
		case <-h.seen:
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d notes kept", len(h.kept))
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]string{}
	for _, k := range h.kept {
		if _, dup := seen[k.Path]; dup {
			t.Fatalf("%s kept twice", k.Path)
		}
		seen[k.Path] = string(k.Content)
	}
	if len(seen) != len(files) {
		t.Fatalf("kept %d notes of %d", len(seen), len(files))
	}
	for p, c := range files {
		if seen[p] != c {
			t.Errorf("%s kept as %q", p, seen[p])
		}
	}
	if len(h.onDisk) < 3 {
		t.Errorf("%d Keep calls for 150 notes: not batched by 64", len(h.onDisk))
	}
}

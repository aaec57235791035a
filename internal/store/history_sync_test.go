package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// Writers whose commits land while a sync runs share the next sync: four
// Keeps, the first one's sync held until the three others have committed,
// cost two syncs, the second begun after all four commits.
func TestHistoryKeepsShareSyncs(t *testing.T) {
	ctx := context.Background()
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	gate := gateSyncs(h.wal)
	results := make(chan error, 4)
	write := func(i int) {
		_, err := h.Keep(ctx, []Keep{{Path: fmt.Sprintf("n%d.md", i), Content: fmt.Appendf(nil, "text %d", i), Writer: "app", Kind: KindCreate}})
		results <- err
	}
	go write(0)
	<-gate.held
	for i := 1; i < 4; i++ {
		go write(i)
	}
	// The three commit (in one transaction or more) while the first sync
	// is held, then wait for it. h.calls counts a call once its commit is
	// counted: polling the rows instead could read the commit count just
	// before the last commit was counted.
	for h.calls.Load() < 4 {
		runtime.Gosched()
	}
	commits := h.wal.committed.Load()
	close(gate.hold)
	for range 4 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	if began := gate.starts(); len(began) != 2 || began[0] != 1 || began[1] != commits {
		t.Fatalf("syncs began after commits %v; want [1 %d]: one for the first write, one shared by the three", began, commits)
	}
	if h.wal.synced != commits {
		t.Fatalf("synced up to commit %d, want %d", h.wal.synced, commits)
	}
}

// In a batch, a call refused for the disk floor leaves the calls before
// and after it stored (the batch starts over with a savepoint per call), and
// a text seen (Observed) but not yet stored is compressed by the
// committer.
func TestHistoryBatchWithARefusedCall(t *testing.T) {
	ctx := context.Background()
	// 6 KiB above the floor: a 1 KiB call fits (SQLite writes it twice),
	// two 4 KiB texts do not.
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{
		MinFree: 1 << 20, FreeSpace: func() (uint64, error) { return 1<<20 + 6<<10, nil }})
	random := func() []byte {
		b := make([]byte, 4<<10)
		rand.Read(b)
		return b
	}
	seen := bytes.Repeat([]byte("seen outside "), 50)
	var batch []*keepReq
	for _, items := range [][]Keep{
		{{Path: "a.md", Content: []byte("small a"), Writer: "app", Kind: KindCreate}},
		{{Path: "big.md", Content: random(), Writer: "app", Kind: KindCreate},
			{Path: "big2.md", Content: random(), Writer: "app", Kind: KindCreate}},
		{{Path: "b.md", Content: seen, Writer: "external", Kind: KindExternal, Observed: true}},
	} {
		r, err := prepare(items)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, r)
	}
	if batch[2].ps[0].data != nil {
		t.Fatal("an observed text was compressed before the committer looked for it")
	}
	h.commit(batch)
	if !errors.Is(batch[1].err, ErrHistoryDiskLow) || batch[1].ids != nil {
		t.Fatalf("the call over the floor: %v %v, want ErrHistoryDiskLow", batch[1].ids, batch[1].err)
	}
	for _, i := range []int{0, 2} {
		if batch[i].err != nil || len(batch[i].ids) != 1 || batch[i].ids[0] == 0 {
			t.Fatalf("call %d beside the refused one: %v %v", i, batch[i].ids, batch[i].err)
		}
	}
	if vs := versionsOf(t, h, "big.md"); len(vs) != 0 {
		t.Fatalf("the refused call stored %+v", vs)
	}
	vs := versionsOf(t, h, "b.md")
	if len(vs) != 1 {
		t.Fatalf("b.md versions %+v", vs)
	}
	if _, got, err := h.Version(ctx, vs[0].ID); err != nil || !bytes.Equal(got, seen) {
		t.Fatalf("the observed text stored as %q, %v", got, err)
	}
}

// An Observed text equal to the path's last version is skipped, unless
// an earlier item of the same call wrote the path: then it is no longer
// the last version, and is kept again.
func TestHistoryObservedAfterAWriteInTheSameCall(t *testing.T) {
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	keep(t, h, Keep{Path: "a.md", Content: []byte("one"), Writer: "app", Kind: KindCreate})
	if ids := keep(t, h, Keep{Path: "a.md", Content: []byte("one"), Writer: "external", Kind: KindExternal, Observed: true}); ids[0] != 0 {
		t.Fatalf("the last version seen again was kept: %v", ids)
	}
	ids := keep(t, h,
		Keep{Path: "a.md", Content: []byte("two"), Writer: "app", Kind: KindEdit},
		Keep{Path: "a.md", Content: []byte("one"), Writer: "external", Kind: KindExternal, Observed: true})
	if ids[0] == 0 || ids[1] == 0 {
		t.Fatalf("ids %v; want both kept", ids)
	}
	vs := versionsOf(t, h, "a.md")
	if len(vs) != 3 || vs[0].Kind != KindExternal || vs[1].Kind != KindEdit {
		t.Fatalf("versions %+v; want external, edit, create (newest first)", vs)
	}
}

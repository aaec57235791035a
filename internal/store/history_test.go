package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func openHistory(t testing.TB, dir string, c *testkit.Clock, opts HistoryOptions) *HistoryDB {
	t.Helper()
	opts.Now = c.Now
	h, err := OpenHistory(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("OpenHistory: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func keep(t testing.TB, h *HistoryDB, items ...Keep) []int64 {
	t.Helper()
	ids, err := h.Keep(context.Background(), items)
	if err != nil {
		t.Fatalf("Keep: %v", err)
	}
	return ids
}

func versionsOf(t testing.TB, h *HistoryDB, path string) []NoteVersion {
	t.Helper()
	vs, err := h.Versions(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestHistoryFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	h := openHistory(t, dir, testkit.NewClock(time.Time{}), HistoryOptions{})
	keep(t, h, Keep{Path: "a.md", Content: []byte("x"), Writer: "w", Kind: KindEdit})
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("state folder mode %o, want 700", m)
	}
	for _, f := range []string{HistoryFileName, HistoryFileName + "-wal"} {
		if m := mode(t, filepath.Join(dir, f)); m != 0o600 {
			t.Errorf("%s mode %o, want 600", f, m)
		}
	}
}

func TestHistoryStoresSameBytesOnce(t *testing.T) {
	ctx := context.Background()
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	body := bytes.Repeat([]byte("the same paragraph of a note\n"), 200)
	keep(t, h, Keep{Path: "a.md", Content: body, Writer: "app", Kind: KindCreate})
	keep(t, h, Keep{Path: "b.md", Content: body, Writer: "app", Kind: KindCreate})
	keep(t, h, Keep{Path: "a.md", Content: []byte("other"), Writer: "app", Kind: KindEdit})
	keep(t, h, Keep{Path: "a.md", Content: body, Writer: "app", Kind: KindRestore})
	st, err := h.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Versions != 4 || st.Blobs != 2 {
		t.Fatalf("stats %+v: want 4 versions over 2 contents", st)
	}
	if st.Stored >= int64(len(body))/4 {
		t.Errorf("stored %d bytes for a %d-byte repetitive note: not compressed", st.Stored, len(body))
	}
	vs := versionsOf(t, h, "a.md")
	if len(vs) != 3 || vs[0].Kind != KindRestore || vs[2].Kind != KindCreate {
		t.Fatalf("versions of a.md: %+v", vs)
	}
	_, got, err := h.Version(ctx, vs[2].ID)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Version: %v, %d bytes", err, len(got))
	}
	if vs[0].Version != "" && vs[0].Version != vs[2].Version {
		t.Errorf("same bytes, versions %q and %q", vs[0].Version, vs[2].Version)
	}
	if v, _, err := h.Find(ctx, "a.md", vs[1].Version); err != nil || v.ID != vs[1].ID {
		t.Errorf("Find(%s) = %+v, %v", vs[1].Version, v, err)
	}
}

func TestHistoryObservedSkipsKnownContent(t *testing.T) {
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	keep(t, h, Keep{Path: "a.md", Content: []byte("v1"), Writer: "app", Kind: KindEdit})
	ids := keep(t, h,
		Keep{Path: "a.md", Content: []byte("v1"), Writer: "external", Kind: KindExternal, Observed: true},
		Keep{Path: "a.md", Content: []byte("v2"), Writer: "app", Kind: KindEdit})
	if ids[0] != 0 || ids[1] == 0 {
		t.Fatalf("ids %v: the known content must be skipped and the new one kept", ids)
	}
	ids = keep(t, h, Keep{Path: "a.md", Content: []byte("v3 from an editor"), Writer: "external", Kind: KindExternal, Observed: true})
	if ids[0] == 0 {
		t.Fatal("an unseen outside version was skipped")
	}
	// A delete marks the note gone and repeats its last content.
	keep(t, h, Keep{Path: "a.md", Writer: "app", Kind: KindDelete, Gone: true})
	vs := versionsOf(t, h, "a.md")
	if len(vs) != 4 || !vs[0].Gone || vs[0].Version != vs[1].Version {
		t.Fatalf("versions after delete: %+v", vs)
	}
}

func TestHistoryPurge(t *testing.T) {
	ctx := context.Background()
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	shared := []byte("shared text")
	keep(t, h, Keep{Path: "secret.md", Content: []byte("password: hunter2"), Writer: "app", Kind: KindCreate})
	keep(t, h, Keep{Path: "secret.md", Content: shared, Writer: "app", Kind: KindEdit})
	keep(t, h, Keep{Path: "other.md", Content: shared, Writer: "app", Kind: KindCreate})
	n, err := h.Purge(ctx, "secret.md")
	if err != nil || n != 2 {
		t.Fatalf("Purge = %d, %v; want 2", n, err)
	}
	if vs := versionsOf(t, h, "secret.md"); len(vs) != 0 {
		t.Fatalf("versions left: %+v", vs)
	}
	st, _ := h.Stats(ctx)
	if st.Blobs != 1 {
		t.Errorf("blobs %d: the purged note's own content must go, the shared one stay", st.Blobs)
	}
	if _, got, err := h.Find(ctx, "other.md", versionsOf(t, h, "other.md")[0].Version); err != nil || !bytes.Equal(got, shared) {
		t.Errorf("the other note's version: %v", err)
	}
	if _, err := h.Purge(ctx, "secret.md"); !errors.Is(err, ErrNoHistory) {
		t.Errorf("second purge: %v, want ErrNoHistory", err)
	}
}

func TestHistoryRetention(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	h := openHistory(t, t.TempDir(), c, HistoryOptions{Days: 30})
	// Day 0: three edits of live.md and two of gone.md, which is then
	// deleted; day 1: one more edit of live.md.
	for i := range 3 {
		keep(t, h, Keep{Path: "live.md", Content: fmt.Appendf(nil, "day0 v%d", i), Writer: "app", Kind: KindEdit})
		c.Advance(time.Minute)
	}
	keep(t, h, Keep{Path: "gone.md", Content: []byte("g1"), Writer: "app", Kind: KindEdit})
	keep(t, h, Keep{Path: "gone.md", Content: []byte("g2"), Writer: "app", Kind: KindEdit})
	keep(t, h, Keep{Path: "gone.md", Writer: "app", Kind: KindDelete, Gone: true})
	c.Advance(24 * time.Hour)
	keep(t, h, Keep{Path: "live.md", Content: []byte("day1"), Writer: "app", Kind: KindEdit})

	prune := func() PruneResult {
		r, err := h.Prune(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Within 30 days: everything stays.
	c.Advance(28 * 24 * time.Hour)
	if r := prune(); r.Versions != 0 {
		t.Fatalf("pruned %d versions inside the window", r.Versions)
	}
	// Past 30 days: one a day (the last of day 0 stays, two earlier go;
	// gone.md keeps its last row, the deletion, and loses its edits).
	c.Advance(3 * 24 * time.Hour)
	if r := prune(); r.Versions != 4 || r.Blobs != 3 {
		t.Fatalf("prune after 31 days: %+v, want 4 versions and 3 contents", r)
	}
	if vs := versionsOf(t, h, "live.md"); len(vs) != 2 || vs[1].Kind != KindEdit || vs[0].Time.Sub(vs[1].Time) < 23*time.Hour {
		t.Fatalf("live.md after thinning: %+v", vs)
	}
	if vs := versionsOf(t, h, "gone.md"); len(vs) != 1 || !vs[0].Gone {
		t.Fatalf("gone.md after thinning: %+v", vs)
	}
	_, got, err := h.Find(ctx, "gone.md", versionsOf(t, h, "gone.md")[0].Version)
	if err != nil || string(got) != "g2" {
		t.Fatalf("the deleted note's last content: %q, %v", got, err)
	}
	// Past a year beyond the window: the deleted note is forgotten, the
	// live note keeps its last version only.
	c.Advance(HistoryYear)
	prune()
	if vs := versionsOf(t, h, "gone.md"); len(vs) != 0 {
		t.Fatalf("gone.md after a year: %+v", vs)
	}
	if vs := versionsOf(t, h, "live.md"); len(vs) != 1 {
		t.Fatalf("live.md after a year: %+v", vs)
	}
}

func TestHistorySizeCap(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	h := openHistory(t, t.TempDir(), c, HistoryOptions{MaxBytes: 20 << 10})
	// Random bytes do not compress: each version costs about 4 KiB.
	random := func() []byte {
		b := make([]byte, 4<<10)
		rand.Read(b)
		return b
	}
	first := keep(t, h, Keep{Path: "a.md", Content: random(), Writer: "app", Kind: KindCreate})[0]
	for range 10 {
		c.Advance(time.Minute)
		keep(t, h, Keep{Path: "a.md", Content: random(), Writer: "app", Kind: KindEdit})
	}
	st, _ := h.Stats(ctx)
	if st.Stored > 20<<10 {
		t.Fatalf("stored %d bytes over a cap of %d", st.Stored, 20<<10)
	}
	if _, _, err := h.Version(ctx, first); !errors.Is(err, ErrNoHistory) {
		t.Errorf("the oldest version survived the cap: %v", err)
	}
	if vs := versionsOf(t, h, "a.md"); len(vs) < 3 {
		t.Errorf("only %d versions left under the cap", len(vs))
	}
	// The last version of every note is never dropped: once only those
	// are left, the history grows past the cap rather than refuse a
	// write (only the disk floor refuses).
	small := openHistory(t, t.TempDir(), c, HistoryOptions{MaxBytes: 6 << 10})
	keep(t, small, Keep{Path: "x.md", Content: random(), Writer: "app", Kind: KindCreate})
	keep(t, small, Keep{Path: "y.md", Content: random(), Writer: "app", Kind: KindCreate})
	for _, p := range []string{"x.md", "y.md"} {
		if vs := versionsOf(t, small, p); len(vs) != 1 {
			t.Fatalf("%s: %+v", p, vs)
		}
	}
	// Above the cap, the history searches for room once a minute, not at
	// every write: an edit's replaced text waits for the next search.
	keep(t, small, Keep{Path: "x.md", Content: random(), Writer: "app", Kind: KindEdit})
	if vs := versionsOf(t, small, "x.md"); len(vs) != 2 {
		t.Fatalf("x.md within the minute: %+v", vs)
	}
	// (y.md's first version is still its newest when room is made.)
	c.Advance(2 * time.Minute)
	keep(t, small, Keep{Path: "y.md", Content: random(), Writer: "app", Kind: KindEdit})
	if vs := versionsOf(t, small, "x.md"); len(vs) != 1 || vs[0].Kind != KindEdit {
		t.Fatalf("x.md after the minute: %+v", vs)
	}
	if vs := versionsOf(t, small, "y.md"); len(vs) != 2 {
		t.Fatalf("y.md after the minute: %+v", vs)
	}
}

func TestHistoryDiskFloor(t *testing.T) {
	free := uint64(10 << 20)
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{
		MinFree:   10<<20 - 1000,
		FreeSpace: func() (uint64, error) { return free, nil },
	})
	_, err := h.Keep(context.Background(), []Keep{{Path: "a.md", Content: bytes.Repeat([]byte("x"), 100), Writer: "app", Kind: KindCreate}})
	if err != nil {
		t.Fatalf("a small version above the floor: %v", err)
	}
	b := make([]byte, 8<<10)
	rand.Read(b)
	_, err = h.Keep(context.Background(), []Keep{{Path: "a.md", Content: b, Writer: "app", Kind: KindEdit}})
	if !errors.Is(err, ErrHistoryDiskLow) {
		t.Fatalf("a version that would cross the floor: %v, want ErrHistoryDiskLow", err)
	}
	// Content already stored needs no space.
	free = 0
	if _, err := h.Keep(context.Background(), []Keep{{Path: "b.md", Content: bytes.Repeat([]byte("x"), 100), Writer: "app", Kind: KindCreate}}); err != nil {
		t.Fatalf("known content with no free space: %v", err)
	}
}

func TestHistoryDrop(t *testing.T) {
	ctx := context.Background()
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	keep(t, h, Keep{Path: "a.md", Content: []byte("v1"), Writer: "app", Kind: KindCreate})
	ids := keep(t, h, Keep{Path: "a.md", Content: []byte("v2 never written"), Writer: "app", Kind: KindEdit})
	if err := h.Drop(ctx, ids); err != nil {
		t.Fatal(err)
	}
	if vs := versionsOf(t, h, "a.md"); len(vs) != 1 {
		t.Fatalf("versions after Drop: %+v", vs)
	}
	if st, _ := h.Stats(ctx); st.Blobs != 1 {
		t.Errorf("the dropped content is still stored: %+v", st)
	}
}

// Keep returns only after syncing what it committed, and a failing sync
// fails the Keep; a Keep that stored nothing new has nothing to sync.
func TestHistoryKeepSyncs(t *testing.T) {
	ctx := context.Background()
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	syncs := 0
	var fail error
	orig := h.wal.sync
	h.wal.sync = func() error {
		syncs++
		if fail != nil {
			return fail
		}
		return orig()
	}
	keep(t, h, Keep{Path: "a.md", Content: []byte("v1"), Writer: "app", Kind: KindEdit})
	if syncs != 1 {
		t.Fatalf("%d syncs after a new version", syncs)
	}
	keep(t, h, Keep{Path: "a.md", Content: []byte("v1"), Writer: "external", Kind: KindExternal, Observed: true})
	if syncs != 1 {
		t.Fatalf("%d syncs after a Keep that stored nothing", syncs)
	}
	fail = errors.New("EIO")
	if _, err := h.Keep(ctx, []Keep{{Path: "a.md", Content: []byte("v2"), Writer: "app", Kind: KindEdit}}); err == nil {
		t.Fatal("Keep succeeded although the sync failed")
	}
	// A failed Keep stores nothing: the caller does not make the change,
	// so v2 must not be listed as a version the note had.
	fail = nil
	if vs := versionsOf(t, h, "a.md"); len(vs) != 1 || vs[0].Kind != KindEdit || vs[0].Size != 2 {
		t.Errorf("versions after a Keep whose sync failed: %+v", vs)
	}
}

// TestHistoryPragmas: the history's connections sync the WAL themselves
// (NORMAL) and keep a small page cache: the history is written far more
// than it is read, and at 10,000 notes SQLite's default cache (2 MB a
// connection, filled by the first copy of the notes) was most of the RSS
// over the 45 MB goal.
func TestHistoryPragmas(t *testing.T) {
	h := openHistory(t, t.TempDir(), testkit.NewClock(time.Time{}), HistoryOptions{})
	ctx := context.Background()
	conn, err := h.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "1", "cache_size": "-256", "foreign_keys": "1"} {
		var got string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %q, want %q", pragma, got, want)
		}
	}
}

func TestOpenHistoryDamaged(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, HistoryFileName), bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenHistory(context.Background(), dir, HistoryOptions{})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("OpenHistory = %v, want ErrDamaged", err)
	}
}

package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// roomWorld is a history whose texts are each about S = 4 KiB of random
// bytes (DEFLATE cannot shrink them), written at known times by four
// writers:
//
//	live.md   external  3 versions three days ago (the first two past a
//	                    one-day retention), the last one live
//	keep.md   owner     2 versions in the last two hours, the last live
//	gone.md   owner     created, deleted 9 hours ago
//	gonep.md  app       created, deleted 7 hours ago
//	f1..f4.md flood     created, deleted 6, 5, 4 and 3.5 hours ago
//	fb.md     flood     2 versions in the last three hours, the last live
//
// 13 S in all, 3 S of them live notes' newest versions; the past:
// external 2 S, owner 2 S, app 1 S, flood 5 S. It returns S: the stored
// bytes over 13.
func roomWorld(t *testing.T, dir string, c *testkit.Clock) int64 {
	t.Helper()
	h, err := OpenHistory(context.Background(), dir, HistoryOptions{Now: c.Now, Days: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	now := c.Now()
	at := func(d time.Duration) time.Time { return now.Add(-d) }
	day3 := time.Date(now.Year(), now.Month(), now.Day()-3, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		kind := KindEdit
		if i == 0 {
			kind = KindCreate
		}
		keep(t, h, Keep{Path: "live.md", Content: randomText(1), Writer: "external", Kind: kind, Time: day3.Add(time.Duration(i) * 5 * time.Minute)})
	}
	keep(t, h, Keep{Path: "keep.md", Content: randomText(1), Writer: "owner", Kind: KindCreate, Time: at(2 * time.Hour)})
	keep(t, h, Keep{Path: "keep.md", Content: randomText(1), Writer: "owner", Kind: KindEdit, Time: at(time.Hour)})
	deleted := func(path, writer string, ago time.Duration) {
		keep(t, h, Keep{Path: path, Content: randomText(1), Writer: writer, Kind: KindCreate, Time: at(ago + time.Minute)})
		keep(t, h, Keep{Path: path, Writer: writer, Kind: KindDelete, Gone: true, Time: at(ago)})
	}
	deleted("gone.md", "owner", 9*time.Hour)
	deleted("gonep.md", "app", 7*time.Hour)
	for i, ago := range []time.Duration{360, 300, 240, 210} {
		deleted(fmt.Sprintf("f%d.md", i+1), "flood", ago*time.Minute)
	}
	keep(t, h, Keep{Path: "fb.md", Content: randomText(1), Writer: "flood", Kind: KindCreate, Time: at(3 * time.Hour)})
	keep(t, h, Keep{Path: "fb.md", Content: randomText(1), Writer: "flood", Kind: KindEdit, Time: at(150 * time.Minute)})
	st, err := h.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Stored / 13
}

// randomText is n times 4 KiB of random bytes.
func randomText(n int) []byte {
	b := make([]byte, n<<12)
	rand.Read(b)
	return b
}

// versionLabels names every stored version by its id, path:n, n counting
// from 1 at the path's oldest version.
func versionLabels(t *testing.T, h *HistoryDB) map[int64]string {
	t.Helper()
	rows, err := h.db.Query(`SELECT id, path, ROW_NUMBER() OVER (PARTITION BY path ORDER BY id) FROM versions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var p string
		var n int
		if err := rows.Scan(&id, &p, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = fmt.Sprintf("%s:%d", p, n)
	}
	return out
}

// When a write needs room, the history drops, in order: the versions past
// the retention; the texts of a writer whose past is over its share (its
// deleted notes, deleted longest ago first, then its older versions);
// deleted notes, deleted longest ago first; the older versions of the
// writer with the most past. The newest version of a live note is never
// dropped: a write that needs more room than the rest holds is stored
// above the cap. Each case starts from the same history, reopened with a
// cap of 13.2 S (each share, once the retention has gone: (13.2 - 3) / 3
// = 3.4 S), and stores a new note of k S, so that the cases show how far
// down the order each k reaches.
func TestHistoryRoomOrder(t *testing.T) {
	all := []string{"f1.md:1", "f1.md:2", "f2.md:1", "f2.md:2", "f3.md:1", "f3.md:2", "f4.md:1", "f4.md:2", "fb.md:1", "fb.md:2",
		"gone.md:1", "gone.md:2", "gonep.md:1", "gonep.md:2", "keep.md:1", "keep.md:2", "live.md:1", "live.md:2", "live.md:3"}
	var dropped []string
	for _, tc := range []struct {
		k    int
		gone []string // versions dropped, on top of the case before
	}{
		{1, []string{"live.md:1", "live.md:2"}},   // past the retention
		{3, []string{"f1.md:1", "f1.md:2"}},       // flood over its share: its deleted notes, oldest first
		{4, []string{"f2.md:1", "f2.md:2"}},       // ... until it is within its share
		{5, []string{"gone.md:1", "gone.md:2"}},   // deleted notes, deleted longest ago first
		{6, []string{"gonep.md:1", "gonep.md:2"}}, //
		{7, []string{"f3.md:1", "f3.md:2"}},       //
		{8, []string{"f4.md:1", "f4.md:2"}},       //
		{9, []string{"fb.md:1"}},                  // older versions of the writer with the most past (flood = owner: by name)
		{10, []string{"keep.md:1"}},               //
		{11, nil},                                 // only live notes' newest versions are left: above the cap
	} {
		t.Run(fmt.Sprintf("%dS", tc.k), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			c := testkit.NewClock(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
			s := roomWorld(t, dir, c)
			h := openHistory(t, dir, c, HistoryOptions{Days: 1, MaxBytes: s * 132 / 10})
			labels := versionLabels(t, h)
			keep(t, h, Keep{Path: "new.md", Content: randomText(tc.k), Writer: "app", Kind: KindCreate})
			dropped = append(dropped, tc.gone...)
			var want []string
			for _, l := range all {
				if !slices.Contains(dropped, l) {
					want = append(want, l)
				}
			}
			want = append(want, "new.md:1")
			slices.Sort(want)
			var got []string // each survivor under the label it had before
			for id, l := range versionLabels(t, h) {
				if old, ok := labels[id]; ok {
					l = old
				}
				got = append(got, l)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("left\n%v\nwant\n%v", got, want)
			}
			st, _ := h.Stats(ctx)
			if tc.k < 11 && st.Stored > h.maxBytes {
				t.Fatalf("stored %d over the cap %d", st.Stored, h.maxBytes)
			}
			if tc.k == 11 && st.Stored <= h.maxBytes {
				t.Fatalf("stored %d: the live notes alone should pass the cap %d", st.Stored, h.maxBytes)
			}
			if tc.k == 5 {
				r := h.Room()
				if r.Retention != 2 || r.Share != 4 || r.Deleted != 2 || r.Oldest != 0 || !slices.Equal(r.Writers, []string{"flood"}) || !r.Last.Equal(c.Now()) {
					t.Fatalf("room %+v", r)
				}
			}
		})
	}
}

// A history from before versions had owners gets them at the upgrade:
// each text is charged to the writer of the first version holding it.
func TestHistoryUpgradeChargesWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := fs.ReadFile(historyFiles, "historydb/migrations/0001_history.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, _, err := openFile(dir, HistoryFileName, historyDSN)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, fstest.MapFS{"migrations/0001_history.sql": {Data: first}}, time.Now); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO blobs (id, hash, size, stored, data) VALUES (1, x'01', 3, 10, x''), (2, x'02', 3, 20, x'')`,
		`INSERT INTO versions (path, version, blob, time, writer, kind) VALUES
			('a.md', 'v1', 1, 1, 'external', 'external'), ('a.md', 'v2', 2, 2, 'claude', 'edit'), ('b.md', 'v1', 1, 3, 'chatgpt', 'create')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	h := openHistory(t, dir, testkit.NewClock(time.Time{}), HistoryOptions{})
	var got []string
	rows, err := h.db.QueryContext(ctx, `SELECT path || ' ' || writer || ' ' || owner FROM versions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if want := []string{"a.md external external", "a.md claude claude", "b.md chatgpt external"}; !slices.Equal(got, want) {
		t.Fatalf("versions (path writer owner) %q, want %q", got, want)
	}
	// a.md's first text is b.md's too: the live notes' newest versions
	// hold both texts, so no writer has a past.
	st, err := h.Stats(ctx)
	if err != nil || len(st.Writers) != 0 {
		t.Fatalf("writers with a past: %+v, %v", st.Writers, err)
	}
}

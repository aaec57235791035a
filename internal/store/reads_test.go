package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// readsAt is a fixed hour plus minutes, so that tests know which reads
// share an hour.
func readsAt(hour, minute int) time.Time {
	return time.Date(2026, 12, 1, hour, minute, 0, 0, time.UTC)
}

func countReads(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM reads`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRecordReadsAggregates(t *testing.T) {
	dir := t.TempDir()
	c := testkit.NewClock(readsAt(12, 0))
	s := openStore(t, dir, c)
	ctx := context.Background()
	batches := [][]Read{
		{
			{App: "claude", Path: "Plan.md", Tool: "fetch", Time: readsAt(10, 5)},
			{App: "claude", Path: "Plan.md", Tool: "search", Time: readsAt(10, 20), Count: 3},
			{App: "claude", Path: "Diary.md", Tool: "list", Time: readsAt(10, 30)},
		},
		{
			{App: "claude", Path: "Plan.md", Tool: "fetch", Time: readsAt(10, 50)}, // the same row
			{App: "claude", Path: "Plan.md", Tool: "fetch", Time: readsAt(11, 10)}, // the next hour
			{App: "chatgpt", Path: "Plan.md", Tool: "links", Time: readsAt(11, 40)},
			{App: "claude", Path: "Old.md", Tool: "recent", Time: readsAt(8, 0)},
			{App: "claude", Path: "Now.md", Tool: "fetch"}, // no time: now
		},
	}
	for _, b := range batches {
		if err := s.RecordReads(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// claude/Plan.md: fetch and search at 10, fetch at 11; the rest one each.
	if n := countReads(t, s); n != 7 {
		t.Errorf("%d rows, want 7 (one per app, note, tool and hour)", n)
	}
	// A real file: what was recorded is there after a reopen.
	s.Close()
	s = openStore(t, dir, c)

	got, err := s.ReadsByApp(ctx, "claude", readsAt(9, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []NoteReads{
		{App: "claude", Path: "Now.md", Count: 1, Last: readsAt(12, 0), Tools: []string{"fetch"}},
		{App: "claude", Path: "Plan.md", Count: 6, Last: readsAt(11, 10), Tools: []string{"fetch", "search"}},
		{App: "claude", Path: "Diary.md", Count: 1, Last: readsAt(10, 30), Tools: []string{"list"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadsByApp =\n%+v\nwant\n%+v", got, want)
	}
	// Since inside an hour: that hour counts whole if read after since.
	got, err = s.ReadsByApp(ctx, "claude", readsAt(11, 5))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Path != "Plan.md" || got[1].Count != 1 {
		t.Errorf("since 11:05: %+v, want Now.md and Plan.md read once", got)
	}

	of, err := s.ReadsOfNote(ctx, "Plan.md", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	wantOf := []NoteReads{
		{App: "chatgpt", Path: "Plan.md", Count: 1, Last: readsAt(11, 40), Tools: []string{"links"}},
		{App: "claude", Path: "Plan.md", Count: 6, Last: readsAt(11, 10), Tools: []string{"fetch", "search"}},
	}
	if !reflect.DeepEqual(of, wantOf) {
		t.Errorf("ReadsOfNote =\n%+v\nwant\n%+v", of, wantOf)
	}
	if none, err := s.ReadsByApp(ctx, "nobody", time.Time{}); err != nil || len(none) != 0 {
		t.Errorf("ReadsByApp(nobody) = %v, %v", none, err)
	}
}

func TestRecordReadsRefusesIncomplete(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(readsAt(12, 0)))
	for _, r := range []Read{{Path: "a.md", Tool: "fetch"}, {App: "a", Tool: "fetch"}, {App: "a", Path: "a.md"}} {
		err := s.RecordReads(context.Background(), []Read{{App: "a", Path: "ok.md", Tool: "fetch"}, r})
		if !errors.Is(err, ErrInvalidRead) {
			t.Errorf("RecordReads(%+v) = %v, want ErrInvalidRead", r, err)
		}
	}
	if n := countReads(t, s); n != 0 {
		t.Errorf("a refused batch left %d rows", n)
	}
}

func TestPruneReads(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(readsAt(12, 0)))
	ctx := context.Background()
	var batch []Read
	for h := 8; h <= 12; h++ {
		batch = append(batch, Read{App: "a", Path: "n.md", Tool: "fetch", Time: readsAt(h, 30)})
	}
	if err := s.RecordReads(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// The hour of the cutoff stays: some of its reads are after it.
	n, err := s.PruneReads(ctx, readsAt(10, 15))
	if err != nil || n != 2 {
		t.Fatalf("PruneReads = %d, %v, want 2", n, err)
	}
	got, err := s.ReadsByApp(ctx, "a", time.Time{})
	if err != nil || len(got) != 1 || got[0].Count != 3 {
		t.Errorf("left %+v (%v), want the reads of 10, 11 and 12", got, err)
	}
}

func TestReadsCap(t *testing.T) {
	const maxRows = 10
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), Options{Now: testkit.NewClock(readsAt(12, 0)).Now, MaxReadRows: maxRows})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hourOf := func(h, notes int) []Read {
		var b []Read
		for i := range notes {
			b = append(b, Read{App: "flood", Path: fmt.Sprintf("n%03d.md", i), Tool: "search", Time: readsAt(h, 0)})
		}
		return b
	}
	// Three hours of four notes: the oldest hour goes first.
	for h := 8; h <= 10; h++ {
		if err := s.RecordReads(ctx, hourOf(h, 4)); err != nil {
			t.Fatal(err)
		}
	}
	if n := countReads(t, s); n != maxRows {
		t.Fatalf("%d rows, want the cap %d", n, maxRows)
	}
	var oldest, newest int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM reads WHERE hour = ?`, nanos(readsAt(8, 0))).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM reads WHERE hour = ?`, nanos(readsAt(10, 0))).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if oldest != 2 || newest != 4 {
		t.Errorf("rows of 8:00 %d, of 10:00 %d; want 2 and 4", oldest, newest)
	}
	// Reads of notes already counted this hour add no row: no trim.
	if err := s.RecordReads(ctx, hourOf(10, 4)); err != nil {
		t.Fatal(err)
	}
	if n := countReads(t, s); n != maxRows {
		t.Errorf("%d rows after re-reads, want %d", n, maxRows)
	}
	// One batch larger than the cap keeps its newest rows only.
	if err := s.RecordReads(ctx, hourOf(11, 25)); err != nil {
		t.Fatal(err)
	}
	var left, notNewest int
	if err := s.db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(hour <> ?), 0) FROM reads`, nanos(readsAt(11, 0))).Scan(&left, &notNewest); err != nil {
		t.Fatal(err)
	}
	if left != maxRows || notNewest != 0 {
		t.Errorf("after a flood: %d rows, %d of them older; want %d, all of 11:00", left, notNewest, maxRows)
	}
	// What is left reads back a row per note.
	got, err := s.ReadsByApp(ctx, "flood", time.Time{})
	if err != nil || len(got) != maxRows {
		t.Errorf("ReadsByApp: %d notes (%v), want %d", len(got), err, maxRows)
	}
}

// TestRecordReadsLargeBatch: a batch past one transaction is recorded
// whole.
func TestRecordReadsLargeBatch(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(readsAt(12, 0)))
	var batch []Read
	for i := range 2*readsPerTx + 500 {
		batch = append(batch, Read{App: "a", Path: fmt.Sprintf("n%04d.md", i), Tool: "list", Time: readsAt(11, 0)})
	}
	if err := s.RecordReads(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	if n := countReads(t, s); n != len(batch) {
		t.Errorf("%d rows, want %d", n, len(batch))
	}
}

// readRow is a row of the reads table, or what a test expects of it.
type readRow struct {
	App, Path, Tool   string
	Hour, Count, Last int64
}

// TestRecordReadsCountsEveryBatch compares the table, row by row in the
// order of their ids (the order capReads drops them in), with counts
// kept by the test, after batches of new keys and of keys repeated within
// and across batches, sized around a statement's and a transaction's
// worth of reads.
func TestRecordReadsCountsEveryBatch(t *testing.T) {
	c := testkit.NewClock(readsAt(12, 0))
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))

	var want []readRow         // in the order of first insertion
	index := map[readRow]int{} // key (Count and Last zero) to want's index
	var keys []Read            // every key used so far, as a Read
	newKey := func() Read {
		n := len(keys)
		r := Read{App: []string{"claude", "chatgpt"}[n%2], Path: fmt.Sprintf("notes/n%04d.md", n/2), Tool: []string{"fetch", "search", "list"}[n%3]}
		keys = append(keys, r)
		return r
	}
	// at is a time in one of three hours, or now (the zero time) now and then.
	at := func() time.Time {
		if rng.IntN(20) == 0 {
			return time.Time{}
		}
		return readsAt(9+rng.IntN(3), rng.IntN(60)).Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
	}
	add := func(r Read) {
		tm := r.Time
		if tm.IsZero() {
			tm = c.Now()
		}
		k := readRow{App: r.App, Path: r.Path, Tool: r.Tool, Hour: nanos(tm.Truncate(time.Hour))}
		i, ok := index[k]
		if !ok {
			i = len(want)
			index[k] = i
			want = append(want, k)
		}
		want[i].Count += max(r.Count, 1)
		want[i].Last = max(want[i].Last, nanos(tm))
	}

	const per = readsPerStatement
	for _, size := range []int{1, per - 1, per, per + 1, 3*per + 7, readsPerTx + 1} {
		for _, mixed := range []bool{false, true} {
			name := fmt.Sprintf("%d new", size)
			if mixed {
				name = fmt.Sprintf("%d mixed", size)
			}
			var batch []Read
			for range size {
				var r Read
				switch k := rng.IntN(3); {
				case !mixed || k == 0:
					r = newKey()
				case k == 1 && len(batch) > 0: // again within this batch
					r = batch[rng.IntN(len(batch))]
				default: // a key of any batch
					r = keys[rng.IntN(len(keys))]
				}
				r.Time, r.Count = at(), int64(rng.IntN(4)) // 0 counts as 1
				batch = append(batch, r)
			}
			if mixed {
				// A key twice in a row, as within one statement.
				batch = append(batch[:size/2+1], batch[size/2:size-1]...)
			}
			if err := s.RecordReads(ctx, batch); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, r := range batch {
				add(r)
			}
			got := tableReads(t, s)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after %s: %d rows, want %d; first difference: %s", name, len(got), len(want), firstDiff(got, want))
			}
			c.Advance(time.Minute)
		}
	}
}

// tableReads is the reads table in the order of its ids.
func tableReads(t *testing.T, s *Store) []readRow {
	t.Helper()
	rows, err := s.db.Query(`SELECT app, path, tool, hour, count, last FROM reads ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []readRow
	for rows.Next() {
		var r readRow
		if err := rows.Scan(&r.App, &r.Path, &r.Tool, &r.Hour, &r.Count, &r.Last); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func firstDiff(got, want []readRow) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	return "one is longer"
}

// TestRecordReadsCancelled: a context that ends halfway through a batch
// stops it before its next statement, and the batch records nothing.
func TestRecordReadsCancelled(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(readsAt(12, 0)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The clock is read for the read without a time, in the second
	// statement: it ends the context there.
	s.now = func() time.Time {
		cancel()
		return readsAt(12, 0)
	}
	var batch []Read
	for i := range 3 * readsPerStatement {
		batch = append(batch, Read{App: "a", Path: fmt.Sprintf("n%04d.md", i), Tool: "fetch", Time: readsAt(11, 0)})
	}
	batch[readsPerStatement+1].Time = time.Time{}
	if err := s.RecordReads(ctx, batch); !errors.Is(err, context.Canceled) {
		t.Fatalf("RecordReads = %v, want context.Canceled", err)
	}
	if n := countReads(t, s); n != 0 {
		t.Errorf("a cancelled batch left %d rows", n)
	}
}

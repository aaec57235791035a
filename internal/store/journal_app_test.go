package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestWritesByAppAndLatest(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 12, 1, 10, m, 0, 0, time.UTC) }
	dir := t.TempDir()
	c := testkit.NewClock(at(59))
	s := openStore(t, dir, c)
	ctx := context.Background()
	for _, e := range []JournalEntry{
		{App: "claude", Tool: "edit_note", Path: "Plan.md", Time: at(1), Result: ResultOK},
		{App: "claude", Tool: "append", Path: "Diary.md", Time: at(2), Result: ResultOK},
		{App: "claude", Tool: "edit_note", Path: "Plan.md", Time: at(3), Result: ResultOK},
		{App: "claude", Tool: "edit_note", Path: "Refused.md", Time: at(4), Result: "note_changed"},
		{App: "chatgpt", Tool: "append", Path: "Plan.md", Time: at(5), Result: ResultOK},
	} {
		if err := s.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// A real file: the journal is there after a reopen.
	s.Close()
	s = openStore(t, dir, c)

	got, err := s.WritesByApp(ctx, "claude", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := []NoteWrites{{Path: "Plan.md", Count: 2, First: at(1), Last: at(3)}, {Path: "Diary.md", Count: 1, First: at(2), Last: at(2)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WritesByApp = %+v, want %+v", got, want)
	}
	if got, _ := s.WritesByApp(ctx, "claude", at(3)); len(got) != 1 || got[0].Count != 1 || got[0].Path != "Plan.md" {
		t.Errorf("WritesByApp since 10:03 = %+v", got)
	}
	if got, _ := s.WritesByApp(ctx, "nobody", time.Time{}); len(got) != 0 {
		t.Errorf("WritesByApp of an unknown app = %+v", got)
	}

	latest, err := s.LatestOfApp(ctx, "claude", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != 2 || !latest[0].Time.Equal(at(3)) || latest[1].Path != "Diary.md" {
		t.Errorf("LatestOfApp = %+v", latest)
	}
}

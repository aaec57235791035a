package admin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

func TestClientsReads(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")
	createToken(t, env, "phone")
	r := run(t, env, "clients", "add", "--name", "Meta AI", "--redirect-uri", "https://agent.meta.ai/cb")
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}

	st := openStore(t, env.StateDir)
	at := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	if err := st.RecordReads(context.Background(), []store.Read{
		{App: "laptop", Path: "Plan.md", Tool: "fetch", Time: at(3 * time.Hour), Count: 2},
		{App: "laptop", Path: "Plan.md", Tool: "search", Time: at(10 * time.Minute)},
		{App: "laptop", Path: "Diary/2025-03-13.md", Tool: "list", Time: at(30 * time.Hour)},
		{App: "Meta AI (" + id + ")", Path: "Recipes.md", Tool: "fetch", Time: at(time.Minute)},
		{App: "gone", Path: "Old.md", Tool: "recent", Time: at(time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"a token, all kept", []string{"laptop"}, 0,
			"NOTE                 READS  LAST READ             BY\n" +
				"Plan.md              3      2025-03-14 09:16 UTC  fetch,search\n" +
				"Diary/2025-03-13.md  1      2025-03-13 03:26 UTC  list\n", ""},
		{"since a day", []string{"laptop", "--since", "24h"}, 0,
			"NOTE     READS  LAST READ             BY\n" +
				"Plan.md  3      2025-03-14 09:16 UTC  fetch,search\n", ""},
		{"an app by its client id", []string{id}, 0,
			"NOTE        READS  LAST READ             BY\n" +
				"Recipes.md  1      2025-03-14 09:25 UTC  fetch\n", ""},
		{"a removed app by its name", []string{"gone"}, 0,
			"NOTE    READS  LAST READ             BY\n" +
				"Old.md  1      2025-03-14 08:26 UTC  recent\n", ""},
		{"nothing read", []string{"phone"}, 0, "",
			"phone read no notes in the time the journal is kept\n"},
		{"nothing read since", []string{"laptop", "--since", "1m"}, 0, "",
			"laptop read no notes since 1m\n"},
		{"unknown", []string{"nobody"}, 1, "",
			"cortex admin: no OAuth app, token or app with reads named \"nobody\"\n"},
		{"bad since", []string{"laptop", "--since", "last week"}, 2, "",
			"cortex admin: --since: \"last week\" is not a time\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, env, append([]string{"clients", "reads"}, tt.args...)...)
			if r.code != tt.code || r.stdout != tt.stdout || !strings.HasPrefix(r.stderr, tt.stderr) {
				t.Errorf("clients reads %v = %d\nstdout:\n%s\nstderr:\n%s\nwant %d\nstdout:\n%s\nstderr starting:\n%s",
					tt.args, r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// clients show ends with what the app read and changed, grouped by note,
// the ten most recent of each and how to list the rest.
func TestClientsShowReadsAndChanges(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")
	r := run(t, env, "clients", "add", "--name", "Meta AI", "--redirect-uri", "https://agent.meta.ai/cb")
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	st := openStore(t, env.StateDir)
	ctx := context.Background()
	at := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	reads := []store.Read{
		{App: "laptop", Path: "Plan.md", Tool: "fetch", Time: at(3 * time.Hour), Count: 2},
		{App: "laptop", Path: "Plan.md", Tool: "search", Time: at(10 * time.Minute)},
		{App: "Meta AI (" + id + ")", Path: "Recipes.md", Tool: "fetch", Time: at(time.Minute)},
	}
	for i := range 12 {
		reads = append(reads, store.Read{App: "laptop", Path: fmt.Sprintf("Old/%02d.md", i), Tool: "list", Time: at(time.Duration(20+i) * time.Hour)})
	}
	if err := st.RecordReads(ctx, reads); err != nil {
		t.Fatal(err)
	}
	for _, e := range []store.JournalEntry{
		{App: "laptop", Tool: "edit_note", Path: "Plan.md", Time: at(2 * time.Hour), Result: store.ResultOK},
		{App: "laptop", Tool: "append", Path: "Plan.md", Time: at(time.Hour), Result: store.ResultOK},
		{App: "laptop", Tool: "edit_note", Path: "Diary.md", Time: at(90 * time.Minute), Result: store.ResultOK},
		{App: "laptop", Tool: "edit_note", Path: "Refused.md", Time: at(time.Minute), Result: "note_changed"},
	} {
		if err := st.RecordWrite(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	r = run(t, env, "clients", "show", "laptop")
	want := "ID         laptop\n" +
		"NAME       laptop\n" +
		"KIND       bearer token\n" +
		"CREATED    2025-03-14 09:26 UTC\n" +
		"SCOPE      the whole vault\n" +
		"LAST USED  never\n" +
		"LAST FROM  -\n" +
		"READ       13 notes\n" +
		"CHANGED    2 notes\n" +
		"\n" +
		"NOTE READ  READS  LAST READ             BY\n" +
		"Plan.md    3      2025-03-14 09:16 UTC  fetch,search\n" +
		"Old/00.md  1      2025-03-13 13:26 UTC  list\n"
	for i := 1; i < 9; i++ {
		want += fmt.Sprintf("Old/%02d.md  1      2025-03-13 %02d:26 UTC  list\n", i, 13-i)
	}
	want += "and 3 more: cortex admin clients reads laptop\n" +
		"\n" +
		"NOTE CHANGED  CHANGES  FIRST                 LAST\n" +
		"Plan.md       2        2025-03-14 07:26 UTC  2025-03-14 08:26 UTC\n" +
		"Diary.md      1        2025-03-14 07:56 UTC  2025-03-14 07:56 UTC\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("clients show laptop: %d %q\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want)
	}
	r = run(t, env, "clients", "show", id)
	if r.code != 0 || !strings.Contains(r.stdout, "READ         1 note\nCHANGED      no notes\n\nNOTE READ   READS") || !strings.Contains(r.stdout, "Recipes.md  1") {
		t.Errorf("clients show %s: %d %q\n%s", id, r.code, r.stderr, r.stdout)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"laptop": "laptop", "Meta AI (cx_1)": "'Meta AI (cx_1)'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

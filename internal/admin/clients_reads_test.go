package admin

import (
	"context"
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

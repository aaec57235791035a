package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
)

// The workload of TestBackupWhileWritingRestores: eight clients writing
// for ten seconds, the backup taken once every client has written and half
// the time has passed.
const (
	backupWriters   = 8
	backupWorkload  = 10 * time.Second
	backupSeedNotes = 3000
)

// noteText is what writer w writes into its note i: a few KiB, so that a
// note copied half-written would show, and derived from the path alone, so
// that any copy of it found in the restore can be checked whole.
func noteText(w, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Note %d of writer %d\n\n", i, w)
	for line := range 60 {
		fmt.Fprintf(&b, "line %02d of note %d of writer %d, written while a backup may run\n", line, i, w)
	}
	fmt.Fprintf(&b, "end of note %d of writer %d\n", i, w)
	return b.String()
}

var notePath = regexp.MustCompile(`^w(\d)/n(\d{5})\.md$`)

// writerLog is what one client has had acknowledged.
type writerLog struct {
	mu      sync.Mutex
	notes   int    // notes w/n00000.md ... acknowledged, in order
	logText string // the log note's text as of its last acknowledged append
	entries int    // appends acknowledged
}

func (l *writerLog) snapshot() (notes int, logText string, entries int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.notes, l.logText, l.entries
}

// TestBackupWhileWritingRestores: a backup taken while eight MCP clients
// write for ten seconds verifies and restores into fresh folders; the
// restored server serves every write acknowledged before the backup began,
// with its content, every note written while it ran is either absent or
// whole, the journal records every acknowledged write, a token made before
// the backup works and one revoked before it (or made after it) does not,
// and SQLite's integrity check passes on the restored databases.
func TestBackupWhileWritingRestores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary and writes for ten seconds")
	}
	in := newInstance(t)
	// Notes already there, so that the backup takes long enough for many
	// writes to land while it runs.
	seed := filepath.Join(in.Vault, "seed")
	if err := os.MkdirAll(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range backupSeedNotes {
		if err := os.WriteFile(filepath.Join(seed, fmt.Sprintf("s%05d.md", i)), []byte(noteText(9, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tok := in.token("writer")
	gone := in.token("gone")
	if _, errOut, err := in.admin("token", "revoke", "gone"); err != nil {
		t.Fatalf("revoke: %v %s", err, errOut)
	}
	in.start("--min-free-mb", "0", "--rate-limit", "1000000")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	logs := make([]*writerLog, backupWriters)
	stop := make(chan struct{})
	// warm receives once from each writer after its first acknowledged
	// note, so that the backup starts with every client writing.
	warm := make(chan int, backupWriters)
	var wg sync.WaitGroup
	for w := range backupWriters {
		logs[w] = &writerLog{}
		cs := in.connect(ctx, tok)
		wg.Add(1)
		go func(l *writerLog) {
			defer wg.Done()
			warmed := false
			defer func() {
				if !warmed { // failed before its first note: let the test see it
					warm <- w
				}
			}()
			logPath := fmt.Sprintf("w%d/log.md", w)
			if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": logPath, "content": "# Log\n"}}); err != nil || r.IsError {
				t.Errorf("writer %d: create its log: %v %v", w, err, r)
				return
			}
			l.mu.Lock()
			l.logText = "# Log\n"
			l.mu.Unlock()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note",
					Arguments: map[string]any{"path": fmt.Sprintf("w%d/n%05d.md", w, i), "content": noteText(w, i)}})
				if err != nil || r.IsError {
					t.Errorf("writer %d: create note %d: %v %v", w, i, err, r)
					return
				}
				l.mu.Lock()
				l.notes = i + 1
				l.mu.Unlock()
				if !warmed {
					warmed = true
					warm <- w
				}
				line := fmt.Sprintf("entry %d\n", i)
				r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "append", Arguments: map[string]any{"id": logPath, "text": line}})
				if err != nil || r.IsError {
					t.Errorf("writer %d: append %d: %v %v", w, i, err, r)
					return
				}
				l.mu.Lock()
				l.logText += line
				l.entries = i + 1
				l.mu.Unlock()
			}
		}(logs[w])
	}
	workload := time.After(backupWorkload)
	midway := time.After(backupWorkload / 2)
	for range backupWriters {
		select {
		case <-warm:
		case <-time.After(2 * time.Minute):
			t.Fatalf("the writers did not all write within two minutes:\n%s", in.logs.String())
		}
	}
	<-midway

	// Everything acknowledged now must be in the backup.
	type acked struct {
		notes, entries int
		logText        string
	}
	before := make([]acked, backupWriters)
	for w, l := range logs {
		before[w].notes, before[w].logText, before[w].entries = l.snapshot()
	}
	backups := filepath.Join(t.TempDir(), "backups")
	out, errOut, err := in.admin("backup", "--to", backups)
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, errOut)
	}
	file := strings.TrimSpace(out)
	during := 0
	for w, l := range logs {
		n, _, e := l.snapshot()
		during += n - before[w].notes + e - before[w].entries
	}
	late := in.token("late") // made after the backup: the restore must not know it
	<-workload
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.Fatalf("the writers failed:\n%s", in.logs.String())
	}
	total, beforeTotal, beforeNotes := 0, 0, 0
	for w, l := range logs {
		n, _, e := l.snapshot()
		total += n + e
		beforeTotal += before[w].notes + before[w].entries
		beforeNotes += before[w].notes
	}
	t.Logf("%d writes acknowledged in %s: %d before the backup began, %d while it ran (%s)",
		total, backupWorkload, beforeTotal, during, strings.TrimSpace(errOut))
	if during == 0 {
		t.Logf("no write was acknowledged while the backup ran")
	}

	if _, errOut, err := in.admin("backup", "verify", file); err != nil {
		t.Fatalf("verify: %v\n%s", err, errOut)
	}
	restored := newInstance(t)
	if _, errOut, err := in.admin("restore", file, "--vault", restored.Vault, "--state", restored.State); err != nil {
		t.Fatalf("restore: %v\n%s", err, errOut)
	}
	restored.start("--min-free-mb", "0", "--rate-limit", "1000000")
	cs := restored.connect(ctx, tok) // a token made before the backup works

	// Every write acknowledged before the backup began is served, whole.
	for w, a := range before {
		for i := range a.notes {
			p := fmt.Sprintf("w%d/n%05d.md", w, i)
			r := call(t, ctx, cs, "fetch", map[string]any{"id": p})
			if r.isError {
				t.Fatalf("%s, acknowledged before the backup, is not served after the restore: %s", p, r.text)
			}
			if got := str(r.data, "text"); got != noteText(w, i) {
				t.Fatalf("%s is served after the restore as\n%q\nwant\n%q", p, got, noteText(w, i))
			}
		}
		p := fmt.Sprintf("w%d/log.md", w)
		r := call(t, ctx, cs, "fetch", map[string]any{"id": p})
		if r.isError {
			t.Fatalf("%s is not served after the restore: %s", p, r.text)
		}
		if got := str(r.data, "text"); !strings.HasPrefix(got, a.logText) {
			t.Errorf("%s lost appends acknowledged before the backup:\n got %q\nwant a prefix %q", p, got, a.logText)
		}
	}
	if resp := restored.postMCP(gone, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token revoked before the backup answers %s after the restore", resp.Status)
	}
	if resp := restored.postMCP(late, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token made after the backup answers %s after the restore", resp.Status)
	}
	if err := restored.stop(); err != nil {
		t.Fatal(err)
	}

	// Every note in the restored vault, written before or while the backup
	// ran, is whole: its full text, or (a log) whole appended lines.
	notesFound, seeds := 0, 0
	err = filepath.WalkDir(restored.Vault, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(restored.Vault, p)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := notePath.FindStringSubmatch(rel); m != nil {
			w, _ := strconv.Atoi(m[1])
			i, _ := strconv.Atoi(m[2])
			notesFound++
			if string(b) != noteText(w, i) {
				t.Errorf("%s is torn in the restore (%d bytes, want %d)", rel, len(b), len(noteText(w, i)))
			}
			return nil
		}
		if strings.HasPrefix(rel, "seed/") {
			var i int
			if _, err := fmt.Sscanf(rel, "seed/s%05d.md", &i); err != nil || string(b) != noteText(9, i) {
				t.Errorf("%s, in the vault before the backup, is restored as %d bytes, want %d", rel, len(b), len(noteText(9, i)))
			}
			seeds++
			return nil
		}
		if strings.HasSuffix(rel, "/log.md") {
			if !wholeLog(string(b)) {
				t.Errorf("%s is torn in the restore:\n%q", rel, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seeds != backupSeedNotes {
		t.Errorf("the restored vault holds %d of the %d notes it held before the writers began", seeds, backupSeedNotes)
	}
	if notesFound < beforeNotes {
		t.Errorf("the restored vault holds %d notes; %d were acknowledged before the backup", notesFound, beforeNotes)
	}

	// The journal holds every write acknowledged before the backup.
	out, errOut, err = restored.admin("changes")
	if err != nil {
		t.Fatalf("changes: %v\n%s", err, errOut)
	}
	journaled := map[string]int{}
	for _, line := range strings.Split(out, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 8 && f[len(f)-1] == "ok" {
			journaled[f[len(f)-5]+" "+f[len(f)-4]]++
		}
	}
	for w, a := range before {
		for i := range a.notes {
			if k := fmt.Sprintf("create_note w%d/n%05d.md", w, i); journaled[k] != 1 {
				t.Errorf("the restored journal holds %q %d times, want once", k, journaled[k])
			}
		}
		if k := fmt.Sprintf("append w%d/log.md", w); journaled[k] < a.entries {
			t.Errorf("the restored journal holds %d appends to w%d/log.md; %d were acknowledged before the backup", journaled[k], w, a.entries)
		}
	}

	for _, name := range []string{store.FileName, store.HistoryFileName} {
		rep, err := store.CheckCopy(context.Background(), name, filepath.Join(restored.State, name))
		if err != nil {
			t.Errorf("restored %s: %v", name, err)
		}
		for _, c := range rep.Counts {
			// Each acknowledged write had its note's version kept
			// before it was acknowledged.
			if c.What == "note versions" && c.N < int64(beforeTotal) {
				t.Errorf("restored %s holds %d %s, fewer than the %d writes acknowledged before the backup", name, c.N, c.What, beforeTotal)
			}
		}
	}
}

// wholeLog reports whether a log note is "# Log\n" followed by whole
// lines "entry 0\n", "entry 1\n", ... in order.
func wholeLog(s string) bool {
	rest, ok := strings.CutPrefix(s, "# Log\n")
	if !ok {
		return false
	}
	for i := 0; rest != ""; i++ {
		if rest, ok = strings.CutPrefix(rest, fmt.Sprintf("entry %d\n", i)); !ok {
			return false
		}
	}
	return true
}

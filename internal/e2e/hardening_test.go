package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// getStatus answers the status of a GET.
func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A restore from backup swaps the vault folder under the running server:
// mv vault vault.old; mkdir vault; cp -a vault.old/. vault/. No write may
// be acknowledged into the old folder, no read answered from it or its
// index; /healthz and `cortex healthcheck` fail and the log says to
// restart, after which the new folder is served.
func TestReplacedVaultFolder(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)
	must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "before.md", "content": "written before\n"}), "create_note")

	old := in.Vault + ".old"
	if err := os.Rename(in.Vault, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", old+"/.", in.Vault+"/").CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}

	r := call(t, ctx, cs, "create_note", map[string]any{"path": "after.md", "content": "written after the swap\n"})
	if !r.isError || !strings.HasPrefix(r.text, "vault_replaced: ") {
		t.Fatalf("create_note after the swap = %+v, want vault_replaced", r)
	}
	for _, d := range []string{old, in.Vault} {
		if _, err := os.Lstat(filepath.Join(d, "after.md")); err == nil {
			t.Errorf("after.md landed in %s", d)
		}
	}
	// Reads answer the same: the old folder and its index are no longer
	// what the owner sees (a note only in the restored folder, a note
	// changed there), so nothing is answered from them.
	if err := os.WriteFile(filepath.Join(in.Vault, "restored.md"), []byte("only in the restored folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"fetch", map[string]any{"id": "before.md"}},
		{"fetch", map[string]any{"id": "restored.md"}},
		{"fetch", map[string]any{"id": "before"}},
		{"search", map[string]any{"query": "written"}},
		{"list", map[string]any{"recursive": true}},
		{"links", map[string]any{"id": "before.md"}},
		{"recent", map[string]any{}},
	} {
		if r := call(t, ctx, cs, c.tool, c.args); !r.isError || !strings.HasPrefix(r.text, "vault_replaced: ") || !strings.Contains(r.text, "restart") {
			t.Errorf("%s %v after the swap = %+v, want vault_replaced saying to restart", c.tool, c.args, r)
		}
	}
	if got := getStatus(t, in.URL+"/healthz"); got != http.StatusServiceUnavailable {
		t.Errorf("/healthz after the swap = %d, want 503", got)
	}
	hc := exec.Command(in.bin, "healthcheck")
	hc.Env = append(os.Environ(), "CORTEX_LISTEN="+strings.TrimPrefix(in.URL, "http://"))
	if err := hc.Run(); err == nil {
		t.Error("cortex healthcheck passed after the swap")
	}
	if logs := in.logs.String(); !strings.Contains(logs, "no longer names the folder cortex opened") || !strings.Contains(logs, "restart") {
		t.Errorf("the log does not say what happened and what to do:\n%s", logs)
	}

	// A restart serves the restored folder.
	if err := in.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	in.start()
	cs = in.connect(ctx, token)
	must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "after.md", "content": "written after the restart\n"}), "create_note")
	if b, err := os.ReadFile(filepath.Join(in.Vault, "after.md")); err != nil || string(b) != "written after the restart\n" {
		t.Errorf("after.md in the new folder = %q, %v", b, err)
	}
	if got := getStatus(t, in.URL+"/healthz"); got != http.StatusOK {
		t.Errorf("/healthz after the restart = %d", got)
	}
}

// A note planted with 100,000 frontmatter keys (1.3 MB) is fetched at
// once: the block is refused by its size before any YAML is decoded, and
// the fetch says why. Before the limit one such fetch took over a minute.
func TestHugeFrontmatterIsFetchedQuickly(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	var b strings.Builder
	b.WriteString("---\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "key%06d: %d\n", i, i)
	}
	b.WriteString("---\n# Huge\n")
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in.Vault, "huge.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)
	// The bound is generous for a loaded machine; the fetch itself takes
	// milliseconds.
	const bound = 3 * time.Second
	for range 3 {
		start := time.Now()
		f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "huge.md", "max_chars": 100}), "fetch")
		if took := time.Since(start); took > bound {
			t.Errorf("fetch took %v, want under %v", took, bound)
		}
		meta, _ := f["metadata"].(map[string]any)
		if fe := str(meta, "frontmatter_error"); !strings.Contains(fe, "the most cortex reads") {
			t.Errorf("frontmatter_error = %q, want the limit stated", fe)
		}
	}
}

// crashOn calls a tool on a server built with faults, which kills itself
// at the fault point: the call fails, and the process is gone.
func crashOn(t *testing.T, ctx context.Context, in *instance, cs *mcp.ClientSession, tool string, args map[string]any) {
	t.Helper()
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err == nil {
		t.Fatalf("%s answered (%+v) although the server was to die half way", tool, r.Content)
	}
	select {
	case <-in.srv.Exited():
	case <-ctx.Done():
		t.Fatalf("the server did not die at the fault point:\n%s", in.logs.String())
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err1 := os.Lstat(a)
	fb, err2 := os.Lstat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// A move and a delete cut in two by a crash (SIGKILL between the link at
// the new name and the unlink of the old one, on the path taken where
// renameat2 is missing) leave the note at both names; the next start
// finishes them, so list shows each note once, where it was going.
func TestInterruptedMovesAreFinishedAtStart(t *testing.T) {
	in := newInstance(t)
	in.bin = testkit.CortexWithFaults(t)
	token := in.token("laptop")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Setenv("CORTEX_FAULT", "no-renameat2,move-after-link")
	in.start()
	cs := in.connect(ctx, token)
	v := str(must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "plan.md", "content": "the plan\n"}), "create_note"), "version")
	crashOn(t, ctx, in, cs, "move_note", map[string]any{"id": "plan.md", "to": "projects/plan.md", "version": v})
	if !sameFile(t, filepath.Join(in.Vault, "plan.md"), filepath.Join(in.Vault, "projects/plan.md")) {
		t.Fatal("the crash did not leave the note at both names; the fault point is not between the two steps")
	}

	in.start() // still failing at the same point, for the delete
	cs = in.connect(ctx, token)
	if got := str(must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "projects/plan.md"}), "fetch"), "text"); got != "the plan\n" {
		t.Fatalf("the moved note reads %q", got)
	}
	if _, err := os.Lstat(filepath.Join(in.Vault, "plan.md")); err == nil {
		t.Error("plan.md is still there after the restart")
	}
	if !strings.Contains(in.logs.String(), "finished a move that a crash interrupted") {
		t.Errorf("the log does not tell of the finished move:\n%s", in.logs.String())
	}
	v = str(must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "old.md", "content": "old\n"}), "create_note"), "version")
	crashOn(t, ctx, in, cs, "delete_note", map[string]any{"id": "old.md", "version": v})
	// A token without private notes trashes under the note's version,
	// a name that tells nothing of private notes in the trash.
	trashed := ".trash/old (" + v + ").md"
	if !sameFile(t, filepath.Join(in.Vault, "old.md"), filepath.Join(in.Vault, trashed)) {
		t.Fatal("the crash did not leave the deleted note at both names")
	}

	t.Setenv("CORTEX_FAULT", "")
	in.start()
	if _, err := os.Lstat(filepath.Join(in.Vault, "old.md")); err == nil {
		t.Error("old.md is still there after the restart")
	}
	if b, err := os.ReadFile(filepath.Join(in.Vault, trashed)); err != nil || string(b) != "old\n" {
		t.Errorf("%s = %q, %v", trashed, b, err)
	}
	if !strings.Contains(in.logs.String(), "finished a move that a crash interrupted") {
		t.Errorf("the log does not tell of the finished delete:\n%s", in.logs.String())
	}
	cs = in.connect(ctx, token)
	list := call(t, ctx, cs, "list", map[string]any{"recursive": true})
	if strings.Contains(list.text, `"plan.md"`) || strings.Contains(list.text, `"old.md"`) || !strings.Contains(list.text, "projects/plan.md") {
		t.Errorf("list after the repair: %s", list.text)
	}
	entries, _ := os.ReadDir(in.Vault)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".cortex-") {
			t.Errorf("%s left in the vault", e.Name())
		}
	}
}

// The running server sweeps temp files that a crash left, once they are a
// minute old: a quick restart spares the young ones, so the sweep comes
// back for them. "fast-ticks" runs the sweep every 100 ms instead of
// every minute; the age that makes a temp file stray stays a minute.
func TestRunningServerSweepsStrayTemps(t *testing.T) {
	in := newInstance(t)
	in.bin = testkit.CortexWithFaults(t)
	t.Setenv("CORTEX_FAULT", "fast-ticks")
	in.start()
	old := time.Now().Add(-2 * time.Minute)
	for _, p := range []string{".cortex-tmp-old", "a/.cortex-tmp-old", ".trash/.cortex-tmp-old", ".cortex-tmp-young"} {
		full := filepath.Join(in.Vault, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("half a note"), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, "-old") {
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The log tells of each removal; wait for three.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !in.logs.WaitFor(ctx, "removed a temp file left by an interrupted write", 3) {
		t.Fatalf("the sweep did not remove the stray temp files:\n%s", in.logs.String())
	}
	for _, p := range []string{".cortex-tmp-old", "a/.cortex-tmp-old", ".trash/.cortex-tmp-old"} {
		if _, err := os.Lstat(filepath.Join(in.Vault, p)); err == nil {
			t.Errorf("%s survived the sweep", p)
		}
	}
	if _, err := os.Lstat(filepath.Join(in.Vault, ".cortex-tmp-young")); err != nil {
		t.Errorf("the sweep removed a temp file younger than a minute: %v", err)
	}
}

// What the attack run found about answers, on the real binary: a note of
// 262,000 identical headings gets a section_ambiguous of 50 candidates and
// a count of the rest, not an 11 MB answer; text that is not UTF-8 is
// refused, not stored with U+FFFD; a note is found under either Unicode
// normal form of its path, whichever is on disk, and creating the other
// form is refused as the same note.
func TestAnswersOfTheAttackRun(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	if err := os.MkdirAll(in.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	const headings = 262_000
	many := "# Top\n" + strings.Repeat("## Same\nx\n", headings)
	nfc, nfd := "Canci\u00f3n.md", "Cancio\u0301n.md"
	for name, text := range map[string]string{"many.md": many, nfc: "# Canción\n", "Cafe\u0301.md": "# Café\n"} {
		if err := os.WriteFile(filepath.Join(in.Vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)

	r := call(t, ctx, cs, "fetch", map[string]any{"id": "many.md", "section": "Same"})
	if !r.isError || !strings.HasPrefix(r.text, "section_ambiguous: ") {
		t.Fatalf("fetch of an ambiguous section = %.300s", r.text)
	}
	e, _ := r.data["error"].(map[string]any)
	cands, _ := e["candidates"].([]any)
	if more, _ := e["more"].(float64); len(cands) != 50 || int(more) != headings-50 {
		t.Errorf("candidates %d and more %v, want 50 and %d", len(cands), e["more"], headings-50)
	}
	if len(r.text) > 16<<10 {
		t.Errorf("the answer is %d bytes, want it bounded", len(r.text))
	}

	raw := func(args string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError {
			t.Fatalf("create_note %q: %v %+v, want refused", args, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got := raw(`{"path":"good.md","content":"a` + "\xff" + `b"}`); !strings.HasPrefix(got, "invalid_argument: content is not valid UTF-8") {
		t.Errorf("content not UTF-8: %s", got)
	}
	if got := raw(`{"path":"bad` + "\xff" + `.md","content":"x"}`); !strings.HasPrefix(got, "invalid_argument: path is not valid UTF-8") {
		t.Errorf("path not UTF-8: %s", got)
	}
	entries, _ := os.ReadDir(in.Vault)
	for _, de := range entries {
		if strings.ContainsRune(de.Name(), '\uFFFD') || de.Name() == "good.md" {
			t.Errorf("%q stored", de.Name())
		}
	}

	for _, c := range []struct{ ask, want string }{
		{nfd, nfc}, {nfc, nfc}, // NFC on disk
		{"Caf\u00e9.md", "Cafe\u0301.md"}, {"Caf\u00e9", "Cafe\u0301.md"}, // NFD on disk, as macOS writes it
	} {
		f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": c.ask}), "fetch "+c.ask)
		if str(f, "id") != c.want {
			t.Errorf("fetch %q found %q, want %q", c.ask, str(f, "id"), c.want)
		}
	}
	if r := call(t, ctx, cs, "create_note", map[string]any{"path": nfd, "content": "twin\n"}); !r.isError || !strings.HasPrefix(r.text, "note_exists: ") {
		t.Errorf("create of the NFD twin = %s", r.text)
	}
}

// A move cut in two by another process (an admin command killed between
// the link and the unlink) while the server runs is finished by the
// server's next reconcile, without a restart. "fast-ticks" reconciles
// every 50 ms instead of every 30 s.
func TestRunningServerFinishesInterruptedMoves(t *testing.T) {
	in := newInstance(t)
	in.bin = testkit.CortexWithFaults(t)
	t.Setenv("CORTEX_FAULT", "fast-ticks")
	if err := os.MkdirAll(filepath.Join(in.Vault, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in.Vault, "plan.md"), []byte("the plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in.start()
	// What the link-then-unlink fallback leaves when killed between its
	// steps: the intent, and the note at both names.
	if err := os.WriteFile(filepath.Join(in.Vault, ".cortex-move-e2e"), []byte("plan.md\nprojects/plan.md\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(in.Vault, "plan.md"), filepath.Join(in.Vault, "projects/plan.md")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !in.logs.WaitFor(ctx, "finished a move that a crash interrupted", 1) {
		t.Fatalf("the running server did not finish the move:\n%s", in.logs.String())
	}
	if _, err := os.Lstat(filepath.Join(in.Vault, "plan.md")); err == nil {
		t.Error("plan.md is still there")
	}
	if _, err := os.Lstat(filepath.Join(in.Vault, ".cortex-move-e2e")); err == nil {
		t.Error("the intent is still there")
	}
	if b, err := os.ReadFile(filepath.Join(in.Vault, "projects/plan.md")); err != nil || string(b) != "the plan\n" {
		t.Errorf("projects/plan.md = %q, %v", b, err)
	}
}
